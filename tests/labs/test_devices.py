"""Device-aware labs: runs that need a GPU go to the `cuda` queue, and the site accepts them only
while a worker with a GPU (that holds the size) has published its heartbeat."""

import json

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import ApiToken
from labs import workers
from labs.models import LabRun
from labs.training import config as lab_config
from labs.training.sizes import SIZES
from tests.factories import run_form

GUIDES_LM = {**lab_config.DEFAULT_CONFIG, "task": "guides-lm", "norm": "layer", "steps": 4, "effective_batch_size": 16}
GIB = 2**30
REFUSED = {
    "en": "size medium needs a GPU worker; none is connected.",
    "hi": "size medium के लिए GPU वाला worker चाहिए; अभी कोई जुड़ा नहीं है।",
}  # French: the catalog's, read through gettext (`refusal`)
REFUSED_IN_THE_FORM = {  # under the size field: its label names the setting (labs.forms.FORM_WORDING)
    "en": "This choice needs a GPU worker, and none is connected now.",
    "hi": "इस विकल्प के लिए GPU वाला worker चाहिए, और अभी कोई जुड़ा नहीं है।",
}


def refusal(words: dict[str, str], language: str) -> str:
    """The refusal in `language`: Hindi as written above, French from the catalog, checked to be
    translated (a reader's rewording never breaks these tests)."""
    if language != "fr":
        return words[language]
    english = words["en"].replace("size medium", "%(setting)s")
    with translation.override("fr"):
        french = gettext(english).replace("%(setting)s", "size medium")
    assert french != words["en"]
    return french


@pytest.fixture(autouse=True)
def follow_the_workers(settings):
    settings.LAB_DEVICE_CLASS = ""  # no override: the connected workers decide
    settings.LAB_WORKER_TTL = 60


@pytest.fixture
def token(learner):
    _token, raw = ApiToken.issue(user=learner, name="script")
    return raw


@pytest.fixture
def broker(empty_broker):
    """The broker's Redis, every lab queue empty (no worker consumes them here, so nothing is lost)."""
    return empty_broker


def publish_cpu_worker(name="cpu-1@host"):
    workers.worker_publish(name=name, **workers.describe_worker("cpu", 2))


def publish_gpu_worker(name="gpu-1@host", memory_bytes=141 * GIB):
    """What a worker with a GPU publishes (labs.workers.describe_worker on that machine)."""
    sizes = workers.sizes_that_fit("cuda", memory_bytes)
    workers.worker_publish(
        name=name,
        device="NVIDIA H200",
        device_class="cuda",
        memory_bytes=memory_bytes,
        sizes=sizes,
        max_processes=4,
        queues=workers.queues_for("cuda", sizes),
    )


def post(**changes) -> dict:
    return {name: "" if value is None else str(value) for name, value in {**GUIDES_LM, **changes}.items()}


def submit(client, token, data, language="en"):
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": language}
    return client.post("/api/labs/runs", json.dumps(data), content_type="application/json", headers=headers)


def messages_for(client, queue_name: str, run_id: int) -> list[bytes]:
    """The broker's messages (kombu's JSON envelopes) that ask a worker to train this run."""

    def for_the_run(raw: bytes) -> bool:
        headers = json.loads(raw)["headers"]
        return headers["task"] == workers.EXECUTE_RUN and headers["argsrepr"] == f"[{run_id}]"

    return [raw for raw in client.lrange(queue_name, 0, -1) if for_the_run(raw)]


# ---------------------------------------------------------------- routing and what workers publish


@pytest.mark.parametrize(
    ("changes", "queue_name"),
    [
        ({}, "gpu"),
        ({"precision": "bf16"}, "gpu"),
        ({"precision": "fp16"}, "gpu"),
        ({"size": "small"}, "cuda.small"),
        ({"size": "medium", "precision": "bf16"}, "cuda.medium"),
        ({"precision": "tf32"}, "cuda"),
        ({"task": "digits-cnn", "steps": 501, "effective_batch_size": 64}, "cuda"),  # over a CPU's limits
        ({"task": "digits-cnn", "steps": 500, "effective_batch_size": 256}, "cuda"),  # 128,000 samples
        ({"task": "digits-cnn", "steps": 500, "effective_batch_size": 128}, "gpu"),  # 64,000: a CPU's budget
    ],
)
def test_the_queue_is_chosen_by_what_the_settings_need(changes, queue_name):
    config = lab_config.RunConfig(**{**GUIDES_LM, **changes})
    assert workers.queue_for(config.to_dict()) == queue_name


def test_a_digits_run_stored_before_sizes_existed_goes_to_every_worker():
    assert workers.queue_for(lab_config.DEFAULT_CONFIG) == "gpu"


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_cpu_worker_publishes_its_memory_and_takes_only_cpu_sizes():
    described = workers.describe_worker("cpu", 2)
    assert described["device_class"] == "cpu" and described["memory_bytes"] > 0
    assert (described["sizes"], described["max_processes"], described["queues"]) == (["tiny"], 2, ["gpu"])


def test_a_gpu_takes_the_sizes_its_memory_holds():
    small, medium = SIZES["small"], SIZES["medium"]
    holds_small = small.state_bytes() + small.activation_bytes_per_sequence
    assert holds_small < medium.state_bytes() + medium.activation_bytes_per_sequence
    assert workers.sizes_that_fit("cuda", holds_small) == ["tiny", "small"]
    assert workers.sizes_that_fit("cuda", 141 * GIB) == ["tiny", "small", "medium"]
    assert workers.sizes_that_fit("cuda", None) == ["tiny", "small", "medium"]  # nvidia-smi could not say


