"""The circuit pages on screen: knock heads out (direct logit attribution), the score taken apart,
the head finder (the logit lens has a module of its own: logit_lens.py). Each draws the views
widgets/pages/circuit_views.py picks (the same its exported figure has) and emits intents; app/pages/
turns them into LabState edits (a knocked-out head is an undoable edit of the inputs) or selections,
and computes what a page waits for off the UI thread (`set_extra`)."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton

from ..i18n import QT_TR_NOOP
from . import PageKind
from .circuit_views import finder_views, formula, knockout_views, score_views
from .modern import ModernPage


class CircuitPage(ModernPage):
    """A ModernPage whose views are a circuit page's; a click on a layer × head map names that head."""

    headClicked = Signal(int, int)                 # (layer, head) of a layer × head map

    @property
    def formula(self) -> str:
        return formula(self.key)

    def head_maps(self) -> tuple[str, ...]:
        """The panels whose rows are layers and columns heads."""
        return ()

    def _on_click(self, mp, cell, event) -> None:
        name = next((n for n, w in self.widgets.items() if w is mp), None)
        if name in self.head_maps() and cell is not None:
            self.headClicked.emit(int(cell[0]), int(cell[1]))
            return
        super()._on_click(mp, cell, event)


class Knockout(CircuitPage):
    key = "knockout"
    resetRequested = Signal()

    def build_controls(self) -> None:
        self.reset = QPushButton()
        self.say(self.reset.setText, QT_TR_NOOP("Put every head back"))
        self.reset.clicked.connect(self.resetRequested)
        self.bar.addWidget(self.reset)

    def head_maps(self) -> tuple[str, ...]:
        return ("dla",)

    def sync_controls(self, result, sel) -> None:
        self.reset.setEnabled(bool(result.inputs.ablated))


class ScoreParts(CircuitPage):
    key = "score_parts"


class HeadFinder(CircuitPage):
    key = "head_finder"

    def head_maps(self) -> tuple[str, ...]:
        return ("finder_induction", "finder_previous", "finder_sink", "finder_duplicate")


PAGES = (
    PageKind("knockout", Knockout, knockout_views,
             QT_TR_NOOP("knock heads out: each head's and MLP's share of the predicted token's logit")),
    PageKind("score_parts", ScoreParts, score_views,
             QT_TR_NOOP("why this key: q·k by frequency pair and by the source that wrote q and k")),
    PageKind("head_finder", HeadFinder, finder_views,
             QT_TR_NOOP("the head finder: induction, previous-token, sink and duplicate scores per head")),
)
