"""Shared K/V heads: the what-if number of K/V heads is view state; a pooled model goes to A/B."""
from __future__ import annotations

from . import PageController


class Controller(PageController):
    def wire(self, page) -> None:
        s = self.state
        page.kvChosen.connect(lambda n: s.select(kv_heads=n))
        page.abRequested.connect(lambda cond: s.select(ab=cond, station="ab"))
