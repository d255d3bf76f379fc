"""Auto-pagination over the API's cursor pages. Hand-written; kept across regeneration."""
from __future__ import annotations

from typing import Callable, Generic, Iterator, List, Optional, Protocol, Sequence, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Page(Protocol[T_co]):
    """What every list operation answers: one page of items and the cursor of the next."""

    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def next_cursor(self) -> Optional[str]: ...

    @property
    def has_more(self) -> bool: ...


class Paginator(Generic[T]):
    """Every item of a list, across pages, fetched lazily one page at a time as iteration needs them.

    ``for contact in client.contacts.list(tag="vip")`` walks them all; ``.first_page()`` answers
    one page (its ``data``, ``next_cursor`` and ``has_more``) for those who page by hand.
    """

    def __init__(self, fetch: Callable[[Optional[str]], Page[T]], cursor: Optional[str] = None) -> None:
        self._fetch = fetch
        self._cursor = cursor

    def first_page(self) -> Page[T]:
        return self._fetch(self._cursor)

    def pages(self) -> Iterator[Page[T]]:
        cursor = self._cursor
        while True:
            page = self._fetch(cursor)
            yield page
            cursor = page.next_cursor
            if not cursor or not page.data:
                return

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data

    def to_list(self) -> List[T]:
        """Every item, read into a list (mind the size of the account)."""
        return list(self)
