"""Pages of a list endpoint: ninja's page-number pagination, each item given in its API shape."""

from collections.abc import Callable
from typing import Any

from ninja import Field, Schema
from ninja.pagination import PageNumberPagination

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_PAGE = 1_000_000  # ninja sets no upper bound: a page past 2**63 rows is a database error, a 500


class PageOf(PageNumberPagination):
    """`@paginate(PageOf, payload=run_payload)`: the view returns every item (a queryset, sliced
    here), and only the page's items are turned into their API shape by `payload`."""

    class Input(Schema):
        page: int = Field(1, ge=1, le=MAX_PAGE)
        page_size: int = Field(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)

    def __init__(self, *, payload: Callable[[Any], dict], **kwargs: Any) -> None:
        super().__init__(page_size=PAGE_SIZE, max_page_size=MAX_PAGE_SIZE, **kwargs)
        self.payload = payload

    def paginate_queryset(self, queryset: Any, pagination: Any, request: Any, **params: Any) -> dict:
        page = super().paginate_queryset(queryset, pagination, request, **params)
        return page | {self.items_attribute: [self.payload(item) for item in page[self.items_attribute]]}
