"""bench/capacity.py's simulation (docs/SCALING.md's plan), in plain Python: identical preset runs train
once, more workers never make the queue wait longer, and a pool child's replacement pause shows."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bench"))

import capacity

GUIDES = [{"slug": "one", "preset": "sweep", "questions": 3}, {"slug": "two", "preset": "", "questions": 3}]


def inputs(**changes) -> capacity.Inputs:
    fields = {
        "guides": GUIDES,
        "preset_seconds": {"sweep": [4.0, 4.0, 4.0]},
        "api_seconds": [2.0],
        "twin_claim_seconds": 0.05,
    }
    return capacity.Inputs(**(fields | changes))


def test_a_room_on_one_preset_trains_each_of_its_runs_once_and_copies_the_rest():
    simulation = capacity.Simulation(inputs(api_seconds=[0.0]), learners=50, minutes=30, cpu_workers=1)
    waits = simulation.run()
    assert simulation.finished_twins == {"sweep#0", "sweep#1", "sweep#2"}
    assert len(waits) > 3 and max(waits) < 60  # 150 preset runs queued at most once each, none trained twice


def test_more_workers_never_make_the_wait_longer():
    p95 = [capacity.simulate(inputs(), 200, 30, workers, seeds=2)["p95"] for workers in (1, 2, 4)]
    assert p95[0] >= p95[1] >= p95[2] and p95[0] > p95[2]


def test_a_pool_childs_replacement_pause_lengthens_the_wait():
    quiet = capacity.simulate(inputs(), 100, 30, 1, seeds=2)["p95"]
    paused = capacity.simulate(inputs(recycle_every=10, recycle_seconds=30.0), 100, 30, 1, seeds=2)["p95"]
    assert paused > quiet + 10


def test_the_fewest_workers_meet_the_wait_and_one_fewer_does_not():
    count, result = capacity.workers_needed(inputs(), 300, 30, 20.0, seeds=2)
    assert result["p95"] <= 20.0
    assert count == 1 or capacity.simulate(inputs(), 300, 30, count - 1, seeds=2)["p95"] > 20.0
