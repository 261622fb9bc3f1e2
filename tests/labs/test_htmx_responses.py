"""The lab pages that htmx polls: a fragment for a poll, the whole page for a history restore, and
Vary saying so."""

import pytest
from django.urls import reverse

from labs.models import LabRun

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
HISTORY_RESTORE = {"HX-Request": "true", "HX-History-Restore-Request": "true"}


def varies_on_htmx(response) -> bool:
    vary = {name.strip() for name in response["Vary"].split(",")}
    return {"HX-Request", "HX-History-Restore-Request"} <= vary


@pytest.mark.parametrize("headers", [{}, HTMX, HISTORY_RESTORE])
def test_a_run_page_varies_on_htmx_and_restores_history_as_a_page(learner_client, learner, make_run, headers):
    run = make_run(learner, status=LabRun.Status.RUNNING)
    response = learner_client.get(reverse("labs:run", args=[run.pk]), headers=headers)
    is_page = "<html" in response.content.decode()
    assert response.status_code == 200 and varies_on_htmx(response)
    assert is_page == (headers is not HTMX)


@pytest.mark.parametrize("headers", [{}, HTMX, HISTORY_RESTORE])
def test_the_compare_page_varies_on_htmx_and_restores_history_as_a_page(learner_client, learner, make_run, headers):
    run = make_run(learner, status=LabRun.Status.RUNNING)
    response = learner_client.get(reverse("labs:compare") + f"?run={run.pk}", headers=headers)
    is_page = "<html" in response.content.decode()
    assert response.status_code == 200 and varies_on_htmx(response)
    assert is_page == (headers is not HTMX)
