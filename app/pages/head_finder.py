"""The head finder: its scores are computed off the UI thread, once per weights; a click on a head
opens it on the Scores station."""
from __future__ import annotations

from widgets.pages.circuit_views import found_of

from . import PageController


class Controller(PageController):
    _for = None                         # the weights uid the scores were asked for

    def wire(self, page) -> None:
        s = self.state                      # lambdas hold the state, never a QObject that dies first
        page.headClicked.connect(lambda la, h: s.select(layer=la, head=h, station="scores"))

    def request(self) -> None:
        result = self.state.result
        if result is None:
            return
        if self.extra is not None and self.extra.weights_uid == result.weights.uid:
            self.deliver(self.extra)
            return
        if self._for == result.weights.uid:
            return
        self._for = result.weights.uid
        self.background.run(("found", result.weights.uid), lambda: found_of(result))

    def done(self, tag, value, error) -> None:
        if error is not None:
            self._for = None                             # failed: it may be asked for again
            return
        self.extra = value
        current = self.state.result
        if current is not None and current.weights.uid == tag[1]:
            self.deliver(value)
