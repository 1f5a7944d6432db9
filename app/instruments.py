"""The instruments dock's app side: the dot-product trace, the code view's source, and the
calibrator (Predict), whose experiments run as A/B's side B (app/pages/ab.py). The instrument
pages' own controllers are in app/pages/. Widgets get finished numbers; every state change still
goes through LabState."""
from __future__ import annotations

import html
import random

from PySide6.QtCore import QObject, Signal

from compute import source_map
from compute.instruments import explain
from compute.stations import PAGE
from widgets.calibrator import MISTAKE
from widgets.i18n import num, tr
from widgets.pages.instrument_views import Side
from widgets.theme import CORRECT, WARN

from .state import LabResult, LabState

UNCHANGED = 5e-4                # a top weight that moves less than this has not changed
ONE_HOT = 0.999                 # a row this sure of one key cannot get sharper


def _decimals(*pairs: tuple[float, float]) -> int:
    """The fewest decimals (2 to 6) at which each (before, after) pair reads as two numbers."""
    for d in range(2, 7):
        if all(round(a, d) != round(b, d) for a, b in pairs if abs(a - b) >= 10 ** -6):
            return d
    return 6


def sharpening(before, after) -> tuple[str, bool]:
    """What happened to a softmax row's top weight (explain.RowSummary before / after), in words
    that are true at the precision shown, and whether it got sharper."""
    delta = after.top_weight - before.top_weight
    if abs(delta) < UNCHANGED:
        text = (tr("the top weight stayed {top}, entropy {entropy} nats: unchanged (already one-hot)")
                if before.top_weight >= ONE_HOT else
                tr("the top weight stayed {top}, entropy {entropy} nats: unchanged"))
        return text.format(top=num(before.top_weight, ".3f"), entropy=num(before.entropy, ".3f")), False
    d = _decimals((before.top_weight, after.top_weight), (before.entropy, after.entropy))
    text = (tr("the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: sharper") if delta > 0 else
            tr("the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: flatter"))
    return text.format(top0=num(before.top_weight, f".{d}f"), top1=num(after.top_weight, f".{d}f"),
                       ent0=num(before.entropy, f".{d}f"), ent1=num(after.entropy, f".{d}f")), delta > 0


# The calibrator's changes as A/B conditions (compute.instruments.ab); move_token and switch_head need the selection.
CALIBRATOR_CONDITIONS = {"scaling_off": ("scaling_off", None), "d_head_x4": ("d_head_x4", None),
                         "mask_off": ("mask_off", None)}