# ---------------------------------------------------------------- limits from the connected workers


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_with_only_cpu_workers_the_form_refuses_a_gpu_size(language):
    publish_cpu_worker()
    with translation.override(language):
        form = run_form(post(size="medium"))
        assert not form.is_valid()
        assert form.errors["size"] == [refusal(REFUSED_IN_THE_FORM, language)]


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_with_only_cpu_workers_the_api_refuses_a_gpu_size_and_stores_nothing(client, token, language):
    publish_cpu_worker()
    response = submit(client, token, {**GUIDES_LM, "size": "medium"}, language=language)
    assert response.status_code == 400
    assert response.json()["fields"] == [{"field": "size", "message": refusal(REFUSED, language)}]
    assert LabRun.objects.count() == 0


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
@pytest.mark.parametrize("language", ["en", "fr"])
def test_steps_above_a_cpus_limit_are_refused_until_a_gpu_worker_is_connected(client, token, language):
    publish_cpu_worker()
    response = submit(client, token, {**GUIDES_LM, "steps": 1000}, language=language)
    assert response.status_code == 400
    ((entry),) = response.json()["fields"]
    assert entry["field"] == "steps"
    assert (
        entry["message"]
        == {
            "en": "steps must be a whole number from 1 to 500; got 1000.",
            "fr": "steps doit être un nombre entier de 1 à 500\u202f; reçu\u00a0: 1000.",
        }[language]
    )
    publish_gpu_worker()
    assert run_form(post(steps=1000)).is_valid()
    response = submit(client, token, {**GUIDES_LM, "steps": 2001})
    assert response.json()["fields"] == [
        {"field": "steps", "message": "steps must be a whole number from 1 to 2,000; got 2001."}
    ]


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_cuda_heartbeat_lets_a_gpu_run_through_to_the_cuda_queue(
    client, token, broker, django_capture_on_commit_callbacks
):
    publish_cpu_worker()
    publish_gpu_worker()
    with django_capture_on_commit_callbacks(execute=True):
        response = submit(client, token, {**GUIDES_LM, "size": "medium"})
    assert response.status_code == 201, response.content
    run = LabRun.objects.get()
    assert run.config["size"] == "medium" and run.enqueued_at is not None
    (message,) = messages_for(broker, "cuda.medium", run.pk)
    assert json.loads(message)["headers"]["timelimit"] == [
        settings.LAB_CUDA_HARD_TIME_LIMIT,
        settings.LAB_CUDA_SOFT_TIME_LIMIT,
    ]
    assert messages_for(broker, "gpu", run.pk) == []  # a CPU worker never sees it


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_tiny_run_goes_to_the_queue_every_worker_takes(client, token, broker, django_capture_on_commit_callbacks):
    publish_gpu_worker()
    with django_capture_on_commit_callbacks(execute=True):
        response = submit(client, token, {**GUIDES_LM, "precision": "bf16"})
    assert response.status_code == 201, response.content
    run = LabRun.objects.get()
    (message,) = messages_for(broker, "gpu", run.pk)
    assert json.loads(message)["headers"]["timelimit"] == [None, None]  # the worker's own: LAB_*_TIME_LIMIT
    assert messages_for(broker, "cuda", run.pk) == []


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_gpu_too_small_for_the_size_is_named_in_the_refusal():
    small = SIZES["small"]
    publish_gpu_worker(memory_bytes=small.state_bytes() + small.activation_bytes_per_sequence)
    assert run_form(post(size="small")).is_valid()
    with translation.override("fr"):
        form = run_form(post(size="medium"))
        assert not form.is_valid()
        # The catalog's French, read through gettext: a reader's rewording never breaks the test.
        english = (
            "The %(size)s model needs more GPU memory than any connected worker has; "
            "the largest they take is %(largest)s."
        )
        expected = gettext(english) % {"size": "medium", "largest": "small"}
        assert expected != english % {"size": "medium", "largest": "small"}  # translated
        assert form.errors["size"] == [expected]


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_the_operator_can_fix_the_device_class_whatever_is_connected(settings):
    publish_gpu_worker()
    settings.LAB_DEVICE_CLASS = "cpu"
    assert run_form(post(size="small")).errors["size"] == [REFUSED_IN_THE_FORM["en"]]
    workers.worker_forget(name="gpu-1@host")
    settings.LAB_DEVICE_CLASS = "cuda"
    assert run_form(post(size="medium", precision="tf32")).is_valid()


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_the_form_and_the_queue_api_say_which_sizes_are_accepted_now(client, db):
    publish_cpu_worker()
    assert "No GPU worker is connected now: only the tiny size can run." in str(run_form().fields["size"].help_text)
    assert str(run_form().fields["steps"].help_text) == (
        "A run may have up to 500 steps, an effective batch of up to 256 and 64,000 samples "
        "(steps × effective batch) now."
    )
    body = client.get("/api/labs/queue").json()
    assert (body["device_classes"], body["sizes"]) == (["cpu"], ["tiny"])
    assert body["limits"].endswith(
        "up to 500 steps, an effective batch of up to 256 and 64,000 samples (steps × effective batch) now."
    )
    publish_gpu_worker()
    with translation.override("hi"):
        assert "अभी आप ये size चला सकते हैं: tiny, small, medium।" in str(run_form().fields["size"].help_text)
    body = client.get("/api/labs/queue").json()
    assert (body["device_classes"], body["sizes"]) == (["cpu", "cuda"], ["tiny", "small", "medium"])
    assert "up to 2,000 steps, an effective batch of up to 256 and 256,000 samples" in body["limits"]
    gpu = next(worker for worker in body["workers"] if worker["device_class"] == "cuda")
    assert (gpu["memory_bytes"], gpu["sizes"], gpu["max_processes"]) == (141 * GIB, ["tiny", "small", "medium"], 4)
