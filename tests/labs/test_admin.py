import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from labs.models import LabRun


@pytest.fixture
def admin_client(client, db):
    client.force_login(User.objects.create_superuser("root", "root@example.com", "a-long-Passphrase-99"))
    return client


def test_the_admin_lists_runs_with_their_status(admin_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING)
    html = admin_client.get(reverse("admin:labs_labrun_changelist")).content.decode()
    assert str(run) in html and "Running" in html
    assert "cancel_runs" in html and "requeue_runs" in html


def test_the_admin_cancels_selected_runs(admin_client, learner, make_run):
    queued, running = make_run(learner), make_run(learner, status=LabRun.Status.RUNNING)
    admin_client.post(
        reverse("admin:labs_labrun_changelist"),
        {"action": "cancel_runs", "_selected_action": [queued.pk, running.pk]},
    )
    queued.refresh_from_db(), running.refresh_from_db()
    assert queued.status == "cancelled"
    assert running.status == "running" and running.cancel_requested


def test_the_admin_requeues_a_failed_run(admin_client, learner, make_run, django_capture_on_commit_callbacks):
    failed = make_run(learner, status=LabRun.Status.FAILED, attempts=3, error="gone")
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            reverse("admin:labs_labrun_changelist"), {"action": "requeue_runs", "_selected_action": [failed.pk]}
        )
    failed.refresh_from_db()
    assert failed.status == "queued" and failed.attempts == 0 and failed.error == ""
    assert failed.enqueued_at is not None
