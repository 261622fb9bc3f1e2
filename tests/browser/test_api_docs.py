"""The API's docs page in Chromium: Swagger UI, from the site's own static files, draws every
operation of /api/openapi.json under the site's Content-Security-Policy (a blocked script, style or
request would be a console error, which fails the test: the `page` fixture)."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_docs_page_draws_every_operation_from_local_files(page, live_server):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Gradient Accumulation Course API")
    operations = page.locator(".opblock-summary-path")
    expect(operations.first).to_be_visible()
    shown = {" ".join(text.split()) for text in operations.all_inner_texts()}
    document = page.request.get(f"{live_server.url}/api/openapi.json").json()
    assert {path.replace("\u200b", "") for path in shown} == set(document["paths"])
    assert all(url.startswith(live_server.url) or url.startswith("data:") for url in requested), requested
