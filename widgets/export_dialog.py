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

from .figure import (
    COMPOSED_VIEWS,
    SINGLE_VIEWS,
    FigureStyle,
    FigureWidget,
    figure_spec,
    is_single,
    natural_size,
    view_description,
)
from .i18n import QT_TR_NOOP, Retranslate, num, tr
from .theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, DIVERGING_MAPS, SEQUENTIAL_MAPS, colormap_title

FORMAT_TITLES = {".png": QT_TR_NOOP("PNG image"), ".svg": QT_TR_NOOP("SVG (vector, text stays text)"),
                 ".pdf": QT_TR_NOOP("PDF (vector)"), ".npz": QT_TR_NOOP("NPZ: every intermediate (numpy)"),
                 ".csv": QT_TR_NOOP("CSV: this one matrix")}


class ExportDialog(Retranslate, QDialog):
    """Options for one export. `options()` -> dict(view, suffix, style, width, dpi, size)."""

    changed = Signal()

    def __init__(self, result, selection, view: str = "scores", defaults: dict | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.result, self.selection = result, selection
        d = defaults or {}
        # The window's colour maps, as the figure of what is on screen (one default everywhere:
        # blues and red-blue in the window, here and in `qkv-lab export`).
        maps = (getattr(selection, "colormap", None) or d.get("sequential", DEFAULT_SEQUENTIAL),
                getattr(selection, "diverging", None) or d.get("diverging", DEFAULT_DIVERGING))
        outer = QHBoxLayout(self)
        form_box = QWidget()
        form = QFormLayout(form_box)

        self.labels: dict[str, QLabel] = {}

        def row(key: str, field) -> None:
            self.labels[key] = QLabel()
            form.addRow(self.labels[key], field)

        self.view = QComboBox()
        for name in SINGLE_VIEWS:
            self.view.addItem(name, name)
        self.view.insertSeparator(self.view.count())
        for name in COMPOSED_VIEWS:
            self.view.addItem(name, name)
        self.view.setCurrentIndex(max(0, self.view.findData(view)))
        row("view", self.view)

        self.format = QComboBox()
        for suffix in FORMAT_TITLES:
            self.format.addItem(suffix, suffix)
        self.format.setCurrentIndex(max(0, self.format.findData(d.get("suffix", ".png"))))
        row("format", self.format)

        self.by_width = QRadioButton()
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
        row("png", self.png_row)

        self.font = QDoubleSpinBox()
        self.font.setRange(6, 48)
        self.font.setDecimals(0)
        self.font.setSuffix(" pt")
        self.font.setValue(float(d.get("font_pt", 10)))
        row("font", self.font)
        self.sequential = QComboBox()
        for name in SEQUENTIAL_MAPS:
            self.sequential.addItem(name, name)
        self.sequential.setCurrentIndex(max(0, self.sequential.findData(maps[0])))
        row("sequential", self.sequential)
        self.diverging = QComboBox()
        for name in DIVERGING_MAPS:
            self.diverging.addItem(name, name)
        self.diverging.setCurrentIndex(max(0, self.diverging.findData(maps[1])))
        row("diverging", self.diverging)
        self.theme = QComboBox()
        self.theme.addItem("", "light")
        self.theme.addItem("", "dark")
        self.theme.setCurrentIndex(max(0, self.theme.findData(d.get("theme", "light"))))
        row("background", self.theme)
        self.values = QCheckBox()
        self.values.setChecked(bool(d.get("show_values", True)))
        form.addRow(self.values)
        self.title = QCheckBox()
        self.title.setChecked(bool(d.get("title", True)))
        form.addRow(self.title)
        self.size_label = QLabel()
        self.size_label.setObjectName("note")
        row("figure", self.size_label)
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        self.buttons = buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                                  | QDialogButtonBox.StandardButton.Cancel)
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
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(tr("Export"))
        words = {"view": tr("view"), "format": tr("format"), "png": tr("PNG size"), "font": tr("font size"),
                 "sequential": tr("0…1 maps (pattern)"), "diverging": tr("signed maps"), "background": tr("background"),
                 "figure": tr("figure")}
        for key, label in self.labels.items():
            label.setText(words[key])
        for i in range(self.view.count()):
            name = self.view.itemData(i)
            if name:
                self.view.setItemText(i, f"{name} — {view_description(name)}")
        for i in range(self.format.count()):
            self.format.setItemText(i, tr(FORMAT_TITLES[self.format.itemData(i)]))
        for combo in (self.sequential, self.diverging):
            for i in range(combo.count()):
                combo.setItemText(i, colormap_title(combo.itemData(i)))
        self.theme.setItemText(0, tr("white paper (publication)"))
        self.theme.setItemText(1, tr("dark (for dark slides)"))
        self.by_width.setText(tr("width"))
        self.values.setText(tr("numbers in the cells (where they fit)"))
        self.title.setText(tr("title with layer, head and tokens"))
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setText(tr("Export…"))
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
            self.note.setText(tr("Every intermediate of the current Trace, keys like 'pattern/0', with the config and "
                                 "tokens as metadata ('meta')."))
        elif suffix == ".csv" and not is_single(view):
            self.note.setText(tr("A CSV holds one matrix: choose a single view (not the composed '{view}').").format(
                view=view))
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
            self.size_label.setText(tr("{w} × {h} px at 96 dpi → PNG {pw} × {ph} px").format(
                w=w, h=h, pw=round(w * scale), ph=round(h * scale)))
        else:
            self.size_label.setText(tr("{w} × {h} px ({pw} × {ph} pt page)").format(
                w=w, h=h, pw=num(w * 72 / 96, ".0f"), ph=num(h * 72 / 96, ".0f")))
        self.preview.show_figure(spec, style)
        self.changed.emit()


__all__ = ["ExportDialog", "FORMAT_TITLES"]
