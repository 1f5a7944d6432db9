"""Small panels: the message bar, the station bar, the notes panel."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QTextBrowser,
    QToolBar,
    QToolButton,
    QWidget,
)

from .i18n import Retranslate, num, page_short, page_title, tr
from .theme import LEVEL_COLOURS

LEVEL_STYLE = {level: f"background:{bg}; color:{ink}; border:1px solid {border};"
               for level, (bg, ink, border) in LEVEL_COLOURS.items()}


class MessageBar(Retranslate, QFrame):
    """One line of feedback under the token strip; errors stay until closed, info fades.

    Floating (presentation mode) it lies over the top of the views instead of pushing them down,
    and every message fades, so nothing stays over the slide; ✕ or a click closes it at once."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.close_button = close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        layout.addWidget(close)
        self.level = ""
        self.floating = False
        self._timer = QTimer(self, singleShot=True, timeout=self.hide)
        self.hide()
        self.retranslate()

    def retranslate(self) -> None:
        self.close_button.setToolTip(tr("dismiss"))
        if self.level == "info" and not self.isHidden():
            self.hide()                              # said in the old language, and only news: it goes

    def set_floating(self, on: bool) -> None:
        """Lie over the parent's top edge (the parent places it: `place`) and fade every message."""
        self.floating = on
        if not on:
            self._timer.stop()

    def place(self, top: int) -> None:
        """Floating: at the parent's right edge, `top` px from its top, on one line if it can."""
        parent = self.parentWidget()
        if parent is None or not self.floating:
            return
        self.label.ensurePolished()
        natural = self.label.fontMetrics().horizontalAdvance(self.label.text()) + 70    # one line, and ✕
        width = min(parent.width() - 16, max(360, natural))
        margins = self.layout().contentsMargins()
        height = self.label.heightForWidth(width - 60) + margins.top() + margins.bottom() + 4
        self.setGeometry(parent.width() - width - 8, top, width, height)
        self.raise_()

    def mousePressEvent(self, event) -> None:
        if self.floating:
            self.hide()                               # a click anywhere on it dismisses it
        super().mousePressEvent(event)

    def show_message(self, level: str, text: str) -> None:
        self.level = level
        self.label.setText(text)
        self.setStyleSheet(f"MessageBar {{ {LEVEL_STYLE.get(level, LEVEL_STYLE['info'])} border-radius:4px; }}"
                           f"QLabel {{ {LEVEL_STYLE.get(level, '')} border:none; background:transparent; }}")
        self.show()
        self.raise_()
        self._timer.stop()
        if level == "info":
            self._timer.start(4000 if self.floating else 6000)
        elif self.floating:
            self._timer.start(10_000)                 # over a slide, even an error steps aside

    def withdraw(self, text: str) -> None:
        """Hide the message if it is still this one (a later success answered it)."""
        if self.label.text() == text:
            self.hide()

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""


