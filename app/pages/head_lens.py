"""The head lens: two heads chosen on the page are view state (Selection.lens)."""
from __future__ import annotations

from . import PageController


class Controller(PageController):
    def wire(self, page) -> None:
        s = self.state
        page.headsChosen.connect(lambda la, ha, lb, hb: s.select(lens=((la, ha), (lb, hb))))
