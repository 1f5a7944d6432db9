"""TokenStrip: the sequence as chips. Drag a chip to reorder, click to pick the query position,
right-click to replace or remove, "+" to add a word, or type a sentence. Emits intents only."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QMimeData, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QToolButton,
    QWidget,
)

from .i18n import Retranslate, tr
from .theme import LIGHT

MIME = "application/x-qkv-token-index"
MAX_CHIPS = 256   # longer sequences show their first chips and a count; typing still edits all
CHIP_BATCH = 64   # chips made per turn of the event loop
FIT_CHIPS = 16    # up to this many tokens the chips shrink to be seen all at once, without scrolling
FIT_SCALES = (1.0, 0.9, 0.8, 0.7, 0.6)    # of the chips' type and padding, tried in turn


class TokenChip(Retranslate, QToolButton):
    pressed_at: QPoint | None = None

    def __init__(self, index: int, text: str, parent: QWidget):
        super().__init__(parent)
        self.index = index
        self.set_word(text)
        self.setCheckable(True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setObjectName("tokenChip")

    def set_word(self, text: str) -> None:
        self.setText(text)
        self.retranslate()

    def retranslate(self) -> None:
        self.setToolTip(tr("position {i}: “{word}” — click: track this query · drag: move · right-click: edit").format(
            i=self.index, word=self.text()))

    def mousePressEvent(self, event):
        if event.button() == Qt.MouseButton.LeftButton:
            self.pressed_at = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        if self.pressed_at is not None and (event.position().toPoint() - self.pressed_at).manhattanLength() > 6:
            self.pressed_at = None
            self.setDown(False)
            drag = QDrag(self)
            mime = QMimeData()
            mime.setData(MIME, str(self.index).encode())
            drag.setMimeData(mime)
            drag.setPixmap(self.grab())
            drag.setHotSpot(event.position().toPoint())
            drag.exec(Qt.DropAction.MoveAction)
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event):
        self.pressed_at = None
        super().mouseReleaseEvent(event)


class _ChipRow(QWidget):
    """The row of chips; accepts drops and shows where the chip will land."""

    dropped = Signal(int, int)   # from, to

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.layout_ = QHBoxLayout(self)
        self.layout_.setContentsMargins(2, 2, 2, 2)
        self.layout_.setSpacing(4)
        self.chips: list[TokenChip] = []
        self.marker = QFrame(self)
        self.marker.setFrameShape(QFrame.Shape.VLine)
        self.marker.setStyleSheet(f"color: {LIGHT.accent}; border: 2px solid {LIGHT.accent};")
        self.marker.hide()

    def target_index(self, x: float, src: int) -> int:
        """The position a chip dragged from `src` lands on when dropped at x."""
        for i, chip in enumerate(self.chips):
            if x < chip.geometry().center().x():
                return i if i <= src else i - 1 if i - 1 >= 0 else 0
        return len(self.chips) - 1

    def dragEnterEvent(self, event):
        if event.mimeData().hasFormat(MIME):
            event.acceptProposedAction()

    def dragMoveEvent(self, event):
        if not event.mimeData().hasFormat(MIME):
            return
        event.acceptProposedAction()
        x = event.position().x()
        edge = self.chips[-1].geometry().right() + 2 if self.chips else 0
        for chip in self.chips:
            if x < chip.geometry().center().x():
                edge = chip.geometry().left() - 3
                break
        self.marker.setGeometry(edge, 2, 3, self.height() - 4)
        self.marker.show()
        self.marker.raise_()

    def dragLeaveEvent(self, event):
        self.marker.hide()

    def dropEvent(self, event):
        self.marker.hide()
        if not event.mimeData().hasFormat(MIME):
            return
        src = int(bytes(event.mimeData().data(MIME)).decode())
        dst = self.target_index(event.position().x(), src)
        event.acceptProposedAction()
        if dst != src:
            self.dropped.emit(src, dst)


class TokenStrip(Retranslate, QWidget):
    moveRequested = Signal(int, int)          # from, to
    selected = Signal(int)                    # query position
    replaceRequested = Signal(int, int)       # position, token id
    removeRequested = Signal(int)
    insertRequested = Signal(int, int)        # position, token id
    textSubmitted = Signal(str)
    searchRequested = Signal(str)             # a token's text: the query moves to its next occurrence (app/)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.vocab: list[str] = []
        self._menu_vocab: list[str] | None = None        # the vocabulary the + menu lists
        self.labels: list[str] = []
        self.selected_index = 0
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.setSpacing(8)
        self.title = QLabel()
        self.title.setObjectName("stripTitle")
        outer.addWidget(self.title)
        self.row = _ChipRow(self)
        self.row.dropped.connect(self.moveRequested)
        self.scroll = QScrollArea(self)
        self.scroll.setWidget(self.row)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        outer.addWidget(self.scroll, 1)
        self.add_button = QToolButton(self)
        self.add_button.setText("+")
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.add_menu = QMenu(self)
        self.add_button.setMenu(self.add_menu)
        self.add_button.clicked.connect(lambda: None if self.vocab else self.type_at_end())
        outer.addWidget(self.add_button)
        self.edit = QLineEdit(self)
        self.edit.setClearButtonEnabled(True)
        self.edit.setFixedWidth(150)
        self.edit.setMaxLength(1 << 24)                  # a whole long text, never cut at Qt's 32,767
        self.edit.returnPressed.connect(lambda: self.textSubmitted.emit(self.edit.text()))
        outer.addWidget(self.edit)
        # Past MAX_CHIPS: a minimap of every position (drag it) and a jump to a position, both moving the query.
        self.minimap = QSlider(Qt.Orientation.Horizontal, self)
        self.minimap.setObjectName("tokenMinimap")
        self.minimap.setFixedWidth(140)
        self.minimap.valueChanged.connect(self._navigated)
        outer.addWidget(self.minimap)
        self.jump = QSpinBox(self)
        self.jump.setObjectName("tokenJump")
        self.jump.setKeyboardTracking(False)                # on Enter or the arrows, not per digit typed
        self.jump.valueChanged.connect(self._navigated)
        outer.addWidget(self.jump)
        self.search = QLineEdit(self)                       # find a token's text: Enter, Enter again for the next
        self.search.setObjectName("tokenSearch")
        self.search.setClearButtonEnabled(True)
        self.search.setFixedWidth(120)
        self.search.returnPressed.connect(self._searched)
        outer.addWidget(self.search)
        self.count = QLabel(self)
        self.count.setObjectName("tokenCount")
        outer.addWidget(self.count)
        self.chip_scale = 1.0                            # < 1 while the chips are shrunk to fit
        self._fit_for: tuple | None = None
        self.n_ctx = 0
        self._more: QToolButton | None = None            # "… +N more" past MAX_CHIPS: a click types at the end
        self.shown_text = ""                             # the text of the tokens, as the type box shows it
        self.retranslate()
        self._show_navigation()

    def retranslate(self) -> None:
        self.title.setText(tr("tokens"))
        self.add_button.setToolTip(tr("add a word at the end") if self.vocab else
                                   tr("add words at the end: type them after the text (Enter)"))
        self.edit.setPlaceholderText(tr("type words, Enter"))
        self.edit.setToolTip(tr("type a sentence from the vocabulary and press Enter (Ctrl+L)"))
        self._show_count()
        if self._more is not None:
            self._more.setText(self._more_text())
        self.minimap.setToolTip(tr("every position of the text: drag to move the query"))
        self.jump.setToolTip(tr("jump to a position: the query moves there"))
        self.jump.setPrefix(tr("go to "))
        self.search.setPlaceholderText(tr("find a token"))
        self.search.setToolTip(tr("find a token's text: Enter moves the query to its next occurrence"))
        self._fit_for = None                             # longer words: measure the chips again

    def show_text(self, text: str) -> None:
        """The type box holds the tokens' text, so words typed at its end are appended (unless the
        box is being edited now)."""
        if not self.edit.hasFocus() or self.edit.text() == self.shown_text:
            self.edit.setText(text)
            self.edit.setCursorPosition(len(text))
        self.shown_text = text

    def type_at_end(self) -> None:
        """Focus the type box with the cursor after the last word (the end of a long text is
        always reachable, however many chips are shown)."""
        self.edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.edit.deselect()
        self.edit.end(False)

    def start_typing(self) -> None:
        """Focus the sentence box with its text selected (Edit ▸ Type a sentence, Ctrl+L)."""
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()

    # -- state -> view -------------------------------------------------------------------------
    def set_tokens(self, labels: Sequence[str], vocab: Sequence[str], n_ctx: int, selected: int) -> None:
        labels, vocab = list(labels), list(vocab)
        if labels != self.labels or vocab != self.vocab:      # chips are relabelled, kept or added
            self.labels, self.vocab = labels, vocab
            self._rebuild()
        self.n_ctx = n_ctx
        self._show_count()
        self.set_selected(selected)

    def _navigated(self, index: int) -> None:
        """The minimap or the jump box moved (by the reader: set_selected blocks their signals)."""
        if 0 <= index < len(self.labels) and index != self.selected_index:
            self.selected.emit(index)

    def _searched(self) -> None:
        text = self.search.text()
        if text.strip():
            self.searchRequested.emit(text)

    def _show_navigation(self) -> None:
        """The minimap, the jump box and the search box: shown for a text longer than its chips, at the query."""
        long = len(self.labels) > MAX_CHIPS
        self.search.setVisible(long)
        for widget in (self.minimap, self.jump):
            widget.setVisible(long)
            widget.blockSignals(True)
            widget.setRange(0, max(len(self.labels) - 1, 0))
            widget.setValue(min(self.selected_index, max(len(self.labels) - 1, 0)))
            widget.blockSignals(False)
        if long and 0 <= self.selected_index < len(self.labels):
            self.minimap.setToolTip(tr("position {i} of {T}: “{word}” — drag to move the query").format(
                i=self.selected_index, T=len(self.labels), word=self.labels[self.selected_index]))

    def _show_count(self) -> None:
        T = len(self.labels)
        self.count.setText(f"T = {T}/{self.n_ctx}")
        self.count.setToolTip(tr("%n token(s); the model accepts up to n_ctx = {n_ctx}", "", T).format(
            n_ctx=self.n_ctx))

    def _more_text(self) -> str:
        return tr("… +%n more", "", len(self.labels) - MAX_CHIPS)

    def set_selected(self, index: int) -> None:
        self.selected_index = index
        self._show_navigation()
        for chip in self.row.chips:
            chip.setChecked(chip.index == index)
            if chip.index == index:
                self.scroll.ensureWidgetVisible(chip, 40, 0)      # the query chip stays in sight

    def _rebuild(self) -> None:
        """Chips for the labels: existing ones are relabelled (chip i stays chip i), missing ones
        are made CHIP_BATCH at a time, the rest on the next turns of the event loop (200 new chips
        would hold the UI thread ~20 ms at once)."""
        layout, chips = self.row.layout_, self.row.chips
        n = min(len(self.labels), MAX_CHIPS)
        for chip in chips[n:]:
            layout.removeWidget(chip)
            chip.deleteLater()
        del chips[n:]
        for chip, text in zip(chips, self.labels, strict=False):   # chips may still be coming
            if chip.text() != text:
                chip.set_word(text)
        if self.vocab != self._menu_vocab:
            self._menu_vocab = list(self.vocab)
            self.add_menu.clear()
            self.add_button.setMenu(self.add_menu if self.vocab else None)   # large vocabularies are typed
            self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup if self.vocab
                                         else QToolButton.ToolButtonPopupMode.DelayedPopup)
            self.retranslate()
            for token_id, word in enumerate(self.vocab):
                self.add_menu.addAction(word, lambda t=token_id: self.insertRequested.emit(len(self.labels), t))
        self._grow()

    def _grow(self) -> None:
        layout, chips = self.row.layout_, self.row.chips
        n = min(len(self.labels), MAX_CHIPS)
        while layout.count() > len(chips):                # the tail: the "+N more" note and the stretch
            item = layout.takeAt(len(chips))
            if item.widget():
                item.widget().deleteLater()
        self._more = None
        for i in range(len(chips), min(n, len(chips) + CHIP_BATCH)):
            chip = TokenChip(i, self.labels[i], self.row)
            chip.setChecked(i == self.selected_index)
            chip.clicked.connect(lambda _=False, i=i: self.selected.emit(i))
            chip.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            chip.customContextMenuRequested.connect(lambda pos, i=i: self._chip_menu(i))
            layout.addWidget(chip)
            chips.append(chip)
        if len(chips) < n:
            QTimer.singleShot(0, self, self._grow)
        else:
            self._more = None
            if len(self.labels) > MAX_CHIPS:
                self._more = QToolButton(self.row)
                self._more.setText(self._more_text())
                self._more.setAutoRaise(True)
                self._more.setToolTip(tr("the rest of the text is in the type box: click to type at its end"))
                self._more.clicked.connect(self.type_at_end)
                layout.addWidget(self._more)
            layout.addStretch(1)
        self._fit_height()

    def _fit_height(self) -> None:
        self._fit_width()
        chip_h = self.row.chips[0].sizeHint().height() if self.row.chips else 28
        scrolls = self.scroll.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        self.scroll.setFixedHeight(chip_h + 8 + (self.scroll.horizontalScrollBar().sizeHint().height()
                                                 if scrolls else 0))

    def _chips_width(self) -> float:
        spacing = self.row.layout_.spacing()
        margins = self.row.layout_.contentsMargins()
        return (sum(chip.sizeHint().width() for chip in self.row.chips) + spacing * max(len(self.row.chips) - 1, 0)
                + margins.left() + margins.right())

    def _fit_width(self) -> None:
        """Up to FIT_CHIPS tokens every chip is in sight: the chips' type and padding shrink (to
        60 %) until they fit the strip, and the scroll bar goes. Longer sequences scroll."""
        chips = self.row.chips
        if len(self.labels) > FIT_CHIPS:                  # long sequences scroll: nothing to measure
            if self.chip_scale != 1.0 or self._fit_for is not None:
                for chip in chips:
                    if chip.styleSheet():
                        chip.setStyleSheet("")
                self.chip_scale, self._fit_for = 1.0, None
            self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            return
        room = self.scroll.viewport().width() if self.scroll.isVisible() else self.scroll.width()
        key = (room, tuple(c.text() for c in chips), self.window().styleSheet() if self.window() else "")
        if key == self._fit_for or not chips:
            return
        self._fit_for = key
        scale = 1.0
        for chip in chips:                                # the window's own look first: measure it
            if chip.styleSheet():                         # (256 chips restyled for nothing would stall)
                chip.setStyleSheet("")
        base_pt = chips[0].font().pointSizeF()
        for scale in FIT_SCALES:
            style = ("" if scale == 1.0 else
                     f"QToolButton#tokenChip {{ font-size: {base_pt * scale:.1f}pt; "
                     f"padding: {max(1, round(3 * scale))}px {max(3, round(12 * scale))}px; }}")
            for chip in chips:
                chip.setStyleSheet(style)
            if self._chips_width() <= room:
                break
        self.chip_scale = scale
        fits = self._chips_width() <= room
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff if fits
                                                 else Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self._fit_height)      # after the scroll area has its new width

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_for = None
            QTimer.singleShot(0, self, self._fit_height)   # a new style sheet (presentation) sizes chips anew

    def _chip_menu(self, index: int) -> None:
        menu = QMenu(self)
        if self.vocab:
            replace = menu.addMenu(tr("Replace with"))
            for token_id, word in enumerate(self.vocab):
                replace.addAction(word, lambda t=token_id: self.replaceRequested.emit(index, t))
            insert = menu.addMenu(tr("Insert after"))
            for token_id, word in enumerate(self.vocab):
                insert.addAction(word, lambda t=token_id: self.insertRequested.emit(index + 1, t))
            menu.addSeparator()
        menu.addAction(tr("Remove"), lambda: self.removeRequested.emit(index))
        menu.exec(self.row.chips[index].mapToGlobal(self.row.chips[index].rect().bottomLeft()))
