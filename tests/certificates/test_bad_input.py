"""Bad certificate IDs get a clear 404, never a 500."""

import pytest
from django.urls import reverse


@pytest.mark.parametrize(
    "certificate_id", ["AAAA", "AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH", "%2e%2e", "0" * 32, "A" * 500]
)
def test_forged_certificate_ids_are_not_found(client, db, certificate_id):
    assert client.get(reverse("certificates:verify", args=[certificate_id])).status_code == 404
    assert client.get(reverse("certificates:pdf", args=[certificate_id])).status_code == 404
    response = client.get(reverse("api:certificate", args=[certificate_id]))
    assert response.status_code == 404
    assert "No certificate was issued" in response.json()["error"]
