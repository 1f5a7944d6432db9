"""The Export dialog: which view, which format, figure mode options, and a live preview.

A pure view: it reads the LabResult + Selection it is given to draw the preview and returns the
options the user chose (`options()`); app/ asks for the file name and writes the file.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from .figure import COMPOSED_VIEWS, SINGLE_VIEWS, FigureStyle, FigureWidget, figure_spec, is_single, natural_size
from .theme import COLORMAP_TITLES, DIVERGING_MAPS, SEQUENTIAL_MAPS

FORMAT_TITLES = {".png": "PNG image", ".svg": "SVG (vector, text stays text)", ".pdf": "PDF (vector)",
                 ".npz": "NPZ: every intermediate (numpy)", ".csv": "CSV: this one matrix"}


class ExportDialog(QDialog):
    """Options for one export. `options()` -> dict(view, suffix, style, width, dpi, size)."""

    changed = Signal()

    def __init__(self, result, selection, view: str = "scores", defaults: dict | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.result, self.selection = result, selection
        d = defaults or {}
        outer = QHBoxLayout(self)
        form_box = QWidget()
        form = QFormLayout(form_box)

        self.view = QComboBox()
        for name, (text, *_rest) in SINGLE_VIEWS.items():
            self.view.addItem(f"{name} — {text}", name)
        self.view.insertSeparator(self.view.count())
        for name, (text, _build) in COMPOSED_VIEWS.items():
            self.view.addItem(f"{name} — {text}", name)
        self.view.setCurrentIndex(max(0, self.view.findData(view)))
        form.addRow("view", self.view)

        self.format = QComboBox()
        for suffix, title in FORMAT_TITLES.items():
            self.format.addItem(title, suffix)
        self.format.setCurrentIndex(max(0, self.format.findData(d.get("suffix", ".png"))))
        form.addRow("format", self.format)

        self.by_width = QRadioButton("width")
        self.by_dpi = QRadioButton("DPI")
        group = QButtonGroup(self)
        group.addButton(self.by_width)
        group.addButton(self.by_dpi)
        self.width = QSpinBox()
        self.width.setRange(16, 20000)
        self.width.setSuffix(" px")
        self.width.setValue(int(d.get("width", 1920)))
        self.dpi = QSpinBox()
        self.dpi.setRange(10, 2400)
        self.dpi.setValue(int(d.get("dpi", 300)))
        (self.by_dpi if d.get("by") == "dpi" else self.by_width).setChecked(True)
        png_row = QHBoxLayout()
        for w in (self.by_width, self.width, self.by_dpi, self.dpi):
            png_row.addWidget(w)
        self.png_row = QWidget()
        self.png_row.setLayout(png_row)
        png_row.setContentsMargins(0, 0, 0, 0)
        form.addRow("PNG size", self.png_row)

        self.font = QDoubleSpinBox()
        self.font.setRange(6, 48)
        self.font.setDecimals(0)
        self.font.setSuffix(" pt")
        self.font.setValue(float(d.get("font_pt", 10)))
        form.addRow("font size", self.font)
        self.sequential = QComboBox()
        for name in SEQUENTIAL_MAPS:
            self.sequential.addItem(COLORMAP_TITLES[name], name)
        self.sequential.setCurrentIndex(max(0, self.sequential.findData(d.get("sequential", "viridis"))))
        form.addRow("0…1 maps (pattern)", self.sequential)
        self.diverging = QComboBox()
        for name in DIVERGING_MAPS:
            self.diverging.addItem(COLORMAP_TITLES[name], name)
        self.diverging.setCurrentIndex(max(0, self.diverging.findData(d.get("diverging", "diverging-cb"))))
        form.addRow("signed maps", self.diverging)
        self.theme = QComboBox()
        self.theme.addItem("white paper (publication)", "light")
        self.theme.addItem("dark (for dark slides)", "dark")
        self.theme.setCurrentIndex(max(0, self.theme.findData(d.get("theme", "light"))))
        form.addRow("background", self.theme)
        self.values = QCheckBox("numbers in the cells (where they fit)")
        self.values.setChecked(bool(d.get("show_values", True)))
        form.addRow(self.values)
        self.title = QCheckBox("title with layer, head and tokens")
        self.title.setChecked(bool(d.get("title", True)))
        form.addRow(self.title)
        self.size_label = QLabel()
        self.size_label.setObjectName("note")
        form.addRow("figure", self.size_label)
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Save).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        form_box.setMaximumWidth(470)                   # the preview gets the rest
        outer.addWidget(form_box)

        self.preview = FigureWidget()
        self.preview.setMinimumSize(480, 400)
        outer.addWidget(self.preview, 1)
        for w in (self.view, self.format, self.sequential, self.diverging, self.theme):
            w.currentIndexChanged.connect(self._update)
        for w in (self.values, self.title, self.by_width, self.by_dpi):
            w.toggled.connect(self._update)
        for w in (self.width, self.dpi, self.font):
            w.valueChanged.connect(self._update)
        self._update()

    def style(self) -> FigureStyle:
        return FigureStyle(theme=self.theme.currentData(), font_pt=float(self.font.value()),
                           sequential=self.sequential.currentData(), diverging=self.diverging.currentData(),
                           show_values=self.values.isChecked(), title=self.title.isChecked())

    def options(self) -> dict:
        suffix = self.format.currentData()
        png = suffix == ".png"
        return {"view": self.view.currentData(), "suffix": suffix, "style": self.style(),
                "width": self.width.value() if png and self.by_width.isChecked() else None,
                "dpi": float(self.dpi.value()) if png and self.by_dpi.isChecked() else None}

    def defaults(self) -> dict:
        """What to remember for next time (JSON-friendly)."""
        s = self.style()
        return {"suffix": self.format.currentData(), "width": self.width.value(), "dpi": self.dpi.value(),
                "by": "dpi" if self.by_dpi.isChecked() else "width", "font_pt": s.font_pt,
                "sequential": s.sequential, "diverging": s.diverging, "theme": s.theme,
                "show_values": s.show_values, "title": s.title}

    def _update(self, *_args) -> None:
        suffix = self.format.currentData()
        figure = suffix in (".png", ".svg", ".pdf")
        for w in (self.font, self.sequential, self.diverging, self.theme, self.values, self.title):
            w.setEnabled(figure)
        self.png_row.setEnabled(suffix == ".png")
        self.width.setEnabled(self.by_width.isChecked())
        self.dpi.setEnabled(self.by_dpi.isChecked())
        self.view.setEnabled(suffix != ".npz")
        view = self.view.currentData()
        ok = True
        if suffix == ".npz":
            self.note.setText("Every intermediate of the current Trace, keys like 'pattern/0', with the config "
                              "and tokens as metadata ('meta').")
        elif suffix == ".csv" and not is_single(view):
            self.note.setText(f"A CSV holds one matrix: choose a single view (not the composed '{view}').")
            ok = False
        else:
            self.note.setText("")
        buttons = self.findChild(QDialogButtonBox)
        if buttons is not None:
            buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(ok)
        if self.result is None:
            return
        spec = figure_spec(view, self.result, self.selection)
        style = self.style()
        w, h = natural_size(spec, style)
        if suffix == ".png":
            scale = (self.width.value() / w) if self.by_width.isChecked() else self.dpi.value() / 96.0
            self.size_label.setText(f"{w} × {h} px at 96 dpi → PNG {round(w * scale)} × {round(h * scale)} px")
        else:
            self.size_label.setText(f"{w} × {h} px ({w * 72 / 96:.0f} × {h * 72 / 96:.0f} pt page)")
        self.preview.show_figure(spec, style)
        self.changed.emit()


__all__ = ["ExportDialog", "FORMAT_TITLES"]