class Instruments(QObject):
    calibrated = Signal(str, int, int, bool)  # outcome html, correct, total, can keep the change

    def __init__(self, state: LabState, ab, parent: QObject | None = None):
        """`ab`: A/B's controller (app/pages/ab.py), where the calibrator's experiments run."""
        super().__init__(parent)
        self.state = state
        self.ab = ab
        self.correct = 0
        self.total = 0
        self._pending = None                # calibrator experiment waiting for its side B
        ab.sideReady.connect(self._side_ready)
        ab.kept.connect(self._kept)

    # -- dot-product trace --------------------------------------------------------------------------
    def dot_trace(self, result: LabResult | None, sel):
        """The DotTrace of the selected cell, or None."""
        if result is None or sel.trace is None:
            return None
        name, row, col = sel.trace
        t = result.trace
        try:
            if name == "attn_scores":
                return explain.score_trace(t, sel.layer, sel.head, row, col)
            return explain.projection_trace(t, result.weights, name, sel.layer, sel.head, row, col)
        except (IndexError, KeyError):
            return None

    # -- code view ------------------------------------------------------------------------------------
    def code_for(self, station: str, which: str, result: LabResult | None):
        """(SourceView or None, note) for the code view."""
        in_use = result.trace.backend if result is not None else "cpu"
        backend = in_use if which == "backend in use" else which
        if station not in source_map.STATIONS:
            numbers = PAGE[station].numbers if station in PAGE else "instruments/explain"
            note = tr("“{page}” is an instrument, not a step of the block: its numbers come from "
                      "compute/{module}.py.").format(page=station, module=numbers)
            try:
                return source_map.instrument_source(station), note
            except (KeyError, ImportError, OSError):
                return None, note
        try:
            family = source_map.family_of(result.inputs.config) if result is not None else ()
            view = source_map.station_source(backend, station, family)
        except (KeyError, LookupError, ImportError, OSError) as exc:
            return None, tr("no source for {backend}: {why}").format(backend=backend, why=exc)
        note = (tr("this backend computed the views") if backend == in_use
                else tr("(the views were computed by {backend})").format(backend=in_use))
        return view, note

    # -- calibrator -------------------------------------------------------------------------------------------
    def open_query(self, result: LabResult | None, sel) -> int | None:
        """A query worth predicting about: the selected one unless its row is already one-hot
        (nothing can sharpen it), else the latest query whose row is not; None if all are."""
        if result is None or result.trace.T == 0:
            return None
        def open_row(i):
            return explain.row_summary(result.trace, sel.layer, sel.head, i).top_weight < ONE_HOT
        if sel.query < result.trace.T and open_row(sel.query):
            return sel.query
        return next((i for i in range(result.trace.T - 1, -1, -1) if open_row(i)), None)

    def suggest(self) -> tuple[str, str]:
        change = random.choice(["scaling_off", "d_head_x4", "mask_off", "move_token", "switch_head"])
        question = "sharper" if change in ("scaling_off", "d_head_x4") else "top_key"
        return change, question

    def open_query_for_predict(self, calibrator) -> None:
        """Predict asks about a row that can change: a one-hot row (query 0, a saturated head)
        gives way to the latest query whose row is not; the calibrator says why."""
        sel = self.state.selection
        query = self.open_query(self.state.result, sel)
        if query is not None and query != sel.query:
            self.state.select(query=query, key=None)
            calibrator.set_reason(tr("Query {old}'s row is already one-hot (nothing can sharpen it): asking "
                                     "about query {new} instead.").format(old=sel.query, new=query), query)

    def suggest_experiment(self, calibrator) -> None:
        self.open_query_for_predict(calibrator)
        change, question = self.suggest()
        calibrator.choose_change(change)
        calibrator.set_prediction(question, None)

    def calibrate(self, change: str, question: str, prediction) -> None:
        """Predict, then test: the change is made to a copy (A/B's side B, off the UI thread), the
        A/B page shows both, and the prediction is measured on B; the lab's inputs stay."""
        s = self.state
        result, sel = s.result, s.selection
        if result is None or s.busy:
            s.message.emit("info", tr("Wait for the current computation, then try again."))
            return
        if prediction is None:
            s.message.emit("info", tr("Choose your answer first: predicting is the point."))
            return
        cfg = result.inputs.config
        if change == "move_token":
            if sel.query == 0:
                self.calibrated.emit(tr("That change cannot be made here: the query's token is at the front "
                                        "already."),
                                     self.correct, self.total, False)
                return
            condition = ("move_token", (sel.query, 0))
        elif change == "switch_head":
            condition = ("head", (sel.head + 1) % cfg.n_heads)
        elif change in CALIBRATOR_CONDITIONS:
            condition = CALIBRATOR_CONDITIONS[change]
        elif change.startswith(MISTAKE):                 # "load it wrong": the model with one classic mistake
            condition = ("mistake", change[len(MISTAKE):])
        else:
            self.calibrated.emit(tr("That change cannot be made here."), self.correct, self.total, False)
            return
        self._pending = dict(question=question, prediction=prediction, query=sel.query, layer=sel.layer,
                             head=sel.head, labels=result.labels, key=(result.request_id, condition),
                             before=explain.row_summary(result.trace, sel.layer, sel.head, sel.query))
        s.select(ab=condition, station="ab")              # the test, side by side (request_b follows)
        self.ab.request()

    def _measure(self, side: Side) -> None:
        p = self._pending
        self._pending = None
        if side.error:
            self.calibrated.emit(tr("The change could not be computed, so there is nothing to measure: {why}").format(
                why=html.escape(side.error)), self.correct, self.total, False)
            return
        head = side.edited.head if side.edited.head is not None else p["head"]
        after = explain.row_summary(side.trace, p["layer"], head, p["query"])
        result = self.state.result
        labels_b = [result.token_label(int(t)) for t in side.edited.tokens]
        if p["question"] == "top_key":
            right = after.top_key == p["prediction"]
            guess = tr("key {j} “{word}”").format(j=p["prediction"], word=p["labels"][p["prediction"]])
            seen = tr("in B, key {j} “{word}” takes the most weight ({weight})").format(
                j=after.top_key, word=labels_b[after.top_key], weight=num(after.top_weight, ".2f"))
        else:
            seen, sharper = sharpening(p["before"], after)
            right = sharper == p["prediction"]
            guess = tr("sharper") if p["prediction"] else tr("flatter or the same")
        self.total += 1
        self.correct += int(right)
        verdict = tr("✓ right") if right else tr("✗ not this time")
        mark = f"<b style='color:{CORRECT if right else WARN}'>{verdict}</b>"
        self.calibrated.emit(tr("You predicted: {guess}.<br>Measured: {seen} — A and B side by side on the A/B "
                                "page.<br>{mark}").format(guess=f"<b>{html.escape(guess)}</b>", seen=html.escape(seen),
                                                          mark=mark), self.correct, self.total,
                             side.edited.head is None)

    def _side_ready(self, side: Side) -> None:
        p = self._pending
        if p is not None and p["key"] == (side.request_id, side.condition):
            self._measure(side)

    def _kept(self) -> None:
        self.calibrated.emit(tr("The change is now the lab's (Edit ▸ Undo takes it back)."), self.correct,
                             self.total, False)

    def keep_ab(self) -> None:
        self.ab.keep()
