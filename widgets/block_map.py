"""The block map: the whole model as the one picture a lecture starts from. Each station is a live
thumbnail on the residual stream (resid_pre → LN 1 → Q·K·V → scores → softmax → Σ p·v → heads·W_O
→ + → LN 2 → MLP → +) with its Trace names' shapes at this model's sizes under it; a click goes to
that station, and the station last shown is outlined. Under them the layers (each one's pattern for
the selected head, its kind where layers differ: dense or a window) and the selected layer's heads
(their K/V head where heads share one): a click selects that layer or head. The stations draw the
`block_map` figure (widgets/figure.py) in the window's colours, so the exported figure is the same
picture."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QBoxLayout, QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from compute.instruments.overview import pattern_thumbnail

from .figure import FigureStyle, FigureWidget, figure_spec
from .i18n import Retranslate, tr
from .theme import DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, LIGHT, Palette, colormap, ui_font
from .views import BLOCK_MAP

# The Trace names whose shapes each thumbnail of BLOCK_MAP shows (name, as written under it).
NODE_SHAPES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("resid_pre", "resid_pre"),), (("ln1_out", "ln1_out"),), (("q", "q"), ("k", "k, v")),
    (("attn_scores", "scores"),), (("pattern", "pattern"),), (("z", "z"),), (("attn_out", "attn_out"),),
    (("resid_mid", "resid_mid"),), (("ln2_out", "ln2_out"),), (("mlp_post", "mlp_post"), ("mlp_out", "mlp_out")),
    (("resid_post", "resid_post"),),
)


class BlockMap(Retranslate, QWidget):
    chosen = Signal(str)                 # the station of the clicked thumbnail
    layerChosen = Signal(int)            # a layer tile clicked
    headChosen = Signal(int)             # a head tile clicked
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
        layout.addWidget(self.figure, 3)
        self.shapes = ShapeRow(self.figure, palette)
        layout.addWidget(self.shapes)
        # The layers over the heads; side by side when they are few (the toy's 2 and 2).
        self.strips = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.layers = TileStrip(palette)
        self.strips.addWidget(self.layers, 2)
        self.heads = TileStrip(palette)
        self.strips.addWidget(self.heads, 4)
        layout.addLayout(self.strips, 6)
        self.frames: list[QGraphicsRectItem] = []
        self.figure.scene().sigMouseClicked.connect(self._clicked)
        self.layers.clicked.connect(self.layerChosen)
        self.heads.clicked.connect(self.headChosen)

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
        for strip in (self.shapes, self.layers, self.heads):
            strip.palette, strip.font_pt = self.palette, self.font_pt
            strip.updateGeometry()
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
        self.shapes.set_lines([[_shape_line(result.trace, name, label, sel.layer) for name, label in names]
                               for names in NODE_SHAPES])
        self._draw_tiles(result, sel)
        f = self.font_pt / 10.0
        heading = tr("The block as one picture")
        hint = tr("click a picture to go to its station, a layer or a head to select it")
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

    def _draw_tiles(self, result, sel) -> None:
        """The layers (the selected head's pattern in each) and the selected layer's heads."""
        cfg, trace, dark = result.inputs.config, result.trace, self.palette.dark
        parts = cfg.components
        kind = self.maps[0]
        patterns = [trace.get("pattern", layer) for layer in range(cfg.n_layers)]
        # Each layer's tile: max-pooled, on its own 0…99th percentile (at 60 tokens, 0…1 left them blank).
        layers = [matrix_image(*pattern_thumbnail(p[sel.head]), kind=kind, dark=dark)
                  for p in patterns if p is not None]
        windows = [kind_of.window for kind_of in parts.layers]
        differ = len(set(windows)) > 1
        names = [tr("L{layer}").format(layer=i) + ("\n" + (tr("dense") if windows[i] is None else f"W={windows[i]}")
                                                  if differ else "") for i in range(len(layers))]
        self.layers.set_tiles(tr("layers: head {head}'s pattern in each").format(
            head=sel.head), layers, names, sel.layer)
        here = trace.get("pattern", sel.layer)
        # The heads of one layer on one scale (they compare): 0…the largest of their 99th percentiles.
        thumbs = [] if here is None else [pattern_thumbnail(here[h], max_cells=128) for h in range(cfg.n_heads)]
        shared = (0.0, max((levels[1] for _v, levels in thumbs), default=1.0))
        heads = [matrix_image(values, shared, kind, dark) for values, _levels in thumbs]
        groups = parts.attention.n_groups
        labels = [f"h{h}" + ("\n" + tr("K/V {g}").format(g=h // groups) if groups > 1 else "")
                  for h in range(cfg.n_heads)]
        few = cfg.n_layers + cfg.n_heads <= 12
        self.strips.setDirection(QBoxLayout.Direction.LeftToRight if few else QBoxLayout.Direction.TopToBottom)
        self.strips.setStretch(0, cfg.n_layers if few else 2)
        self.strips.setStretch(1, cfg.n_heads if few else 4)
        self.heads.set_tiles(tr("heads of layer {layer}").format(
            layer=sel.layer), heads, labels, sel.head)

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


class TileStrip(QWidget):
    """A row (or a few rows) of clickable tiles, each a small picture with a label under it: the
    block map's layers and the selected layer's heads. It only draws what it is given."""

    clicked = Signal(int)

    def __init__(self, palette: Palette = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.palette = palette
        self.font_pt = 10.0
        self.title = ""
        self.images: list[QImage] = []
        self.labels: list[str] = []
        self.selected: int | None = None
        self.setMinimumHeight(60)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_tiles(self, title: str, images: list[QImage], labels: list[str], selected: int | None) -> None:
        self.title, self.images, self.labels, self.selected = title, images, labels, selected
        self.update()

    def _metrics(self) -> tuple[float, float]:
        """(title line height, the labels' height: their lines) in px at the strip's type size."""
        lines = max((label.count("\n") + 1 for label in self.labels), default=1)
        return (QFontMetricsF(ui_font(self.font_pt * 1.1, True)).height() + 4,
                QFontMetricsF(ui_font(self.font_pt)).height() * lines + 2)

    def tile_rects(self) -> list[QRectF]:
        """Where each tile's picture is: square, one size, as large as the strip allows (in as
        many rows as make them largest), centred."""
        n = len(self.images)
        if n == 0:
            return []
        head, line = self._metrics()
        w, h = self.width() - 8.0, self.height() - head - 4.0
        best = (0.0, 1)
        for rows in range(1, min(n, 4) + 1):
            per_row = -(-n // rows)
            side = min(w / per_row - 8.0, h / rows - line - 8.0)
            if side > best[0]:
                best = (side, rows)
        side, rows = max(best[0], 4.0), best[1]
        per_row = -(-n // rows)
        cell_w, cell_h = side + 8.0, side + line + 8.0
        x0 = 4.0 + (w - per_row * cell_w) / 2
        y0 = head + 2.0 + (h - rows * cell_h) / 2
        return [QRectF(x0 + (k % per_row) * cell_w + 4.0, y0 + (k // per_row) * cell_h + 4.0, side, side)
                for k in range(n)]

    def index_at(self, pos: QPointF) -> int | None:
        for k, rect in enumerate(self.tile_rects()):
            if rect.adjusted(-4, -4, 4, 4 + self._metrics()[1]).contains(pos):
                return k
        return None

    def mousePressEvent(self, event) -> None:
        k = self.index_at(event.position())
        if k is not None:
            self.clicked.emit(k)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        try:
            pal = self.palette
            p.fillRect(self.rect(), QColor(pal.background))
            head, line = self._metrics()
            p.setPen(QColor(pal.foreground))
            p.setFont(ui_font(self.font_pt * 1.1, True))
            title = QFontMetricsF(p.font()).elidedText(self.title, Qt.TextElideMode.ElideRight, self.width() - 8)
            p.drawText(QRectF(4, 0, self.width() - 8, head), Qt.AlignmentFlag.AlignCenter, title)
            p.setFont(ui_font(self.font_pt))
            for k, rect in enumerate(self.tile_rects()):
                # Fewer pixels than cells (60 tokens in a 34 px tile): averaged, so a one-cell stripe
                # stays visible; more pixels than cells: crisp cells.
                p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform,
                                rect.width() < self.images[k].width())
                p.drawImage(rect, self.images[k])
                p.setPen(QPen(QColor(pal.grid), 1.0))
                p.drawRect(rect)
                label = QRectF(rect.left() - 4, rect.bottom() + 2, rect.width() + 8, line)
                p.setPen(QColor(pal.foreground))
                metrics = QFontMetricsF(p.font())
                text = "\n".join(metrics.elidedText(part, Qt.TextElideMode.ElideRight, label.width())
                                 for part in self.labels[k].split("\n"))
                p.drawText(label, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, text)
                if k == self.selected:
                    p.setPen(QPen(QColor(pal.foreground), 3.0))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(rect.adjusted(-3, -3, 3, 3))
        finally:
            p.end()


def matrix_image(values: np.ndarray, levels: tuple[float, float], kind: str, dark: bool) -> QImage:
    """A matrix as an image in a colour map (one pixel per cell; the painter scales it)."""
    lo, hi = levels
    x = np.clip((np.nan_to_num(np.asarray(values, float)) - lo) / max(hi - lo, 1e-12), 0.0, 1.0)
    rgba = colormap(kind, dark).map(x.ravel(), mode="byte").reshape(*x.shape, 4)
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    image = QImage(rgba.data, x.shape[1], x.shape[0], 4 * x.shape[1], QImage.Format.Format_RGBA8888)
    return image.copy()                            # owns its pixels once the array goes


def _shape_line(trace, name: str, label: str, layer: int) -> str:
    """'q [20, 9, 64]': a Trace name and its shape at this model's sizes ('' if the pass lacks it)."""
    try:
        shape = np.shape(trace[name, layer])
    except KeyError:
        return ""
    return f"{label} [{', '.join(str(n) for n in shape)}]"


class ShapeRow(QWidget):
    """The shapes under the block map's thumbnails, each centred under its own (read from where
    the figure laid them out); a line too wide for its column drops the name, then gets smaller."""

    def __init__(self, figure: FigureWidget, palette: Palette = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.figure, self.palette, self.font_pt = figure, palette, 10.0
        self.lines: list[list[str]] = []

    def set_lines(self, lines: list[list[str]]) -> None:
        self.lines = lines
        self.updateGeometry()
        self.update()

    def sizeHint(self):
        size = super().sizeHint()
        rows = max((len(x) for x in self.lines), default=1)
        size.setHeight(int(QFontMetricsF(ui_font(self.font_pt)).height() * rows + 6))
        return size

    def minimumSizeHint(self):
        return self.sizeHint()

    def columns(self) -> list[QRectF]:
        """Each thumbnail's column in this widget's coordinates."""
        out = []
        for mp in self.figure.plots.values():
            rect = mp.plot.sceneBoundingRect()
            at = self.figure.mapToGlobal(self.figure.mapFromScene(rect.topLeft()))     # siblings: via the screen
            left = self.mapFromGlobal(at).x()
            out.append(QRectF(left, 0, rect.width(), self.height()))
        return out

    def fitted(self, text: str, width: float) -> tuple[str, float]:
        """The text as drawn in `width`: the whole line, else the shape alone; then smaller (to 70 %)."""
        shape = text[text.find("["):] if "[" in text else text
        for t, scale in ((text, 1.0), (text, 0.9), (text, 0.8), (shape, 1.0), (shape, 0.9), (shape, 0.8)):
            if QFontMetricsF(ui_font(self.font_pt * scale)).horizontalAdvance(t) <= width:
                return t, self.font_pt * scale
        return shape, self.font_pt * 0.7

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        try:
            p.setPen(QColor(self.palette.muted))
            line = QFontMetricsF(ui_font(self.font_pt)).height()
            for rect, texts in zip(self.columns(), self.lines, strict=False):
                for k, text in enumerate(texts):
                    shown, pt = self.fitted(text, rect.width() + 6)
                    p.setFont(ui_font(pt))
                    p.drawText(QRectF(rect.left() - 3, 2 + k * line, rect.width() + 6, line),
                               Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, shown)
        finally:
            p.end()
