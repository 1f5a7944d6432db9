"""The instruments dock's panels: the dot-product trace and the code view. They draw what app/
hands them (a DotTrace from compute.instruments.explain, a SourceView) and emit intents; they
compute nothing themselves. The instrument pages are in widgets/pages/."""
from __future__ import annotations

import keyword
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .i18n import Retranslate, num, tr
from .theme import CODE_LINE, SYNTAX


# -- 1. dot-product trace (dock) ------------------------------------------------------------------
class TracePanel(Retranslate, QWidget):
    """A clicked cell written out as its multiplication pairs, running sum, bias and result."""

    cleared = Signal()
    popOutRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        top.addWidget(self.title, 1)
        self.pop_out = pop_out_button(self.popOutRequested)
        top.addWidget(self.pop_out, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.table = QTableWidget(0, 4)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setFont(QFont("monospace", 10))
        layout.addWidget(self.table, 1)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.clear = QPushButton()
        self.clear.clicked.connect(self.cleared)
        layout.addWidget(self.clear)
        self.dot = None
        self.retranslate()

    def retranslate(self) -> None:
        self.clear.setText(tr("Clear trace"))
        self.pop_out.setToolTip(pop_out_tip())
        self.show_trace(self.dot)

    def show_trace(self, dot) -> None:
        """`dot` is a compute.instruments.explain.DotTrace, or None to clear."""
        self.dot = dot
        if dot is None:
            self.title.setText(tr("Click a cell of q, k or v (Q·K·V station) or a score (Scores station) to see the "
                                  "multiplications that make it."))
            self.table.setRowCount(0)
            self.table.setHorizontalHeaderLabels([tr("left"), tr("right"), tr("product"), tr("running Σ")])
            self.summary.setText("")
            return
        n = len(dot.products)
        if dot.name == "attn_scores":
            self.title.setText(tr("<b>attn_scores_raw[h={h}, i={i}, j={j}]</b> (layer {layer}) = Σ<sub>c</sub> "
                                  "{left}[c] · {right}[c] — %n pair(s)", "", n).format(
                h=dot.head, i=dot.row, j=dot.col, layer=dot.layer, left=dot.left_name, right=dot.right_name))
        else:
            self.title.setText(tr("<b>{name}[{row}, h={h}, c={c}]</b> (layer {layer}) = Σ<sub>d</sub> {left}[d] · "
                                  "{right}[d] + bias — %n pair(s)", "", n).format(
                name=dot.name, row=dot.row, h=dot.head, c=dot.col, layer=dot.layer, left=dot.left_name,
                right=dot.right_name))
        self.table.setRowCount(n)
        self.table.setHorizontalHeaderLabels([dot.left_name + "[·]", dot.right_name + "[·]", tr("product"),
                                              tr("running Σ")])
        self.table.setVerticalHeaderLabels([str(c) for c in range(n)])
        for c in range(n):
            for col, value in enumerate((dot.left[c], dot.right[c], dot.products[c], dot.running[c])):
                item = QTableWidgetItem(num(float(value), "+.4f"))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(c, col, item)
        ok = abs(dot.total - dot.cell) <= 1e-4 * max(1.0, abs(dot.cell))
        check = tr("✓ the same") if ok else tr("✗ not the same")
        five = lambda v: num(float(v), ".5f")  # noqa: E731
        if dot.name == "attn_scores":
            mask = (tr("forbidden by the mask → −∞ → probability 0") if dot.masked
                    else tr("allowed by the mask (j ≤ i)") if dot.row >= dot.col else tr("allowed (no causal mask)"))
            text = tr("Σ of the %n product(s) = <b>{total}</b> (the view shows {cell}: {check})<br>× {scale} "
                      "(1/√d_head) = <b>{scaled}</b><br>mask: {mask}<br>pattern[h, i, j] after the softmax = "
                      "<b>{p}</b>", "", n).format(total=five(dot.total), cell=five(dot.cell), check=check,
                                                 scale=five(dot.scale), scaled=five(dot.scaled), mask=mask,
                                                 p=five(dot.probability))
        else:
            text = tr("Σ of the %n product(s) = {sum}<br>+ bias {bias}<br>= <b>{total}</b> (the view shows {cell}: "
                      "{check})", "", n).format(sum=five(dot.total - dot.bias), bias=num(float(dot.bias), "+.5f"),
                                               total=five(dot.total), cell=five(dot.cell), check=check)
        self.summary.setText(text)


# -- 8. code view (dock) -----------------------------------------------------------------------------
class PythonHighlighter(QSyntaxHighlighter):
    """Syntax colour for the code view: keywords, builtins, strings, comments, numbers, decorators
    (colours for a light or a dark page)."""

    KEYWORDS = frozenset(keyword.kwlist) | {"self"}
    BUILTINS = frozenset({"range", "len", "min", "max", "abs", "float", "int", "sum", "zip", "enumerate",
                          "print", "isinstance", "tuple", "list", "dict", "np", "math", "cuda", "numba"})
    TOKEN = re.compile(r"""(?P<comment>#.*$)|(?P<string>[rbfu]*("[^"]*"|'[^']*'))|(?P<decorator>@[\w.]+)"""
                       r"""|(?P<number>\b\d+(\.\d*)?([eE][-+]?\d+)?\b)|(?P<word>\b[A-Za-z_]\w*\b)""")

    def __init__(self, document, dark: bool = False):
        super().__init__(document)
        self.set_dark(dark)

    def set_dark(self, dark: bool) -> None:
        colours = SYNTAX["dark" if dark else "light"]
        self.formats = {}
        for kind, colour in colours.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            if kind == "keyword":
                fmt.setFontWeight(QFont.Weight.Bold)
            if kind == "comment":
                fmt.setFontItalic(True)
            self.formats[kind] = fmt
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        start = self._line_number_width(text)          # the view's line numbers are not code
        for m in self.TOKEN.finditer(text, start):
            kind = m.lastgroup
            if kind == "word":
                word = m.group("word")
                kind = "keyword" if word in self.KEYWORDS else "builtin" if word in self.BUILTINS else None
            if kind is not None:
                self.setFormat(m.start(), m.end() - m.start(), self.formats[kind])

    @staticmethod
    def _line_number_width(text: str) -> int:
        stripped = text.lstrip()
        digits = len(stripped) - len(stripped.lstrip("0123456789"))
        return len(text) - len(stripped) + digits


CODE_FONT_PT = 11.0      # readable across a room; presentation mode scales it with the type


class CodeView(Retranslate, QWidget):
    """The source that computed the active station, with syntax colour and the key line
    highlighted. It opens on the reference backend: float64 numpy written like the equations."""

    backendChosen = Signal(str)
    popOutRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.code_of = QLabel()
        row.addWidget(self.code_of)
        self.which = QComboBox()
        for name in ("reference", "backend in use", "cpu", "cuda"):     # backend names are the API
            self.which.addItem(name, name)
        self.which.activated.connect(lambda i: self.backendChosen.emit(self.backend))
        row.addWidget(self.which, 1)
        self.pop_out = pop_out_button(self.popOutRequested)
        row.addWidget(self.pop_out)
        layout.addLayout(row)
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.where.setObjectName("note")
        layout.addWidget(self.where)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)      # code keeps its lines
        self.highlighter = PythonHighlighter(self.text.document())
        self.set_font_pt(CODE_FONT_PT)
        layout.addWidget(self.text, 1)
        self.view = None
        self._note = ""
        self.retranslate()

    @property
    def backend(self) -> str:
        """The choice: "reference", "backend in use", "cpu" or "cuda" (whatever the language)."""
        return self.which.currentData()

    def retranslate(self) -> None:
        self.code_of.setText(tr("code of"))
        self.which.setItemText(self.which.findData("backend in use"), tr("backend in use"))
        self.which.setToolTip(tr("whose code to show: the reference (reads like the equations), the backend that "
                                 "computed this view, or another"))
        self.pop_out.setToolTip(pop_out_tip())

    def set_font_pt(self, pt: float) -> None:
        # A style sheet of its own: the window's "QWidget { font-size }" would override setFont.
        self.text.setStyleSheet(f"QPlainTextEdit {{ font-family: 'DejaVu Sans Mono', monospace; "
                                f"font-size: {pt:.0f}pt; }}")

    def set_dark(self, dark: bool) -> None:
        self.highlighter.set_dark(dark)
        if self.view is not None:
            self.show_source(self.view, self._note)

    def show_source(self, view, note: str = "") -> None:
        """`view` is a compute.source_map.SourceView (or None with a note saying why)."""
        self.view, self._note = view, note
        if view is None:
            self.where.setText(note)
            self.text.setPlainText("")
            self.text.setExtraSelections([])
            return
        path = view.path
        for package in ("/compute/", "/cuda_kernels/"):      # the repository's own path, not this disk's
            if package in path:
                path = path[path.rindex(package) + 1:]
                break
        self.where.setText(tr("{backend} backend · {path} · {function} · line {line}").format(
            backend=view.backend, path=path, function=view.function, line=view.key_file_line)
            + (f"<br>{note}" if note else ""))
        width = len(str(view.first_line + len(view.lines)))
        self.text.setPlainText("\n".join(f"{view.first_line + n:>{width}}  {line}"
                                         for n, line in enumerate(view.lines)))
        block = self.text.document().findBlockByNumber(view.key_line)
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        dark = self.text.palette().color(self.text.backgroundRole()).lightness() < 128
        fmt.setBackground(QColor(CODE_LINE["dark" if dark else "light"]))      # readable in both themes
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.format = fmt
        sel.cursor = QTextCursor(block)
        self.text.setExtraSelections([sel])
        cursor = QTextCursor(block)
        self.text.setTextCursor(cursor)
        self.text.centerCursor()

    @property
    def key_line_text(self) -> str:
        return "" if self.view is None else self.view.key_text


def pop_out_button(signal) -> QToolButton:
    """The instruments in a window of their own, as wide as the code and the tables need."""
    button = QToolButton()
    button.setIcon(button.style().standardIcon(QStyle.StandardPixmap.SP_TitleBarNormalButton))
    button.setToolTip(pop_out_tip())
    button.clicked.connect(signal)
    return button


def pop_out_tip() -> str:
    return tr("open the instruments in a window of their own (again: back into the dock)")
