"""The instrument pages' app side: one small controller per page, which connects the page's intents
to LabState and asks compute for what the page waits for (off the UI thread).

A page's controller is `app/pages/<key>.py`'s `Controller` (a `PageController`); a page that only
draws the result and selection (the logit lens, the score taken apart) needs none. Controllers
exist from the start (they are cheap: no widgets); the page's widget is built on first show
(widgets/pages/) and handed to its controller then (`attach`). What a controller computed before
that waits in `extra` and reaches the page when it is built.
"""
from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from PySide6.QtCore import QObject, Signal

from compute import ConfigError
from compute.stations import INSTRUMENT_PAGES
from widgets.i18n import error_text, tr

from ..background import Background


class PageController(QObject):
    delivered = Signal(object)              # what the page waited for reached it (tests, scripts)
    key = ""

    def __init__(self, state, parent: QObject | None = None, key: str | None = None):
        super().__init__(parent)
        self.key = key or self.key
        self.state = state
        self.page = None                    # the page's widget, once it is built
        self.extra = None                   # what the page waits for, the latest
        self.background = Background(self)
        self.background.done.connect(self.done)
        state.resultChanged.connect(self._on_result)
        state.selectionChanged.connect(self._on_selection)

    # -- what a page overrides ---------------------------------------------------------------------
    def wire(self, page) -> None:
        """Connect the page's intents (its signals) to LabState. A lambda here holds the state
        (`s = self.state`), never `self` (as MainWindow's own wiring: a lambda should not keep a
        QObject that Qt deletes first)."""

    def request(self) -> None:
        """Ask for what the page waits for, for the result and selection now (the page is shown)."""

    def selected(self, sel) -> None:
        """The selection changed while the page is shown (after `request`)."""

    def deliver(self, extra) -> None:
        """What the page waited for, to the page (ModernPage.set_extra) if it is built."""
        self.extra = extra
        if self.page is not None and hasattr(self.page, "set_extra"):
            self.page.set_extra(extra)
        self.delivered.emit(extra)

    def done(self, tag, value, error) -> None:
        """A background job ended (`self.background.run(tag, fn)`): its value to the page."""
        if error is not None:
            self.fail(tag[0], error)
        else:
            self.deliver(value)

    # -- plumbing ---------------------------------------------------------------------------------------
    @property
    def shown(self) -> bool:
        return self.state.selection.station == self.key

    def attach(self, page) -> None:
        self.page = page
        self.wire(page)
        if self.extra is not None:
            self.deliver(self.extra)
        if self.shown:
            self.selected(self.state.selection)

    def _on_result(self, _result) -> None:
        if self.shown:
            self.request()

    def _on_selection(self, sel) -> None:
        if self.shown:
            self.request()
            self.selected(sel)

    def fail(self, kind: str, error: Exception) -> None:
        if isinstance(error, (ConfigError, MemoryError)):
            self.state.message.emit("error", error_text(error) or tr("not enough memory"))
        else:
            self.state.message.emit("error", f"{kind}: {type(error).__name__}: {error}")


def controller_for(key: str, state, parent: QObject | None = None) -> PageController:
    """Page `key`'s controller: app/pages/<key>.py's Controller, else a PageController that only
    hands the page its result."""
    if key not in INSTRUMENT_PAGES:
        raise KeyError(key)
    name = f"{__name__}.{key}"
    cls = import_module(name).Controller if find_spec(name) is not None else PageController
    return cls(state, parent, key=key)


def controllers(state, parent: QObject | None = None) -> dict[str, PageController]:
    """Every instrument page's controller, in the page table's order."""
    return {key: controller_for(key, state, parent) for key in INSTRUMENT_PAGES}
