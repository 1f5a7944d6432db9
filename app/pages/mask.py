"""The mask: the same inputs computed once more without the causal mask, off the UI thread, once
per result."""
from __future__ import annotations

from compute import memory
from widgets.i18n import message, tr
from widgets.pages.classic_views import unmasked_of

from . import PageController

UNMASKED_MAX_BYTES = 2 << 30    # compute the unmasked twin only up to this size of intermediates


class Controller(PageController):
    _for = None                         # the request id the unmasked run was asked for

    def request(self) -> None:
        result = self.state.result
        if result is None or self._for == result.request_id:
            return
        self._for = result.request_id
        cfg = result.inputs.config.replace(causal=False)
        if memory.estimate(cfg, len(result.inputs.tokens)).compute > UNMASKED_MAX_BYTES:
            size = message(memory.bytes_message(UNMASKED_MAX_BYTES))
            self.state.message.emit("info", tr("The mask view compares with an unmasked run only up to {size} of "
                                               "intermediates.").format(size=size))
            return
        self.background.run(("unmasked", result.request_id), lambda: unmasked_of(result))

    def done(self, tag, value, error) -> None:
        if error is not None:
            self.fail(tag[0], error)
            return
        current = self.state.result
        if current is not None and current.request_id == tag[1]:
            self.deliver(value)
