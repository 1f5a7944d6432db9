"""The shortcut cheat sheet: a translucent sheet over the window, dismissed by any key or click."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from .i18n import Retranslate, tr
from .theme import SHEET_INK, SHEET_NOTE


class CheatSheet(Retranslate, QWidget):
    """Covers its parent; lists (keys, what they do) in sections. Any key or click closes it."""

    closed = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        layout = QVBoxLayout(self)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label = QLabel()
        self.label.setObjectName("cheatSheet")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.label)
        self.font_pt = 13.0
        self.sections: list = []
        self._source = None                          # a function that gives the sections (a new language)
        self.hide()
        parent.installEventFilter(self)

    def set_sections(self, sections, font_pt: float = 13.0) -> None:
        """`sections`: [(title, [(keys, what they do), ...]), ...], or a function that returns them
        (called again when the language changes, so an open sheet follows)."""
        self._source = sections if callable(sections) else None
        self.sections, self.font_pt = list(sections() if callable(sections) else sections), font_pt
        self._render(font_pt)

    def retranslate(self) -> None:
        if self._source is not None:
            self.sections = list(self._source())
        if self.sections:
            self._fit() if self.isVisible() else self._render(self.font_pt)

    def _render(self, font_pt: float) -> None:
        cells = []
        sections = self.sections
        for title, rows in sections:
            body = "".join(f"<tr><td align='right' style='padding:3px 14px 3px 0'><b>{html.escape(k)}</b></td>"
                           f"<td style='padding:3px 0'>{html.escape(v)}</td></tr>" for k, v in rows)
            cells.append(f"<td valign='top' style='padding:0 28px'><p style='font-size:{font_pt * 1.15:.0f}pt'>"
                         f"<b>{html.escape(title)}</b></p><table cellspacing='0'>{body}</table></td>")
        closes = html.escape(tr("any key or a click closes this sheet"))
        self.label.setText(f"<div style='font-size:{font_pt:.0f}pt; color:{SHEET_INK}'><table><tr>{''.join(cells)}</tr>"
                           f"</table><p style='color:{SHEET_NOTE}'>{closes}"
                           f"</p></div>")

    def open(self) -> None:
        self.setGeometry(self.parentWidget().rect())
        self._fit()
        self.show()
        self.raise_()
        self.setFocus()

    def _fit(self) -> None:
        """The largest font (up to the one asked for) at which the whole sheet fits the window."""
        room_w, room_h = self.width() * 0.96, self.height() * 0.96
        size = self.font_pt
        while size > 7:
            self._render(size)
            hint = self.label.sizeHint()
            if hint.width() <= room_w and hint.height() <= room_h:
                return
            size -= 1
        self._render(7)

    def close_sheet(self) -> None:
        if self.isVisible():
            self.hide()
            self.closed.emit()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(20, 20, 24, 242))

    def keyPressEvent(self, event) -> None:
        self.close_sheet()

    def mousePressEvent(self, event) -> None:
        self.close_sheet()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self.setGeometry(self.parentWidget().rect())
        return False
