"""Knock heads out: a click on a head is an undoable edit of the inputs (Inputs.ablated); the pass
without the knocked-out heads is computed off the UI thread, once per result that has some."""
from __future__ import annotations

from widgets.pages.circuit_views import clean_of

from . import PageController


class Controller(PageController):
    _for = None                         # the request id the clean pass was asked for

    def wire(self, page) -> None:
        page.headClicked.connect(self.state.toggle_ablation)
        page.resetRequested.connect(self.state.clear_ablations)

    def request(self) -> None:
        result = self.state.result
        if result is None or not result.inputs.ablated or self._for == result.request_id:
            return
        self._for = result.request_id
        self.background.run(("clean", result.request_id), lambda: clean_of(result))

    def done(self, tag, value, error) -> None:
        current = self.state.result
        if error is None and current is not None and current.request_id == tag[1]:
            self.deliver(value)
