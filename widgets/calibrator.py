"""Calibrator: choose a change, predict its effect, test it, see the measurement beside the
prediction. The test is an A/B pair: app/ makes the change to a copy (side B) and the A/B page shows
both; the lab's inputs stay until "Keep the change". The widget collects the choice and the
prediction and shows what app/ measured."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from .i18n import QT_TR_NOOP, Retranslate, tr

CHANGES = {
    "scaling_off": QT_TR_NOOP("Turn the 1/√d_head scaling off"),
    "d_head_x4": QT_TR_NOOP("Multiply d_head by 4"),
    "mask_off": QT_TR_NOOP("Turn the causal mask off"),
    "move_token": QT_TR_NOOP("Move the query's token to the front"),
    "switch_head": QT_TR_NOOP("Switch to the next head"),
}
MISTAKE = "mistake:"                 # + a mistake's key (compute.models.components.mistakes): "load it wrong"
LOAD_WRONG = QT_TR_NOOP("Load it wrong: {mistake}")
QUESTIONS = {
    "top_key": QT_TR_NOOP("Which key will get query i's largest weight?"),
    "sharper": QT_TR_NOOP("Will query i's row get sharper (a larger top weight)?"),
}


class CalibratorPanel(Retranslate, QWidget):
    applyRequested = Signal(str, str, object)     # change, question, prediction (key index or bool)
    suggestRequested = Signal()
    keepRequested = Signal()                      # make the tested change the lab's (undoable)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.box = QGroupBox()
        form = QFormLayout(self.box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)   # a narrow dock: each field its full width
        self.change = QComboBox()
        for key, text in CHANGES.items():
            self.change.addItem(text, key)
        self.suggest = QPushButton()
        self.suggest.clicked.connect(self.suggestRequested)
        self.row_labels = [QLabel(), QLabel(), QLabel()]
        form.addRow(self.row_labels[0], self.change)
        form.addRow("", self.suggest)
        self.question = QComboBox()
        for key, text in QUESTIONS.items():
            self.question.addItem(text, key)
        self.question.currentIndexChanged.connect(self._question_changed)
        form.addRow(self.row_labels[1], self.question)
        self.answer = QComboBox()
        form.addRow(self.row_labels[2], self.answer)
        self.whole: dict[QComboBox, QLabel] = {}
        for combo in (self.change, self.question, self.answer):   # long texts must not widen the dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
            combo.currentTextChanged.connect(lambda text, c=combo: c.setToolTip(text))   # the whole text
            whole = QLabel()                       # the whole choice, wrapped, where the box cuts it
            whole.setObjectName("note")
            whole.setWordWrap(True)
            whole.hide()
            form.insertRow(form.rowCount() if combo is self.answer else
                           (2 if combo is self.change else 4), "", whole)
            self.whole[combo] = whole
            combo.currentTextChanged.connect(lambda _text: self._fit_choices())
        layout.addWidget(self.box)
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
        self.apply = QPushButton()
        self.apply.setDefault(True)
        self.apply.clicked.connect(self._apply)
        self.keep = QPushButton()
        self.keep.setEnabled(False)
        self.keep.clicked.connect(self.keepRequested)
        buttons.addWidget(self.apply)
        buttons.addWidget(self.keep)
        layout.addLayout(buttons)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.outcome)
        self.score = QLabel()
        self.score.setObjectName("note")
        layout.addWidget(self.score)
        layout.addStretch(1)
        self.labels: list[str] = []
        self._context: tuple | None = None          # the latest context, until it is shown
        self._shown_context: tuple | None = None    # the context on show (for a new language)
        self._score: tuple[int, int] | None = None
        self._mistakes: tuple[tuple[str, str], ...] = ()   # (key, title marked for translation)
        self._question_changed()
        self.retranslate()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_choices()

    def cut(self, combo: QComboBox) -> bool:
        """Whether the box shows less than its choice's whole text."""
        from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, combo).width()
        return combo.fontMetrics().horizontalAdvance(combo.currentText()) > room

    def _fit_choices(self) -> None:
        for combo, whole in getattr(self, "whole", {}).items():
            cut = self.cut(combo)
            whole.setText(combo.currentText() if cut else "")
            whole.setVisible(cut)

    def retranslate(self) -> None:
        self.intro.setText(tr("Predict first, then test: pick a change, say what you expect, and let the lab "
                              "measure."))
        self.box.setTitle(tr("Experiment"))
        for label, text in zip(self.row_labels, (tr("1. change"), tr("2. question"), tr("your answer")), strict=True):
            label.setText(text)
        self.suggest.setText(tr("Let the lab suggest one"))
        self.apply.setText(tr("3. Test it (A/B)"))
        self.apply.setToolTip(tr("the change is made to a copy, B, shown beside the lab's A"))
        self.keep.setText(tr("Keep the change"))
        self.keep.setToolTip(tr("make B the lab's inputs (Edit ▸ Undo takes it back)"))
        for combo, texts in ((self.change, CHANGES), (self.question, QUESTIONS)):
            for i in range(combo.count()):
                combo.setItemText(i, self._change_text(combo.itemData(i)) if combo is self.change
                                  else tr(texts[combo.itemData(i)]))
            combo.setToolTip(combo.currentText())
        self._question_changed()
        self._show_score()
        if self._shown_context is not None and self._context is None:
            self._context = self._shown_context
            self._sync()

    def _show_score(self) -> None:
        if self._score is None:
            self.score.setText(tr("score: no predictions yet"))
        else:
            correct, total = self._score
            self.score.setText(tr("score this session: {correct} of %n prediction(s) right", "", total).format(
                correct=correct))
    def set_context(self, labels, query: int, head: int, layer: int) -> None:
        """The tokens and the query the prediction is about (from the current selection). Shown
        when the panel is (a T = 1024 list of keys is no work to repeat after every edit)."""
        self._context = (labels, query, head, layer)
        if self.isVisible():
            self._sync()

    def _sync(self) -> None:
        if self._context is None:
            return
        labels, query, head, layer = self._shown_context = self._context
        self._context = None
        if list(labels) != self.labels:
            self.labels = list(labels)
            self._question_changed()
        if query != getattr(self, "_reason_query", None):
            self.reason.hide()                          # another query now: the reason is old
        word = labels[query] if 0 <= query < len(labels) else ""
        self.query_note.setText(tr("query i = {i} (“{word}”), layer {layer}, head {head} — pick another query by "
                                   "clicking a token chip.").format(i=query, word=word, layer=layer, head=head))

    def set_reason(self, text: str, query: int | None = None) -> None:
        """Why the lab asks about this query (shown while it is the query)."""
        self._reason_query = query
        self.reason.setText(text)
        self.reason.setVisible(bool(text))

    def showEvent(self, event) -> None:
        self._sync()
        super().showEvent(event)
        self._fit_choices()

    def set_prediction(self, question: str, answer) -> None:
        self._sync()
        self.question.setCurrentIndex(self.question.findData(question))
        self.answer.setCurrentIndex(max(0, self.answer.findData(answer)))

    def _change_text(self, key: str) -> str:
        if key.startswith(MISTAKE):
            title = dict(self._mistakes).get(key[len(MISTAKE):], key)
            return tr(LOAD_WRONG).format(mistake=tr(title))
        return tr(CHANGES[key])

    def set_mistakes(self, items) -> None:
        """The model's "load it wrong" mistakes, (key, title) each, offered after the other changes."""
        items = tuple((str(k), str(t)) for k, t in items)
        if items == self._mistakes:
            return
        chosen = self.change.currentData()
        self._mistakes = items
        self.change.blockSignals(True)
        for i in range(self.change.count() - 1, -1, -1):
            if str(self.change.itemData(i)).startswith(MISTAKE):
                self.change.removeItem(i)
        for key, _ in items:
            self.change.addItem(self._change_text(MISTAKE + key), MISTAKE + key)
        self.change.setCurrentIndex(max(0, self.change.findData(chosen)))
        self.change.blockSignals(False)

    def choose_change(self, change: str) -> None:
        self.change.setCurrentIndex(self.change.findData(change))

    def _question_changed(self) -> None:
        chosen = self.answer.currentData()
        self.answer.clear()
        if self.question.currentData() == "top_key":
            for j, word in enumerate(self.labels):
                self.answer.addItem(tr("key {j} “{word}”").format(j=j, word=word), j)
        else:
            self.answer.addItem(tr("yes, sharper"), True)
            self.answer.addItem(tr("no, flatter or the same"), False)
        kept = self.answer.findData(chosen) if chosen is not None else -1
        if kept >= 0 and type(self.answer.itemData(kept)) is type(chosen):   # new words keep the answer
            self.answer.setCurrentIndex(kept)

    def _apply(self) -> None:
        self._sync()
        self.applyRequested.emit(self.change.currentData(), self.question.currentData(), self.answer.currentData())

    def show_outcome(self, html: str, correct: int, total: int, can_keep: bool) -> None:
        self.outcome.setText(html)
        self._score = (correct, total)
        self._show_score()
        self.keep.setEnabled(can_keep)
