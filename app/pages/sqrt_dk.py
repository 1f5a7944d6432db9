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

    def selected(self, sel) -> None:
        if self.page is not None:
            self.page.set_dk(sel.d_k)

    def request(self) -> None:
        d_k = self.state.selection.d_k
        if d_k < 1:
            self.state.message.emit("error", tr("d_k = {d_k}: the lab needs d_k ≥ 1.").format(d_k=d_k))
            return
        if d_k in self._cache:
            self.deliver(self._cache[d_k])
            return
        if d_k in self._running:
            return
        if self.page is not None:
            self.page.set_computing(d_k)
        self._running.add(d_k)
        self.background.run(("sqrt", d_k), lambda: sqrt_dk.lab_numbers(d_k))

    def deliver(self, extra) -> None:
        self.extra = extra
        if self.page is not None:
            self.page.show_numbers(extra)
        self.delivered.emit(extra)

    def done(self, tag, value, error) -> None:
        self._running.discard(tag[1])                    # failed or not, it may be asked for again
        if error is not None:
            self.fail("sqrt", error)
            return
        self._cache[tag[1]] = value
        if tag[1] == self.state.selection.d_k:           # a slider dragged on: only the latest
            self.deliver(value)
