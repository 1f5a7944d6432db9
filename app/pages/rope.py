"""The RoPE lab: the key is view state; θ and rotary_dim are config edits (the weights stay)."""
from __future__ import annotations

from . import PageController


class Controller(PageController):
    def wire(self, page) -> None:
        s = self.state
        page.keyChosen.connect(lambda j: s.select(key=j))
        page.thetaChosen.connect(lambda v: s.set_config(merge=True, rope_theta=v))
        page.rotaryChosen.connect(lambda v: s.set_config(merge=True, rotary_dim=v))
