"""Windows and sinks: the compared window is view state; the run without the first token (the
sinks) is computed off the UI thread, once per result."""
from __future__ import annotations

from compute import memory
from widgets.i18n import message, tr
from widgets.pages.instrument_views import without_first

from . import PageController
from .mask import UNMASKED_MAX_BYTES


class Controller(PageController):
    _for = None                         # the request id the run without the first token was asked for

    def wire(self, page) -> None:
        s = self.state                      # lambdas hold the state, never a QObject that dies first
        page.windowChosen.connect(lambda w: s.select(window=w))

    def request(self) -> None:
        result = self.state.result
        if result is None or len(result.inputs.tokens) < 2 or self._for == result.request_id:
            return
        self._for = result.request_id
        if memory.estimate(result.inputs.config, len(result.inputs.tokens) - 1).compute > UNMASKED_MAX_BYTES:
            self.state.message.emit("info", tr("The sinks view compares with a run without the first token only up "
                                               "to {size} of intermediates.").format(
                size=message(memory.bytes_message(UNMASKED_MAX_BYTES))))
            return
        self.background.run(("without_first", result.request_id), lambda: without_first(result))

    def done(self, tag, value, error) -> None:
        current = self.state.result
        if error is None and value is not None and current is not None and current.request_id == tag[1]:
            self.deliver(value)
        elif error is not None:
            self.fail(tag[0], error)
