"""The labs queue in Chromium: the listed runs and the queue panel update live, and wide tables
scroll inside their own box at phone and desktop widths."""

import pytest
from playwright.sync_api import expect

from labs import workers
from labs.models import LabRun
from tests.factories import finished_run

pytestmark = pytest.mark.browser

CONFIG = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 16,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 3,
    "seed": 0,
}


def test_the_run_list_and_the_queue_update_live_and_polling_stops(new_page, live_server, learner, settings):
    settings.LAB_WORKER_TTL = 600  # the published worker stays for the whole test
    run = finished_run(learner, CONFIG)
    LabRun.objects.filter(pk=run.pk).update(status=LabRun.Status.QUEUED, finished_at=None)
    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/labs/")
    panel = page.locator("#lab-queue")
    expect(panel).to_contain_text("No worker is connected right now.")
    expect(page.locator(f"#pick-status-{run.pk}")).to_contain_text("Queued")

    workers.worker_publish(name="gpu-1@lab", device="NVIDIA H200")
    expect(panel).to_contain_text("gpu-1@lab · NVIDIA H200 · idle")
    LabRun.objects.filter(pk=run.pk).update(status=LabRun.Status.SUCCEEDED)
    expect(page.locator(f"#pick-status-{run.pk}")).to_contain_text("Succeeded")
    expect(page.locator("#lab-live[data-hx-get]")).to_have_count(0)  # nothing active: the poll stopped


@pytest.mark.parametrize("phone", [True, False], ids=["390px", "1280px"])
def test_wide_lab_tables_scroll_inside_their_box(new_page, live_server, learner, phone):
    run = finished_run(learner, CONFIG)
    page = new_page(user=learner, phone=phone)
    page.goto(f"{live_server.url}/en/labs/compare/?run={run.share_ref}")
    box = page.get_by_role("region", name="Settings and results of each run")
    expect(box).to_have_attribute("tabindex", "0")
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.querySelector('#lab-results .lab-scroll').scrollWidth,"
        " document.querySelector('#lab-results .lab-scroll').clientWidth]"
    )
    page_width, viewport, table_width, box_width = sizes
    assert page_width <= viewport, sizes  # the page itself never scrolls sideways
    assert table_width > box_width, sizes  # sixteen columns: the box scrolls instead
