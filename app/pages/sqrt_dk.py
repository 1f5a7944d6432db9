"""The √d_k lab: d_k is view state (Selection.d_k); its numbers (compute.instruments.sqrt_dk.lab_numbers)
are measured off the UI thread, once per d_k, and only the latest asked for is shown."""
from __future__ import annotations

from compute.instruments import sqrt_dk
from widgets.i18n import tr

from . import PageController


class Controller(PageController):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._cache: dict[int, sqrt_dk.LabNumbers] = {}
        self._running: set[int] = set()

    def wire(self, page) -> None:
        s = self.state                      # lambdas hold the state, never a QObject that dies first
        page.dkChosen.connect(lambda d_k: s.select(d_k=d_k))

    def request(self) -> None:
        d_k = self.state.selection.d_k
        if d_k < 1:
            self.state.message.emit("error", tr("d_k = {d_k}: the lab needs d_k ≥ 1.").format(d_k=d_k))
            return
        if d_k in self._cache:
            if self.extra is not self._cache[d_k]:
                self.deliver(self._cache[d_k])
            return
        if d_k in self._running:
            return
        self._running.add(d_k)
        self.background.run(("sqrt", d_k), lambda: sqrt_dk.lab_numbers(d_k))

    def done(self, tag, value, error) -> None:
        self._running.discard(tag[1])                    # failed or not, it may be asked for again
        if error is not None:
            self.fail("sqrt", error)
            return
        self._cache[tag[1]] = value
        if tag[1] == self.state.selection.d_k:           # a slider dragged on: only the latest
            self.deliver(value)
