"""Calibrator: choose a change, predict its effect, test it, see the measurement beside the
prediction. The test is an A/B pair: app/ makes the change to a copy (side B) and the A/B page shows
both; the lab's inputs stay until "Keep the change". The widget collects the choice and the
prediction and shows what app/ measured."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from .i18n import tr

CHANGES = {
    "scaling_off": "Turn the 1/√d_head scaling off",
    "d_head_x4": "Multiply d_head by 4",
    "mask_off": "Turn the causal mask off",
    "move_token": "Move the query's token to the front",
    "switch_head": "Switch to the next head",
}
QUESTIONS = {
    "top_key": "Which key will get query i's largest weight?",
    "sharper": "Will query i's row get sharper (a larger top weight)?",
}


class CalibratorPanel(QWidget):
    applyRequested = Signal(str, str, object)     # change, question, prediction (key index or bool)
    suggestRequested = Signal()
    keepRequested = Signal()                      # make the tested change the lab's (undoable)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        intro = QLabel(tr("Predict first, then test: pick a change, say what you expect, and let the lab measure."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        box = QGroupBox(tr("Experiment"))
        form = QFormLayout(box)
        self.change = QComboBox()
        for key, text in CHANGES.items():
            self.change.addItem(text, key)
        suggest = QPushButton(tr("Let the lab suggest one"))
        suggest.clicked.connect(self.suggestRequested)
        form.addRow(tr("1. change"), self.change)
        form.addRow(tr(""), suggest)
        self.question = QComboBox()
        for key, text in QUESTIONS.items():
            self.question.addItem(text, key)
        self.question.currentIndexChanged.connect(self._question_changed)
        form.addRow(tr("2. question"), self.question)
        self.answer = QComboBox()
        form.addRow(tr("your answer"), self.answer)
        for combo in (self.change, self.question, self.answer):   # long texts must not widen the dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
            combo.currentTextChanged.connect(lambda text, c=combo: c.setToolTip(text))   # the whole text
        layout.addWidget(box)
        self.query_note = QLabel()
        self.query_note.setObjectName("note")
        self.query_note.setWordWrap(True)
        layout.addWidget(self.query_note)
        self.reason = QLabel()                       # why the lab chose another query, if it did
        self.reason.setObjectName("note")
        self.reason.setWordWrap(True)
        self.reason.hide()
        layout.addWidget(self.reason)
        buttons = QHBoxLayout()
        self.apply = QPushButton(tr("3. Test it (A/B)"))
        self.apply.setDefault(True)
        self.apply.setToolTip(tr("the change is made to a copy, B, shown beside the lab's A"))
        self.apply.clicked.connect(self._apply)
        self.keep = QPushButton(tr("Keep the change"))
        self.keep.setEnabled(False)
        self.keep.setToolTip(tr("make B the lab's inputs (Edit ▸ Undo takes it back)"))
        self.keep.clicked.connect(self.keepRequested)
        buttons.addWidget(self.apply)
        buttons.addWidget(self.keep)
        layout.addLayout(buttons)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.outcome)
        self.score = QLabel(tr("score: no predictions yet"))
        self.score.setObjectName("note")
        layout.addWidget(self.score)
        layout.addStretch(1)
        self.labels: list[str] = []
        self._context: tuple | None = None          # the latest context, until it is shown
        self._question_changed()

    def set_context(self, labels, query: int, head: int, layer: int) -> None:
        """The tokens and the query the prediction is about (from the current selection). Shown
        when the panel is (a T = 1024 list of keys is no work to repeat after every edit)."""
        self._context = (labels, query, head, layer)
        if self.isVisible():
            self._sync()

    def _sync(self) -> None:
        if self._context is None:
            return
        labels, query, head, layer = self._context
        self._context = None
        if list(labels) != self.labels:
            self.labels = list(labels)
            self._question_changed()
        if query != getattr(self, "_reason_query", None):
            self.reason.hide()                          # another query now: the reason is old
        word = labels[query] if 0 <= query < len(labels) else ""
        self.query_note.setText(f"query i = {query} (“{word}”), layer {layer}, head {head} — pick another "
                                "query by clicking a token chip.")

    def set_reason(self, text: str, query: int | None = None) -> None:
        """Why the lab asks about this query (shown while it is the query)."""
        self._reason_query = query
        self.reason.setText(text)
        self.reason.setVisible(bool(text))

    def showEvent(self, event) -> None:
        self._sync()
        super().showEvent(event)

    def set_prediction(self, question: str, answer) -> None:
        self._sync()
        self.question.setCurrentIndex(self.question.findData(question))
        self.answer.setCurrentIndex(max(0, self.answer.findData(answer)))

    def choose_change(self, change: str) -> None:
        self.change.setCurrentIndex(self.change.findData(change))

    def _question_changed(self) -> None:
        chosen = self.answer.currentData()
        self.answer.clear()
        if self.question.currentData() == "top_key":
            for j, word in enumerate(self.labels):
                self.answer.addItem(f"key {j} “{word}”", j)
        else:
            self.answer.addItem("yes, sharper", True)
            self.answer.addItem("no, flatter or the same", False)
        kept = self.answer.findData(chosen) if chosen is not None else -1
        if kept >= 0 and type(self.answer.itemData(kept)) is type(chosen):   # new words keep the answer
            self.answer.setCurrentIndex(kept)

    def _apply(self) -> None:
        self._sync()
        self.applyRequested.emit(self.change.currentData(), self.question.currentData(), self.answer.currentData())

    def show_outcome(self, html: str, correct: int, total: int, can_keep: bool) -> None:
        self.outcome.setText(html)
        self.score.setText(f"score this session: {correct} of {total} predictions right")
        self.keep.setEnabled(can_keep)
