"""The block map: the whole block as one picture. Each station is a live thumbnail on the
residual stream (resid_pre → LN 1 → Q·K·V → scores → softmax → Σ p·v → heads·W_O → + → LN 2 →
MLP → +); a click goes to that station, and the station last shown is outlined. It draws the
`block_map` figure (widgets/figure.py) in the window's colours, so the exported figure is the
same picture."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from .figure import FigureStyle, FigureWidget, figure_spec
from .i18n import Retranslate, tr
from .theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, LIGHT, Palette
from .views import BLOCK_MAP


class BlockMap(Retranslate, QWidget):
    chosen = Signal(str)                 # the station of the clicked thumbnail
    key = "block_map"

    def __init__(self, palette: Palette = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.palette = palette
        self.maps = (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING)
        self.font_pt = 10.0
        self.result = self.selection = None
        self._drawn_for: tuple | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.header = QLabel()
        self.header.setObjectName("stationHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.figure = FigureWidget()
        layout.addWidget(self.figure, 1)
        self.frames: list[QGraphicsRectItem] = []
        self.figure.scene().sigMouseClicked.connect(self._clicked)

    # -- state -> view ---------------------------------------------------------------------------
    def show_result(self, result, sel) -> None:
        self.result, self.selection = result, sel
        self._refresh()

    def show_selection(self, sel) -> None:
        self.selection = sel
        self._refresh()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._refresh()

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        self.palette = palette or self.palette
        self.maps = (sequential or self.maps[0], diverging or self.maps[1])
        self.font_pt = font_pt or self.font_pt
        self._drawn_for = None
        self._refresh()

    def retranslate(self) -> None:
        self._drawn_for = None
        self._refresh()

    def _refresh(self) -> None:
        if self.result is None or self.selection is None or not self.isVisible():
            return
        sel = self.selection
        key = (id(self.result), sel.layer, sel.head, sel.query, self.palette, self.maps, self.font_pt)
        if key != self._drawn_for:
            self._drawn_for = key
            self._draw()
        self._outline(sel.station)

    def _draw(self) -> None:
        result, sel = self.result, self.selection
        cfg = result.inputs.config
        if not (sel.layer < cfg.n_layers and sel.head < cfg.n_heads and sel.query < max(result.trace.T, 1)):
            return                                   # a selection for newer inputs: wait for them
        try:
            spec = figure_spec("block_map", result, sel)
        except KeyError:
            return                                   # an early result without the MLP half: the full one follows
        style = FigureStyle(theme="dark" if self.palette.dark else "light", font_pt=self.font_pt,
                            sequential=self.maps[0], diverging=self.maps[1], show_values=False, title=False)
        self.figure.show_figure(spec, style, palette=self.palette)
        self.frames = []                             # their plots went with the old figure
        self._outlined = None
        f = self.font_pt / 10.0
        heading, hint = tr("The block as one picture"), tr("click a picture to go to its station")
        where = tr("layer {layer}, head {head}").format(layer=sel.layer, head=sel.head)
        self.header.setText(
            f"<b style='font-size:{13 * f:.0f}pt'>{heading}</b>&nbsp;&nbsp;"
            f"<span style='font-size:{11 * f:.0f}pt'>resid_mid = resid_pre + attn(LN 1(resid_pre));&nbsp; "
            f"resid_post = resid_mid + mlp(LN 2(resid_mid))</span><br>"
            f"<span style='color:{self.palette.muted}; font-size:{10 * f:.0f}pt'>"
            f"{hint} · {where}</span>")

    def _outline(self, station: str) -> None:
        """A frame around the thumbnails of the station last shown."""
        if station == getattr(self, "_outlined", None) and self.frames:
            return                                   # hovering: the frames stay as they are
        self._outlined = station
        scene = self.figure.scene()
        for item in self.frames:
            item.release()
            scene.removeItem(item)
        self.frames = []
        pen = QPen(QColor(self.palette.foreground), 3.0)
        for node, mp in zip(BLOCK_MAP, self.figure.plots.values(), strict=False):
            if node.station != station:
                continue
            frame = _Frame(mp.plot, pen)
            scene.addItem(frame)
            self.frames.append(frame)

    # -- intents -----------------------------------------------------------------------------------
    def node_at(self, scene_pos) -> int | None:
        for k, mp in enumerate(self.figure.plots.values()):
            if mp.plot.sceneBoundingRect().contains(scene_pos):
                return k
        return None

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return                                       # a right-click is the window's head menu
        k = self.node_at(event.scenePos())
        if k is not None and k < len(BLOCK_MAP):
            self.chosen.emit(BLOCK_MAP[k].station)


class _Frame(QGraphicsRectItem):
    """A highlight that follows its plot's place (the layout moves plots after a resize)."""

    def __init__(self, plot, pen: QPen):
        super().__init__()
        self.target = plot
        self.setPen(pen)
        self.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.setZValue(-1)
        plot.geometryChanged.connect(self._follow)
        self._follow()

    def release(self) -> None:
        try:
            self.target.geometryChanged.disconnect(self._follow)
        except (RuntimeError, TypeError):
            pass                                      # the plot is gone already

    def _follow(self) -> None:
        self.setRect(QRectF(self.target.sceneBoundingRect()).adjusted(-4, -2, 4, 4))
