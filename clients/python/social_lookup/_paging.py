"""Page iteration, driven by the operation's declared paging (the registry's, through the generated
table): the next page's query comes from the page just read, until it says no more. One page is
fetched at a time and only when asked for, so a loop that stops early spends nothing more."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from ._paths import value_at
from ._types import Answer

D = TypeVar("D")
E = TypeVar("E")
ItemT = TypeVar("ItemT")

Call = Callable[[str, dict[str, Any], "float | None"], Answer[Any]]


def next_query(paging: dict[str, Any], data: Any, query: dict[str, Any]) -> dict[str, Any] | None:
    """The query of the page after data, or None after the last."""
    if value_at(data, paging["has_more"]) is not True:
        return None
    following: dict[str, Any] = {}
    for step in paging["next"]:
        if step.get("from_query"):
            value = query.get(step["param"])
        else:
            found = value_at(data, step["from_data"])
            add = step.get("add")
            if isinstance(found, int) and not isinstance(found, bool):
                value = found + (add or 0)
            elif isinstance(found, str) and found != "" and add is None:
                value = found
            else:
                value = None
        if value is None or value == "":
            return None
        following[step["param"]] = value
    return None if following == query else following


class _Walk(Generic[ItemT]):
    """Pages of one lookup, walked on demand; counts what it fetched and spent."""

    def __init__(self, call: Call, name: str, paging: dict[str, Any], params: dict[str, Any], max_pages: int | None, timeout: float | None, items: Callable[[Answer[Any]], list[Any]]) -> None:
        self._call = call
        self._name = name
        self._paging = paging
        self._params = params
        self._max_pages = max_pages
        self._timeout = timeout
        self._items = items
        self.pages_fetched = 0
        # Credits charged for the pages fetched, from their receipts.
        self.credits_charged = 0
        # The key's credits after the last page; None before the first.
        self.credits_remaining: int | None = None

    def __iter__(self) -> Iterator[ItemT]:
        query: dict[str, Any] | None = {name: value for name, value in self._params.items() if value is not None and value != ""}
        pages = 0
        while query is not None:
            answer = self._call(self._name, query, self._timeout)
            pages += 1
            self.pages_fetched += 1
            self.credits_charged += answer.credits.charged
            self.credits_remaining = answer.credits.remaining
            yield from self._items(answer)
            if self._max_pages is not None and pages >= self._max_pages:
                return
            query = next_query(self._paging, answer.data, query)


class PageIterator(_Walk[E]):
    """Every entry of every page, to the last one."""


class Pages(_Walk[Answer[D]]):
    """Every page as an Answer, to the last one."""


class PagedOperation(Generic[D, E]):
    """A paged operation: call it for one page; iterate() for every entry, pages() for every page."""

    def __init__(self, call: Call, name: str, spec: dict[str, Any]) -> None:
        self._call = call
        self._name = name
        self._spec = spec

    def _page(self, params: dict[str, Any], timeout: float | None) -> Answer[D]:
        return self._call(self._name, params, timeout)

    def _iterate(self, params: dict[str, Any], max_pages: int | None, timeout: float | None) -> PageIterator[E]:
        paging = self._spec["paging"]

        def entries(answer: Answer[Any]) -> list[Any]:
            found = value_at(answer.data, paging["entries"])
            return found if isinstance(found, list) else []

        return PageIterator(self._call, self._name, paging, params, max_pages, timeout, entries)

    def _pages(self, params: dict[str, Any], max_pages: int | None, timeout: float | None) -> Pages[D]:
        return Pages(self._call, self._name, self._spec["paging"], params, max_pages, timeout, lambda answer: [answer])