class StationBar(Retranslate, QToolBar):
    """◀ Embed · LayerNorm · … · MLP ▶ — the stations of a block in order — then one
    "Instruments ▾" button whose menu lists the instrument pages (it shows the page's name while
    one is open), then Play and its time per station. The active one is highlighted, the others dimmed. A
    QToolBar, so on a narrow screen what does not fit goes into its » overflow menu."""

    chosen = Signal(str)
    playToggled = Signal(bool)
    speedChanged = Signal(float)          # seconds per station

    def __init__(self, pages: Sequence, shortcuts: dict[str, str] | None = None, parent: QWidget | None = None):
        """`pages`: compute.stations.Page rows (stations, then instruments); `shortcuts`: the key
        text of each page's action, for its tooltip."""
        super().__init__(parent)
        self.shortcuts = shortcuts or {}
        self.keys = [p.key for p in pages if p.kind == "station"]
        self.pages = [p.key for p in pages if p.kind != "station"]
        self.setMovable(False)
        self.setObjectName("stationBar")
        self.prev = self.addAction("◀", lambda: self.step(-1))
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[str, QAction] = {}
        for key in self.keys + self.pages:
            action = QAction(self)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, k=key: self.chosen.emit(k))
            self.group.addAction(action)
            self.buttons[key] = action
            if key in self.keys:
                self.addAction(action)
                self.widgetForAction(action).setObjectName("stationButton")
        self.next = self.addAction("▶", lambda: self.step(+1))
        # The instrument pages, a dozen of them: one button and its menu keep the bar to one line.
        # Before Play: on a projector at 1280 px what overflows into » is Play (F5 plays), not them.
        self.instruments = QToolButton(self)
        self.instruments.setObjectName("pageButton")
        self.instruments.setCheckable(True)
        self.instruments.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.instruments)
        for key in self.pages:
            menu.addAction(self.buttons[key])
        self.instruments.setMenu(menu)
        self.instruments.setVisible(bool(self.pages))
        self.addWidget(self.instruments)
        self._add_time_controls()
        self.current = self.keys[0]
        self.retranslate()

    def retranslate(self) -> None:
        self.prev.setToolTip(tr("previous station (Ctrl+Left)"))
        self.next.setToolTip(tr("next station (Ctrl+Right)"))
        self._play_text()
        self.play.setToolTip(tr("play through the stations (F5); F5 or Esc pauses"))
        self.speed.setToolTip(tr("time per station while playing"))
        for i in range(self.speed.count()):
            self.speed.setItemText(i, tr("{seconds} s").format(seconds=num(self.speed.itemData(i), "g")))
        self.speed.updateGeometry()                       # the bar lays it out again at the new text's width
        self.layout().invalidate()
        for key, action in self.buttons.items():
            action.setText(page_short(key).replace("&", "&&"))
            keys = self.shortcuts.get(key, "")
            title = page_title(key)
            action.setToolTip(f"{title} ({keys})" if keys else title)
        self.instruments.setToolTip(tr("the instrument pages: the head lens, the √d_k lab, the mask, the KV "
                                       "cache and the modern-attention instruments"))
        self._show_instrument_button()

    def _add_time_controls(self) -> None:
        self.addSeparator()
        self.play = self.addAction("")
        self.play.setCheckable(True)
        self.play.toggled.connect(self._play_toggled)
        self.speed = QComboBox()
        self.speed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)   # "2 dtk" is wider than "2 s"
        for seconds in (1.0, 2.0, 4.0, 8.0):
            self.speed.addItem(f"{seconds:g} s", seconds)
        self.speed.setCurrentIndex(1)
        self.speed.currentIndexChanged.connect(lambda i: self.speedChanged.emit(self.speed.currentData()))
        self.speed_action = self.addWidget(self.speed)

    def _play_toggled(self, on: bool) -> None:
        self._play_text()
        self.playToggled.emit(on)

    def _play_text(self) -> None:
        on = self.play.isChecked()
        if getattr(self, "compact", False):               # a projector: symbols, the words in the tooltip
            self.play.setText("‖" if on else "▷")
        else:
            self.play.setText(tr("Pause") if on else tr("Play"))

    def set_compact(self, on: bool) -> None:
        """Presentation mode: Play as a symbol and no speed box (set before the lecture; F5
        plays), so at 1280 px nothing goes into the » overflow and no button moves."""
        self.compact = on
        self.speed_action.setVisible(not on)
        self._play_text()

    def set_current(self, key: str) -> None:
        self.current = key
        self.buttons[key].setChecked(True)
        self._show_instrument_button()

    def _show_instrument_button(self) -> None:
        """'Instruments ▾', or the open page's name, checked, while an instrument page is shown."""
        on = self.current in self.pages
        self.instruments.setText((page_short(self.current).replace("&", "&&") if on else tr("Instruments")) + " ▾")
        self.instruments.setChecked(on)

    def step(self, delta: int) -> None:
        """The next/previous station of the block (from an instrument page: back to the first)."""
        if self.current not in self.keys:
            self.chosen.emit(self.keys[0])
            return
        i = (self.keys.index(self.current) + delta) % len(self.keys)
        self.chosen.emit(self.keys[i])


class NotesPanel(QTextBrowser):
    """Plain-words notes for the active station, with its formula and shapes at current sizes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setObjectName("notes")

    def show_note(self, html: str) -> None:
        if html != getattr(self, "_html", None):          # most edits leave the note as it is
            self._html = html
            self.setHtml(html)
