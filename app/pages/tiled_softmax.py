"""The tiled softmax: the tile size and the step shown are view state."""
from __future__ import annotations

from . import PageController


class Controller(PageController):
    def wire(self, page) -> None:
        s = self.state
        page.tileChosen.connect(lambda t: s.select(tile=t, tile_step=None))
        page.stepChosen.connect(lambda n: s.select(tile_step=n))
