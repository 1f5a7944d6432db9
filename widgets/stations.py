"""The stations of a block, each a labelled set of views drawn from one LabResult + Selection.

A station draws the panels widgets/views.py gives it (`station_panels`: the same panels its
exported figure has); it never computes (derived numbers come from compute.instruments.explain via the views).
`content()` returns exactly the arrays a station shows, by their Trace names, so tests can check
what a person sees. Most stations are heatmaps only and need no class of their own; the softmax
row (bars), Heads·W_O (head dividers) and the MLP (the next-token bars) add to that.
"""
from __future__ import annotations

import weakref

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QCursor, QFont
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from compute import Config
from compute.instruments import explain
from compute.instruments.generate import top_predictions
from compute.stations import PAGE

from .axes import make_lean, metrics_for
from .i18n import Retranslate, language, num, page_title, tr
from .matrix import (
    FULL_LABELS,
    MIN_LABEL_PX,
    MIN_NUMBER_PX,
    PRESENT_LABEL_PX,
    LabelAxis,
    MatrixPlot,
    connect_mouse,
    format_value,
    set_title,
    zoomed,
)
from .theme import BARS, DEFAULT_DIVERGING, DEFAULT_SEQUENTIAL, LIGHT, Palette, colormap
from .views import (
    STATION_VIEWS,
    TOKEN_MAPS,
    TOKEN_ROWS,
    colour_unit,
    kv_head,
    kv_sharers,
    layer_kind_words,
    station_panels,
    station_shapes,
    station_view,
    view_kind,
    visible_token,
)

# Pages that read a query head's K/V head: their header says which one, and who shares it.
KV_PAGES = frozenset({"projections", "scores", "softmax", "weighted_sum"})


class Canvas(pg.GraphicsLayoutWidget):
    """A GraphicsLayoutWidget that says when it has finished painting (render timing) and when
    it was resized (the station lays itself out again)."""

    painted = Signal()
    resized = Signal()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        self.painted.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.resized.emit()


QWIDGETSIZE_MAX = 16777215
MARGIN = 6                      # px around the panels; spare room is shared out to centre them


def legibility(cell_w: float, cell_h: float) -> float:
    """The size (px) a number can have in a cell of this many px: at most half its shorter side
    (CellText.fit_px), and one decimal ("−0.5") about twice as wide as the type is tall."""
    return min(0.5 * min(cell_w, cell_h), 0.9 * cell_w / 2.0)


class Same:
    """An object in a cache key, equal only to itself: id() alone is reused once a result is freed,
    so a new result could pass for the one drawn before. It holds the object weakly: a hidden
    page's cache key must not keep the Trace it last drew alive (a long session held one per page)."""

    __slots__ = ("ref", "weak", "key")

    def __init__(self, obj):
        try:
            self.ref, self.weak = weakref.ref(obj), True
        except TypeError:                   # None, or a value without weak references: held as it is
            self.ref, self.weak = (lambda: obj), False
        self.key = id(obj)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Same):
            return False
        mine, theirs = self.ref(), other.ref()
        if self.weak and mine is None:      # freed: equal to nothing new (its id may be reused)
            return other is self
        return mine is theirs

    def __hash__(self) -> int:
        return self.key


class Station(Retranslate, QWidget):
    """Base: a header (title, formula, shapes) over a pyqtgraph canvas of MatrixPlots."""

    hovered = Signal(object)            # (query|None, key|None) or None
    clicked = Signal(object)            # (query|None, key|None)
    traced = Signal(object)             # (name, row, col): explain this cell (dot-product trace)
    rangeToggled = Signal()             # a click on a clipped panel's caption: the full colour range (or back)
    key = ""                            # a compute.stations.PAGE key: its title, its view

    def __init__(self, palette: Palette = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.palette = palette
        self.result = None
        self.selection = None
        self._dirty = False
        self._drawn_for: tuple | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.header = QLabel()
        self.header.setObjectName("stationHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.canvas = Canvas()
        self.canvas.setBackground(palette.background)
        self.canvas.ci.setSpacing(14)
        layout.addWidget(self.canvas, 1)
        self.plots: list[MatrixPlot] = []
        self.roles: dict[int, tuple[str | None, str | None]] = {}   # id(plot) -> (row role, col role)
        # The slots of the model on screen (widgets/views.py station_view): GPT-2's until a result
        # of another model family arrives, then `rebuild` makes that family's plots.
        self.view = station_view(self.key, Config()) if self.key in STATION_VIEWS else None
        self._style: tuple = ()                           # the last apply_style's maps, font, lines
        self.slot_plots: list[MatrixPlot] = []
        self.layout_index = 0                 # which of the view's screen layouts is on screen
        self._fit_key: tuple | None = None
        self._arranged_for: tuple | None = None
        self._fitting = False
        self._row_chains: list[list[MatrixPlot]] = []     # panels whose rows line up (_shared_rows)
        self.build()
        self._lean_axes()
        connect_mouse(self.canvas, lambda: self.plots, self._on_hover, self._on_click)
        self.canvas.scene().sigMouseClicked.connect(self._on_caption_click)
        self.canvas.resized.connect(self.fit)

    def _lean_axes(self) -> None:
        for item in self.canvas.ci.items:                 # every axis lays out the lean way
            if isinstance(item, pg.PlotItem):
                for side in ("left", "bottom", "right", "top"):
                    axis = item.getAxis(side)
                    if not isinstance(axis, LabelAxis) and not hasattr(axis, "lean_levels"):
                        make_lean(axis, levels=2)

    # -- building --------------------------------------------------------------------------------
    def matrix(self, row: int, col: int, title: str, kind: str = "diverging", roles=(None, None),
               row_axis: str = "", col_axis: str = "", **kw) -> MatrixPlot:
        mp = MatrixPlot(self.canvas.ci, row, col, title, kind=kind, row_axis=row_axis, col_axis=col_axis,
                        palette=self.palette, roles=roles, **kw)
        self.plots.append(mp)
        self.roles[id(mp)] = roles
        return mp

    def build(self) -> None:
        """One heatmap per slot of the station's view (widgets/views.py) for the model on screen."""
        view = self.view
        self.slot_plots: list[MatrixPlot] = []
        for slot in view.slots:
            mp = self.matrix(slot.row, slot.col, "", kind=view_kind(slot.view), roles=slot.roles,
                             rowspan=slot.rowspan, colspan=slot.colspan, colorbar=slot.colorbar)
            mp.trace_name = slot.trace                 # a click explains the cell
            self.slot_plots.append(mp)
            if slot.attr:
                setattr(self, slot.attr, mp)
        self._stretch(view.screen_layouts[0])

    def _stretch(self, layout) -> None:
        """The layout's stretch factors; rows and columns it leaves empty get none (no room)."""
        lay = self.canvas.ci.layout
        n_cols = max(c + cs for _r, c, _rs, cs in layout.places)
        n_rows = max(r + rs for r, _c, rs, _cs in layout.places)
        for col in range(lay.columnCount()):
            lay.setColumnStretchFactor(col, (layout.col_stretch[col] if col < len(layout.col_stretch) else 1)
                                       if col < n_cols else 0)
        for row in range(lay.rowCount()):
            lay.setRowStretchFactor(row, (layout.row_stretch[row] if row < len(layout.row_stretch) else 1)
                                    if row < n_rows else 0)

    def rebuild(self, view) -> None:
        """New plots for another set of slots (a model of another family: RMSNorm's scale instead
        of LayerNorm's mean and variance, RoPE's rotated q and k, SwiGLU's branches)."""
        for slot in self.view.slots:
            if slot.attr and getattr(self, slot.attr, None) in self.plots:
                delattr(self, slot.attr)
        self.canvas.ci.clear()
        self.plots, self.roles = [], {}
        self.view = view
        self.layout_index, self._fit_key, self._arranged_for = 0, None, None
        self.build()
        self._lean_axes()
        if self._style:
            self._style_plots(*self._style)
        self._drawn_for = None

    # -- data ------------------------------------------------------------------------------------
    def panels(self, result, sel):
        """The panels this station shows (widgets/views.py), exactly those of its exported figure.
        Made once per redraw (content and draw both ask): a robust scale of three 1,024² maps
        costs more than drawing them."""
        memo = getattr(self, "_panel_memo", None)
        if memo is not None and memo[0] is result and memo[1] == sel:
            return memo[2]
        panels = station_panels(self.key, result, sel)
        if memo is not None:
            self._panel_memo = (result, sel, panels)
        return panels

    def content(self, result, sel) -> dict[str, np.ndarray]:
        """The arrays this station shows for a result and selection (no drawing), by name."""
        return {p.name: p.values for p in self.panels(result, sel)}

    def places(self) -> tuple[tuple[int, int, int, int], ...]:
        """Where the slots sit on screen now: (row, col, rowspan, colspan) of each."""
        return self.view.screen_layouts[self.layout_index].places

    def draw(self, result, sel, data: dict[str, np.ndarray]) -> None:
        panels = self._panels = self.panels(result, sel)
        for mp, p in zip(self.slot_plots, panels, strict=True):
            self.draw_panel(mp, p)
        self._apply_places()

    def _apply_places(self) -> None:
        """What depends on where the panels sit: row-axis titles and colour bars."""
        view, panels = self.view, getattr(self, "_panels", None)
        if panels is None:
            return
        places = self.places()
        # A row axis is named once per row of panels when its neighbours share it ("token").
        left = {r: p.row_axis for (row, col, rs, _cs), p in zip(places, panels, strict=True) if col == 0
                for r in range(row, row + rs)}
        thumbs = self.thumbnails()
        shared = self._shared_rows(places, panels)
        slots = view.slots if len(view.slots) == len(self.slot_plots) else (None,) * len(self.slot_plots)
        for (row, col, _rs, _cs), mp, p, slot in zip(places, self.slot_plots, panels, slots, strict=True):
            own_bare = mp in thumbs or bool(slot and slot.bare)
            mp.row_axis_shown = (col == 0 or left.get(row) != p.row_axis) and not own_bare and mp not in shared
            mp.set_axis_titles(p.row_axis if mp.row_axis_shown else "", "" if own_bare else p.col_axis)
            for side in ("left", "bottom"):
                axis = mp.plot.getAxis(side)
                bare = own_bare or (side == "left" and mp in shared)
                if isinstance(axis, LabelAxis) and axis.bare != bare:
                    axis.bare = bare
                    axis._relayout()
        self._colour_bars(view, places)

    def _shared_rows(self, places, panels) -> list[MatrixPlot]:
        """Panels side by side in one grid row with the same rows as their left neighbour (ln1_out,
        q, k, v; pattern, v, p·v): their rows line up, so the leftmost labels them all and the
        others draw no row labels (the room goes to the cells). If one of them has a caption, the
        others keep a blank one of the same height, so that their rows stay on one line."""
        rows: dict[int, list[tuple[int, MatrixPlot, object]]] = {}
        for (row, col, rs, _cs), mp, p in zip(places, self.slot_plots, panels, strict=True):
            if rs == 1 and not p.missing and p.values.size:
                rows.setdefault(row, []).append((col, mp, p))
        shared: list[MatrixPlot] = []
        self._row_chains = []
        for members in rows.values():
            members.sort(key=lambda m: m[0])
            chain = [members[0]]
            for m in members[1:] + [None]:
                if m is not None and m[2].rows == chain[-1][2].rows and m[2].values.shape[0] == len(m[2].rows):
                    chain.append(m)
                    continue
                if len(chain) > 1:
                    shared += [mp for _c, mp, _p in chain[1:]]
                    self._row_chains.append([mp for _c, mp, _p in chain])
                    if any(p.caption for _c, _mp, p in chain):
                        for _c, mp, p in chain:
                            if not p.caption:
                                mp.set_clipped(mp.clipped, "\u2007")        # a blank line of a caption's height
                chain = [m] if m is not None else []
        return shared

    def thumbnails(self) -> list[MatrixPlot]:
        """On a projector, the panels beside the lesson's main one (a slot of less weight: the
        scores beside the pattern) are drawn as thumbnails without tick labels: the main panel
        takes the room and every label it draws stays large."""
        view = self.view
        if view is None or not self.slot_plots or len(view.slots) != len(self.slot_plots):
            return []
        axis = self.slot_plots[0].plot.getAxis("left")
        if getattr(axis, "min_px", MIN_LABEL_PX) < PRESENT_LABEL_PX:
            return []
        top = max(slot.weight for slot in view.slots)
        return [mp for slot, mp in zip(view.slots, self.slot_plots, strict=True) if slot.weight < top]

    def _colour_bars(self, view, places) -> None:
        """Panels on one shared scale need one colour bar per row: the rightmost one keeps it."""
        keep = [slot.colorbar for slot in view.slots]
        for group in view.shared:
            members = [k for k, slot in enumerate(view.slots) if slot.view in group
                       or (slot.view == "W_O_stacked" and "W_O" in group)]
            for k in members:
                row, col = places[k][0], places[k][1] + places[k][3]
                keep[k] = keep[k] and not any(places[o][0] == row and places[o][1] + places[o][3] > col
                                              for o in members if o != k)
        for mp, on in zip(self.slot_plots, keep, strict=True):
            mp.show_colorbar(on)

    def draw_panel(self, mp: MatrixPlot, p) -> None:
        mp.set_title(p.title)
        mp.set_data(p.values, p.rows, p.cols, masked=p.masked, levels=p.levels, masked_text=p.masked_text,
                    row_ticks=p.row_ticks, col_ticks=p.col_ticks, kept=self._kept_cells(p))
        mp.set_message(p.missing)                     # a name this model lacks: why, never old data
        mp.set_outline(p.outline)
        mp.set_unit(colour_unit(p.name))              # its colour bar says what its values are
        mp.set_clipped(p.clipped, p.caption)          # outliers beyond a robust scale: marked and named
        mp.set_marks(p.marks)                         # a long map: the query's strongest keys

    # -- layout: the arrangement, square T×T cells, one number size per shape ---------------------------
    def fit(self) -> None:
        """Lay the station out for its canvas now: the arrangement whose cells read best, T×T
        cells square, spare room shared out around the panels, and numbers at one size for all
        matrices of one shape (or in none of them, if one cannot show them)."""
        plots = [mp for mp in self.plots if mp.values is not None]
        size = self.canvas.viewport().size()
        if self._fitting or not plots or not self.isVisible() or size.width() < 50 or size.height() < 50:
            return
        self._fitting = True
        try:
            view = self.view
            shapes = tuple(mp.values.shape for mp in plots)
            if view is not None and self.slot_plots and len(plots) == len(view.slots):
                arrangement = (size.width(), size.height(), shapes, tuple(mp.text.max_px for mp in plots))
                if arrangement != self._arranged_for:
                    self._arranged_for = arrangement
                    self._choose_layout(view, (size.width(), size.height()))

            # Axes re-measure their labels at once (set_labels): their sizes say whether to lay out again.
            def key():
                axes = tuple((mp.plot.getAxis("left").textWidth, mp.plot.getAxis("bottom").textHeight,
                              mp.bar is not None and mp.bar.isVisible(), mp.text.max_px) for mp in plots)
                return size.width(), size.height(), shapes, axes, self.layout_index
            if key() != self._fit_key:
                self._square_cells()
                self._line_up_rows()
                self._fit_key = key()                # as laid out: unchanged next time, nothing to do
            for mp in plots:
                mp.fit_title()
                mp.fit_caption()
                mp.fit_message()
            if not self._all_square() or not self._rows_lined_up():   # a title that changed size moved the grid
                self._square_cells()
                self._line_up_rows()
                self._fit_key = key()
            self.harmonise_numbers()
        finally:
            self._fitting = False

    def _offsets(self, mp: MatrixPlot) -> tuple[float, float]:
        """(px above its cells, px below them) inside the panel: title; axis, caption."""
        vb, g = mp.plot.vb.geometry(), mp.plot.geometry()
        return vb.top(), g.height() - vb.bottom()

    def _rows_lined_up(self) -> bool:
        for chain in self._row_chains:
            offsets = [self._offsets(mp) for mp in chain]
            if any(max(o[k] for o in offsets) - min(o[k] for o in offsets) > 0.5 for k in (0, 1)):
                return False
        return True

    def _line_up_rows(self) -> None:
        """Panels whose rows line up (see _shared_rows) get the same room above and below their
        cells: the smaller title or axis row of one is grown to its neighbour's."""
        if not self._row_chains:
            return
        chains = [c for c in self._row_chains if all(mp.plot.isVisible() for mp in c)]
        for chain in chains:
            for mp in chain:
                for row in (0, 3):                    # PlotItem's title row and bottom axis row
                    mp.plot.layout.setRowMinimumHeight(row, 0)
        self._settle()
        for chain in chains:
            offsets = [self._offsets(mp) for mp in chain]
            top, bottom = max(o[0] for o in offsets), max(o[1] for o in offsets)
            for mp, (above, below) in zip(chain, offsets, strict=True):
                lay = mp.plot.layout
                if top - above > 0.5:
                    lay.setRowMinimumHeight(0, mp.plot.titleLabel.geometry().height() + top - above)
                if bottom - below > 0.5:
                    lay.setRowMinimumHeight(3, mp.plot.getAxis("bottom").geometry().height() + bottom - below)
        self._settle()

    def _all_square(self) -> bool:
        for mp in self.plots:
            if mp.square and mp.values is not None and mp.plot.isVisible() and not zoomed(mp):
                vb = mp.plot.vb
                (x0, x1), (y0, y1) = vb.viewRange()
                if abs(vb.width() / max(x1 - x0, 1e-9) - vb.height() / max(y1 - y0, 1e-9)) >= 1.0:
                    return False
        return True

    def _choose_layout(self, view, size) -> None:
        """Try each arrangement this canvas allows and keep the one where the most panels can
        show their numbers, then the most have all their labels, then the cells are largest."""
        eligible = [k for k, lay in enumerate(view.screen_layouts) if size[0] >= lay.min_aspect * size[1]]
        if len(view.screen_layouts) < 2:
            return
        scores = {}
        for k in eligible:
            self._place(view, k)
            self._square_cells()
            scores[k] = self._legibility(view)
        best = max(scores, key=lambda k: (scores[k], -k))
        if best != self.layout_index:
            self._place(view, best)
        self._fit_key = None                         # lay the chosen one out (again) below

    def _place(self, view, index: int) -> None:
        if index == self.layout_index and all(mp.plot in self.canvas.ci.items for mp in self.slot_plots):
            return
        self.layout_index = index
        ci = self.canvas.ci
        for mp in self.slot_plots:
            ci.removeItem(mp.plot)
        for mp, (r, c, rs, cs) in zip(self.slot_plots, view.screen_layouts[index].places, strict=True):
            ci.addItem(mp.plot, row=r, col=c, rowspan=rs, colspan=cs)
        self._stretch(view.screen_layouts[index])
        self._apply_places()

    def _legibility(self, view) -> tuple[float, float, float, float]:
        """(weight of the panels whose numbers fit, of those whose every label is drawn (up to 32
        cells a side), weighted mean number size, weighted mean cell size) as laid out now."""
        readable = labelled = total = area = 0.0
        for slot, mp in zip(view.slots, self.slot_plots, strict=True):
            vb = mp.plot.vb
            (x0, x1), (y0, y1) = vb.viewRange()
            cell = (vb.width() / max(x1 - x0, 1e-9), vb.height() / max(y1 - y0, 1e-9))
            area += slot.weight * min(cell)
            if mp.text._values is not None:          # the size its numbers would have, all decimals first
                own, fewer = mp.text.fit_px(*cell), mp.text.fit_px(*cell, mp.text.fewer_decimals())
                px = own or (0.8 * fewer if fewer else 0.0)
            else:
                px = legibility(*cell)
            readable += slot.weight if px > 0 and px >= 0.8 * MIN_NUMBER_PX else 0.0
            axes = (mp.plot.getAxis("left"), mp.plot.getAxis("bottom"))
            # A bare axis (a thumbnail, or rows that the panel on its left labels for both) is labelled by design.
            full = all(a.bare or len(a.labels) > FULL_LABELS or a.full_fits() for a in axes)
            labelled += slot.weight if full else 0.0
            total += slot.weight * px
        weight = sum(s.weight for s in view.slots)
        return readable, labelled, total / weight, area / weight     # at last: the larger cells (the main panel's)

    def _settle(self) -> None:
        """Lay the canvas out now (axes re-measure their labels as they resize: a few rounds)."""
        ci = self.canvas.ci
        for _ in range(4):
            before = [mp.plot.vb.geometry() for mp in self.plots]
            ci.layout.activate()
            for mp in self.plots:
                mp.plot.layout.activate()
            if [mp.plot.vb.geometry() for mp in self.plots] == before:
                return

    def _square_cells(self) -> None:
        """Cap each T×T panel so its cells are square, then share the room left over equally on
        both sides (the capped panels would otherwise huddle in the top-left corner)."""
        ci, full = self.canvas.ci, QRectF(self.canvas.range)
        squares = [mp for mp in self.plots if mp.square and mp.values is not None and mp.plot.isVisible()]
        ci.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        for mp in squares:                     # a new size: the least-size trial below starts afresh
            for axis in (mp.plot.getAxis("left"), mp.plot.getAxis("bottom")):
                if axis.force_full:
                    axis.force_full = False
                    axis._relayout()
        for mp in squares:
            mp.plot.setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX)
        ci.setGeometry(full)                   # capped children had shrunk the whole layout
        self._settle()
        if not squares:
            return
        self._cap_squares(squares, full)
        # Up to 32 tokens every label should be drawn: where thinned labels (with their wide
        # "index:" prefixes) make the axes thick, try the least size: the thinner axes give the
        # cells the room back. Kept only if every label then fits its cell.
        trial = [axis for mp in squares for axis in (mp.plot.getAxis("left"), mp.plot.getAxis("bottom"))
                 if not axis.force_full and axis.layout_ is not None and axis.layout_.step > 1
                 and len(axis.labels) <= FULL_LABELS]
        if trial:
            for axis in trial:
                axis.force_full = True
                axis._relayout()
            self._cap_squares(squares, full)
            if not all(axis.full_fits() for axis in trial):
                for axis in trial:
                    axis.force_full = False
                    axis._relayout()
                self._cap_squares(squares, full)
        # The layout now wants less than the canvas (its maximum): margins take up the rest.
        spare_w, spare_h = full.width() - ci.geometry().width(), full.height() - ci.geometry().height()
        if spare_w > 1 or spare_h > 1:
            mx, my = MARGIN + max(spare_w, 0) / 2, MARGIN + max(spare_h, 0) / 2
            ci.setContentsMargins(mx, my, mx, my)
            ci.setGeometry(full)
            self._settle()

    def _cap_squares(self, squares, full) -> None:
        """Cap each T×T panel's size so its cells are square (a few rounds: a capped panel can let
        its neighbour in the column grow)."""
        ci = self.canvas.ci
        for mp in squares:
            mp.plot.setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX)
        ci.setGeometry(full)
        self._settle()
        self._square_up(squares, full)
        self._equalise(squares, full)

    def _square_up(self, squares, full) -> None:
        ci = self.canvas.ci
        for _ in range(3):
            capped = False
            for mp in squares:
                rows, cols = mp.values.shape
                vb, g = mp.plot.vb.geometry(), mp.plot.geometry()
                cell = min(vb.width() / cols, vb.height() / rows)
                spare_w, spare_h = vb.width() - cell * cols, vb.height() - cell * rows
                if spare_w > 1:
                    mp.plot.setMaximumWidth(g.width() - spare_w)
                    capped = True
                if spare_h > 1:
                    mp.plot.setMaximumHeight(g.height() - spare_h)
                    capped = True
            if not capped:
                break
            ci.setGeometry(full)
            self._settle()

    def _equalise(self, squares, full) -> None:
        ci = self.canvas.ci
        # Side by side, maps of one shape get one cell size (the first capped one's room went to
        # its neighbour): the pattern with and without the mask compare at a glance.
        rows_of = {id(item): frozenset(r for r, _c in cells) for item, cells in ci.items.items()}
        groups: dict[tuple, list] = {}
        for mp in squares:
            groups.setdefault((mp.values.shape, rows_of.get(id(mp.plot))), []).append(mp)
        shrunk = False
        for group in (g for g in groups.values() if len(g) > 1):
            cells = [min(mp.plot.vb.width() / mp.values.shape[1], mp.plot.vb.height() / mp.values.shape[0])
                     for mp in group]
            least = min(cells)
            for mp, cell in zip(group, cells, strict=True):
                if cell > least + 0.5:
                    g = mp.plot.geometry()
                    rows, cols = mp.values.shape
                    mp.plot.setMaximumSize(g.width() - (cell - least) * cols, g.height() - (cell - least) * rows)
                    shrunk = True
        if shrunk:
            ci.setGeometry(full)
            self._settle()
            self._square_up(squares, full)       # a minimum size may have kept one side: square again

    def harmonise_numbers(self) -> None:
        """One number size for the matrices of one shape and kind (signed or 0…1) drawn at about
        one size, or none in any of them: q shows numbers exactly when k and v do, the scaled
        scores when the raw ones do. Where the matrix's own decimals do not fit, one fewer (−0.5
        for −0.52) may; a panel drawn 1.5× larger (the large pattern beside small scores)
        decides for itself."""
        by_shape: dict[tuple, list[tuple[float, MatrixPlot, tuple[float, float]]]] = {}
        for mp in self.plots:
            if mp.values is not None and mp.text._values is not None:
                vb = mp.plot.vb
                (x0, x1), (y0, y1) = vb.viewRange()
                cell = (vb.width() / max(x1 - x0, 1e-9), vb.height() / max(y1 - y0, 1e-9))
                by_shape.setdefault((mp.values.shape, mp.kind), []).append((legibility(*cell), mp, cell))
        for members in by_shape.values():
            members.sort(key=lambda m: m[0])
            groups = [[members[0]]]
            for m in members[1:]:
                if m[0] > 1.5 * groups[-1][0][0]:
                    groups.append([])
                groups[-1].append(m)
            for group in groups:
                px, decimals = 0, None
                for fewer in (False, True):
                    sizes = [mp.text.fit_px(*cell, mp.text.fewer_decimals() if fewer else None)
                             for _l, mp, cell in group]
                    if fewer and any(mp.text.fewer_decimals() is None for _l, mp, _c in group):
                        break
                    if all(v is not None for v in sizes):
                        px, decimals = min(sizes), fewer
                        break
                for _l, mp, _cell in group:
                    shown = mp.text.fewer_decimals() if decimals else None
                    if (mp.text.number_px, mp.text.decimals_shown) != (px, shown):
                        mp.text.number_px, mp.text.decimals_shown = px, shown
                        mp.text.update()

    def highlight(self, sel) -> None:
        hover = sel.hover or (None, None)
        query = hover[0] if hover[0] is not None else sel.query
        key = hover[1] if hover[1] is not None else sel.key
        for mp in self.plots:
            row_role, col_role = self.roles[id(mp)]
            row = {"query": query, "key": key}.get(row_role)
            col = {"query": query, "key": key}.get(col_role)
            cell = (row, col) if row is not None and col is not None else None
            mp.highlight(row=row, col=col, cell=cell)

    # -- updates -----------------------------------------------------------------------------------
    def _drawn_facts(self, result, sel) -> tuple:
        """What decides whether a Trace's first rows equal those of the Trace drawn before."""
        t = result.trace
        return (t.weights_uid, t.cfg, t.attn_mask is None and not t.interventions, self._data_key(result, sel)[1:])

    def _kept_rows(self, result, sel) -> int:
        """The token positions before the first one this result's edit changed, where it and the
        result this station drew last agree (forward reuse=: the same weights, model and first
        tokens give the same rows): 0 when nothing is known to be kept."""
        drawn = getattr(self, "_drawn_state", None)
        t = result.trace
        if drawn is None or not t.reused_rows or drawn[0] != self._drawn_facts(result, sel) or not drawn[0][2]:
            return 0
        p = min(t.reused_rows, len(drawn[1]), t.T)
        return p if np.array_equal(drawn[1][:p], t.tokens[:p]) else 0

    def _kept_cells(self, p) -> tuple[int, int | None]:
        """(rows, cols) of panel `p` this edit kept (MatrixPlot.set_data kept=): a per-token
        value keeps its first rows, a T×T map its first rows and key columns; a query's row, a
        weight or anything else: none."""
        kept, result = getattr(self, "_kept", 0), self.result
        if not kept or p.missing or result is None:
            return 0, 0
        T = result.trace.T
        if p.name in TOKEN_MAPS and p.values.shape == (T, T):
            return kept, kept
        if p.name in TOKEN_ROWS and p.values.shape[0] == T and T > 1:
            return kept, None
        return 0, 0

    def _data_key(self, result, sel) -> tuple:
        return (Same(result), sel.layer, sel.head, sel.query, sel.lock_scales, sel.show_values,
                getattr(sel, "full_range", False), sel.trace if self.key == "scores" else None)

    @staticmethod
    def _fits(result, sel) -> bool:
        cfg = result.inputs.config
        return sel.query < max(result.trace.T, 1) and sel.layer < cfg.n_layers and sel.head < cfg.n_heads

    def can_draw(self, result, sel) -> bool:
        """Whether `result` holds all this station shows for `sel`: an early, partial one may not,
        and a selection made for newer inputs (more tokens, layers, heads) waits for their result."""
        if not self._fits(result, sel):
            return False
        if result.trace.complete:
            return True
        try:
            self.content(result, sel)
        except KeyError:
            return False
        return True

    def show_result(self, result, sel) -> None:
        prev = self.result
        self.result, self.selection = result, sel
        if (prev is not None and not prev.trace.complete and prev.request_id == result.request_id
                and self._drawn_for == self._data_key(prev, sel)):
            # The full result of a request whose early part is on screen: the same arrays.
            self._drawn_for = self._data_key(result, sel)
        self._refresh()

    def show_selection(self, sel) -> None:
        self.selection = sel
        self._refresh()

    def _refresh(self) -> None:
        if self.result is None or self.selection is None:
            return
        if not self.isVisible():
            self._dirty = True
            return
        key = self._data_key(self.result, self.selection)
        if key != self._drawn_for:
            self.redraw()
        self.highlight(self.selection)

    def redraw(self) -> None:
        result, sel = self.result, self.selection
        if not self._fits(result, sel):
            return                                        # a selection for newer inputs: wait for them
        view = station_view(self.key, result.inputs.config) if self.view is not None else None
        if view is not None and view.slots != self.view.slots:
            self.rebuild(view)                            # another model family: its own panels
        elif view is not None:
            self.view = view                              # the same panels; its formula, its shapes
        self._panel_memo = (None, None, None)             # panels are made once for content and draw
        try:
            data = self.content(result, sel)
        except KeyError:
            self._panel_memo = None
            if result.trace.complete:
                raise
            return                                        # early result without this: wait for the rest
        for mp in self.plots:
            mp.show_values = sel.show_values
        self._kept = self._kept_rows(result, sel)
        try:
            self.draw(result, sel, data)
        finally:
            self._panel_memo, self._kept = None, 0
        self._drawn_state = (self._drawn_facts(result, sel), np.array(result.trace.tokens))
        self.fit()
        self.header.setText(self.header_html(result, sel))
        self._drawn_for = self._data_key(result, sel)
        self._dirty = False

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty or (self.result is not None and self._drawn_for is None):
            self._refresh()

    @property
    def title(self) -> str:
        return page_title(self.key) if self.key in PAGE else ""

    @property
    def formula(self) -> str:
        return tr(self.view.formula) if self.view is not None else ""

    def retranslate(self) -> None:
        """A new language: titles, axis names and the header are drawn again (now, or when shown)."""
        self._drawn_for = None
        self._refresh()

    def where(self, sel) -> str:
        """Which layer and head the views show (what this page depends on, from the page table);
        with grouped K/V heads, which K/V head the query head reads and who shares it."""
        page = PAGE.get(self.key)
        if page is not None and not page.layer:
            return tr("before the first block")
        cfg = self.result.inputs.config if self.result is not None else None
        kind = layer_kind_words(cfg, sel.layer) if cfg is not None else ""   # Gemma 3: local or global
        if page is not None and not page.head:
            return " · ".join(filter(None, (tr("layer {layer}").format(layer=sel.layer), kind)))
        text = " · ".join(filter(None, (tr("layer {layer}, head {head}").format(layer=sel.layer, head=sel.head), kind)))
        if cfg is not None and cfg.n_kv_heads < cfg.n_heads and self.key in KV_PAGES:
            first, last = kv_sharers(cfg, sel.head)
            text += tr(" · K/V head {g}, shared by query heads {first}–{last}").format(
                g=kv_head(cfg, sel.head), first=first, last=last)
        return text

    def header_html(self, result, sel) -> str:
        f = self.font_scale
        return (f"<b style='font-size:{13 * f:.0f}pt'>{self.title}</b>&nbsp;&nbsp;"
                f"<span style='font-size:{11 * f:.0f}pt'>{self.formula}</span>"
                f"<br><span style='color:{self.palette.muted}; font-size:{10 * f:.0f}pt'>"
                f"{' · '.join(filter(None, (self.shapes(result, sel), self.where(sel))))}</span>")

    # -- appearance: themes and presentation mode (no new data, no recompute) -------------------------
    font_scale = 1.0
    title_size = "11pt"

    def text_font(self, scale: float = 1.0, bold: bool = False) -> QFont:
        """Labels drawn in a plot (values over bars): 10 pt, times presentation mode's scale."""
        font = QFont()
        font.setPointSizeF(10 * scale * self.font_scale)
        font.setBold(bold)
        return font

    def apply_style(self, palette: Palette | None = None, sequential: str | None = None,
                    diverging: str | None = None, font_pt: float | None = None, line_scale: float = 1.0) -> None:
        """Restyle every plot in place: palette, colour maps by kind, font size, line width."""
        if palette is not None:
            self.palette = palette
            self.canvas.setBackground(palette.background)
        if font_pt is not None:
            self.font_scale = font_pt / 10.0
            self.title_size = f"{font_pt * 1.1:.1f}pt"
        old = self._style or (None, None, None, 1.0)
        self._style = (sequential or old[0], diverging or old[1], font_pt or old[2], line_scale)
        self._style_plots(*self._style)
        self._drawn_for = None                        # titles and headers are written at draw time
        self._refresh()

    def _style_plots(self, sequential, diverging, font_pt, line_scale) -> None:
        for mp in self.plots:
            cmap = sequential if mp.kind == "sequential" else diverging
            mp.apply_style(self.palette, cmap=cmap, font_pt=font_pt, line_scale=line_scale)
        mine = {id(mp.plot) for mp in self.plots}
        for item in self.canvas.ci.items:             # plain plots (bars): axes and their text
            if isinstance(item, pg.PlotItem) and id(item) not in mine:
                for side in ("left", "bottom"):
                    axis = item.getAxis(side)
                    axis.setTextPen(self.palette.foreground)
                    if font_pt is not None:
                        font = QFont()
                        font.setPointSizeF(font_pt)
                        axis.setStyle(tickFont=font)
                for child in item.items:
                    if isinstance(child, pg.TextItem):
                        child.setColor(self.palette.foreground)

    def shapes(self, result, sel) -> str:
        return station_shapes(self.key, result, sel) if self.key in STATION_VIEWS else ""

    # -- mouse -------------------------------------------------------------------------------------
    def _roles_to_pair(self, mp: MatrixPlot, cell: tuple[int, int]) -> tuple[int | None, int | None]:
        row_role, col_role = self.roles[id(mp)]
        pair = {"query": None, "key": None}
        if row_role:
            pair[row_role] = cell[0]
        if col_role:
            pair[col_role] = cell[1]
        return pair["query"], pair["key"]

    def _on_hover(self, mp, cell, scene_pos) -> None:
        if mp is None:
            QToolTip.hideText()
            self.hovered.emit(None)
            return
        QToolTip.showText(QCursor.pos(), mp.describe(*cell), self.canvas)
        pair = self._roles_to_pair(mp, cell)
        self.hovered.emit(pair if pair != (None, None) else None)

    def _on_caption_click(self, event) -> None:
        pos = event.scenePos()
        if any(mp.caption_text and mp.caption.isVisible() and mp.caption.sceneBoundingRect().contains(pos)
               for mp in self.plots):
            self.rangeToggled.emit()

    def _on_click(self, mp, cell, event) -> None:
        pair = self._roles_to_pair(mp, cell)
        if pair != (None, None):
            self.clicked.emit(pair)
        if getattr(mp, "trace_name", None):
            self.traced.emit((mp.trace_name, cell[0], cell[1]))


# -- the stations that draw more than heatmaps ----------------------------------------------------------
class ProjectionStation(Station):
    """Q·K·V, where a traced cell lights its multiplication pairs: ln1_out's row times a weight
    column (q, k, v), or q_i beside k_j (a score)."""

    key = "projections"

    def highlight(self, sel) -> None:
        super().highlight(sel)
        if sel.trace is None:
            return
        name, row, col = sel.trace
        # Dashed ink, not the query's orange: tracing q[0] must not look like "the query moved to 0".
        if name in ("q", "k", "v"):
            self.x.highlight(row=row, traced=True)
            for key, mp in {"q": self.wq, "k": self.wk, "v": self.wv}.items():
                mp.highlight(col=col if key == name else None, traced=key == name)
            out = {"q": self.q, "k": self.k, "v": self.v}[name]
            out.highlight(row=row, cell=(row, col), traced=True)
        elif name == "attn_scores":
            # q_i · k_j, pair by pair (with RoPE the scores multiply the rotated rot_q and rot_k)
            (getattr(self, "rq", None) or self.q).highlight(row=row, traced=True)
            (getattr(self, "rk", None) or self.k).highlight(row=col, traced=True)


class SoftmaxRowStation(Station):
    """One query's scores and probabilities as bars over the keys (its figure: the same two rows
    as heatmaps). Bars take the colours their cells have in the heatmaps; the keys the query may
    not see are hatched from top to bottom in both plots, with no number."""

    key = "softmax"

    def build(self):
        self.scores_plot = self.canvas.addPlot(row=0, col=0, enableMenu=False,
                                               axisItems={"bottom": LabelAxis("bottom")})
        self.probs_plot = self.canvas.addPlot(row=1, col=0, enableMenu=False, axisItems={"bottom": LabelAxis("bottom")})
        for plot in (self.scores_plot, self.probs_plot):
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.showGrid(y=True, alpha=0.25)
            for side in ("left", "bottom"):
                plot.getAxis(side).setTextPen(self.palette.foreground)
                plot.getAxis(side).enableAutoSIPrefix(False)
        self.score_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.prob_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        # The masked keys: a hatched column over the whole height of each plot.
        self.mask_bands = {plot: pg.BarGraphItem(x=[], height=[], width=0.9) for plot in
                           (self.scores_plot, self.probs_plot)}
        for plot, band in self.mask_bands.items():
            band.setZValue(-5)
            plot.addItem(band)
        self.key_box = {plot: pg.BarGraphItem(x=[], height=[], width=0.86) for plot in self.mask_bands}
        for plot, box in self.key_box.items():
            box.setZValue(5)
            plot.addItem(box)
        self.scores_plot.addItem(self.score_bars)
        self.probs_plot.addItem(self.prob_bars)
        self.labels_items: list[pg.TextItem] = []
        self.sum_text = pg.TextItem(anchor=(1, 0), color=self.palette.foreground)
        self.sum_text.setFont(QFont("", 12, QFont.Weight.Bold))
        self.probs_plot.addItem(self.sum_text)
        self.maps = (DEFAULT_SEQUENTIAL, DEFAULT_DIVERGING)
        self.masked_keys = np.zeros(0, bool)
        self._spans: dict = {}

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        self.maps = (sequential or self.maps[0], diverging or self.maps[1])
        super().apply_style(palette, sequential, diverging, font_pt, line_scale)

    def content(self, result, sel):
        if result.trace.T == 0:
            return {"attn_scores": np.zeros((1, 0)), "pattern": np.zeros((1, 0))}
        return super().content(result, sel)

    def _colours(self, values, levels, name) -> list:
        """The heatmaps' colour of each value: the same grammar as the cells."""
        cmap = colormap(name, self.palette.dark)
        lo, hi = levels
        t = np.clip((np.asarray(values, np.float64) - lo) / ((hi - lo) or 1.0), 0.0, 1.0)    # [T]
        return [pg.mkBrush(QColor(*rgb)) for rgb in cmap.map(t, mode="byte")[:, :3].tolist()]

    def draw(self, result, sel, d):
        labels = result.labels
        scores_panel, probs_panel = self.panels(result, sel) if labels else (None, None)
        scores, probs = d["attn_scores"][0], d["pattern"][0]                 # [T] each
        T = len(probs)
        x = np.arange(T)
        allowed = np.isfinite(scores)
        self.masked_keys = ~allowed
        shown = np.where(allowed, scores, 0.0)
        top = float(np.abs(shown).max()) if T else 1.0
        lo, hi = (float(min(shown.min(), 0.0)), float(max(shown.max(), 0.0))) if T else (0.0, 1.0)
        pad = 0.12 * ((hi - lo) or 1.0)
        self._spans = {self.scores_plot: (lo - pad, hi + pad), self.probs_plot: (0.0, 1.15)}
        outline, none = pg.mkPen(self.palette.muted, width=0.8), pg.mkPen(None)
        pens = [outline if a else none for a in allowed]           # a masked key has no bar at all
        if T:
            self.score_bars.setOpts(x=x, height=shown, width=0.7, pens=pens,
                                    brushes=self._colours(shown, (-(top or 1.0), top or 1.0), self.maps[1]))
            self.prob_bars.setOpts(x=x, height=probs, width=0.7, pens=pens,
                                   brushes=self._colours(probs, (0.0, 1.0), self.maps[0]))
        else:                                     # no tokens: empty bars (pyqtgraph fails on empty pens)
            for bars in (self.score_bars, self.prob_bars):
                bars.setOpts(x=[], height=[], width=0.7, brushes=None, pens=None)
        hidden = x[self.masked_keys]
        hatch = QBrush(QColor(self.palette.masked), Qt.BrushStyle.BDiagPattern)
        for plot, band in self.mask_bands.items():
            y0, y1 = self._spans[plot]
            band.setOpts(x=hidden, y0=np.full(len(hidden), y0), height=np.full(len(hidden), y1 - y0), width=0.9,
                         brush=hatch, pen=pg.mkPen(None))
        for plot in (self.scores_plot, self.probs_plot):
            plot.getAxis("bottom").set_labels(labels)
            plot.setXRange(-0.6, max(T - 0.4, 0.6), padding=0)
            plot.setYRange(*self._spans[plot], padding=0)
        if scores_panel is not None:
            set_title(self.scores_plot, scores_panel.title + tr("  · hatched: masked (−∞)"), self.palette.foreground,
                      self.title_size)
            set_title(self.probs_plot, probs_panel.title, self.palette.foreground, self.title_size)
        for item in self.labels_items:
            self.probs_plot.removeItem(item)
        self.labels_items = []
        if 0 < T <= 32:
            for j in np.flatnonzero(allowed):     # masked keys carry no number: the hatch says it
                item = pg.TextItem(format_value(float(probs[j])), anchor=(0.5, 1), color=self.palette.foreground)
                item.setPos(int(j), float(probs[j]) + 0.01)
                item.setFont(self.text_font())
                self.probs_plot.addItem(item)
                self.labels_items.append(item)
        total = float(probs.sum()) if T else 0.0
        ent = abs(explain.row_entropy(probs)) if T else 0.0
        self.sum_text.setText(tr("Σ_j = {total}   max = {max}   entropy = {entropy} nats").format(
            total=num(total, ".3f"), max=num(float(probs.max()) if T else 0.0, ".3f"), entropy=num(ent, ".2f")))
        self.sum_text.setPos(max(T - 0.5, 0.5), 1.14)
        self.sum_text.setFont(self.text_font(1.2, bold=True))

    def highlight(self, sel) -> None:
        """The hovered (else the chosen) key: its bars outlined and its label bold, in the key colour."""
        hover = sel.hover or (None, None)
        traced = sel.trace if sel.trace and sel.trace[0] == "attn_scores" and sel.trace[1] == sel.query else None
        key = hover[1] if hover[1] is not None else sel.key if sel.key is not None else traced and traced[2]
        T = len(self.masked_keys)
        on = key is not None and 0 <= key < T
        pen = pg.mkPen(self.palette.key, width=2.5)
        for plot, box in self.key_box.items():
            y0, y1 = self._spans.get(plot, (0.0, 1.0))
            if on:
                box.setOpts(x=[key], y0=[y0], height=[y1 - y0], width=0.86, brush=pg.mkBrush(None), pen=pen)
            else:
                box.setOpts(x=[], height=[], width=0.86, brush=None, pen=None)
            plot.getAxis("bottom").set_emphasis(key if on else None, self.palette.key)


class HeadsStation(Station):
    """z_concat and the stacked W_O with a line between heads; W_O is redrawn only when it changes."""

    key = "heads"

    def build(self):
        super().build()
        self.lines: list = []
        self._lines_key: tuple | None = None
        self._wo_drawn: tuple | None = None       # (id of the W_O array drawn, numbers shown?)
        self._wo_source = None

    def draw_panel(self, mp, p) -> None:
        if mp is self.wo:
            W_O = self.result.weights[f"blocks.{self.selection.layer}.attn.W_O"]   # the array Weights keeps
            drawn = (id(W_O), mp.show_values, language())               # a new language: its title again
            if self._wo_drawn == drawn and mp.values is not None:
                return                                                # weights: only when they change
            self._wo_drawn = drawn
            self._wo_source = W_O                                     # kept alive: its id stays unique
        super().draw_panel(mp, p)

    def draw(self, result, sel, d):
        super().draw(result, sel, d)
        cfg = result.inputs.config
        lines_key = (cfg.n_heads, cfg.d_head, self.palette.foreground)
        if lines_key == self._lines_key:
            return
        self._lines_key = lines_key
        for plot, line in self.lines:
            plot.removeItem(line)
        self.lines = []
        pen = pg.mkPen(self.palette.foreground, width=2)
        for h in range(1, cfg.n_heads if cfg.n_heads <= 16 else 1):      # 95 lines would hide the data
            edge = h * cfg.d_head - 0.5
            for mp, angle in ((self.zc, 90), (self.wo, 0)):
                line = pg.InfiniteLine(pos=edge, angle=angle, pen=pen)
                mp.plot.addItem(line)
                self.lines.append((mp.plot, line))


class MLPStation(Station):
    """The MLP's heatmaps and, beside them, the next token the model predicts after the query."""

    key = "mlp"

    def build(self):
        super().build()
        self._logit_title = None
        # Beside the second row of heatmaps: column 2 (GELU) or 3 (SwiGLU's wider first row).
        self.logit_plot = self.canvas.addPlot(row=1, col=self.view.columns - 1, enableMenu=False,
                                              axisItems={"left": LabelAxis("left")})
        self.logit_plot.setMenuEnabled(False)
        self.logit_plot.setMouseEnabled(x=False, y=False)
        self.logit_plot.hideButtons()
        self.logit_plot.invertY(True)
        for side in ("left", "bottom"):
            self.logit_plot.getAxis(side).setTextPen(self.palette.foreground)
            self.logit_plot.getAxis(side).enableAutoSIPrefix(False)
        self.logit_bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[])
        self.logit_plot.addItem(self.logit_bars)
        self.prob_texts: list[pg.TextItem] = []       # each bar's probability, at its end

    def content(self, result, sel):
        data = super().content(result, sel)
        t = result.trace
        if t.T:
            top = top_predictions(t, sel.query, k=8)
            data.update(top_ids=np.array([p.token for p in top]), top_logits=np.array([p.logit for p in top]),
                        top_probs=np.array([p.prob for p in top]))
        return data

    def draw(self, result, sel, d):
        super().draw(result, sel, d)
        labels = result.labels
        if "top_ids" in d:
            probs = d["top_probs"]
            n = len(probs)
            names = [visible_token(result.token_label(int(t))) for t in d["top_ids"]]
            self.logit_bars.setOpts(x0=np.zeros(n), y=np.arange(n), height=0.7, width=probs,
                                    brush=pg.mkBrush(BARS), pen=pg.mkPen(None))
            self.logit_plot.getAxis("left").set_labels(names)
            self.logit_plot.setXRange(0, max(float(probs.max()) * 1.45, 1e-12), padding=0)   # room for "9.8 %"
            self._show_probabilities(probs)
            self.logit_plot.setYRange(-0.6, n - 0.4, padding=0)
            word = labels[sel.query] if labels else ""
            title = (tr("next token after i = {i} (“{word}”)").format(i=sel.query, word=word), self.palette.foreground,
                     self.title_size)
            if title != getattr(self, "_logit_title", None):         # HTML labels: re-laid out only on change
                self._logit_title = title
                self._logit_fitted = None
                set_title(self.logit_plot, *title)


    def fit(self) -> None:
        super().fit()
        title = getattr(self, "_logit_title", None)
        room = self.logit_plot.geometry().width() - 8
        if title is None or room <= 0:
            return
        self._fit_axis_title(self.logit_plot.getAxis("bottom").geometry().width() - 4)   # centred under the bars
        text, colour, size = title
        pt = float(size.rstrip("pt"))
        font = QFont()
        for scale in (1.0, 0.9, 0.8, 0.7):          # smaller before it would be clipped
            font.setPointSizeF(pt * scale)
            if metrics_for(font).horizontalAdvance(text) <= room:
                break
        fitted = (text, f"{pt * scale:.1f}pt")
        if fitted != getattr(self, "_logit_fitted", None):
            self._logit_fitted = fitted
            set_title(self.logit_plot, text, colour, fitted[1])

    def _fit_axis_title(self, room: float) -> None:
        """The bars' axis title in the axes' type, as far as 80 % of it to fit, else the short
        word ("probability"): never cut off ("softmax(logits) after the last la")."""
        pt = 10.0 * self.font_scale
        font = QFont()
        for text in (tr("softmax(logits) after the last layer"), tr("probability")):
            for scale in (1.0, 0.9, 0.8):
                font.setPointSizeF(pt * scale)
                if metrics_for(font).horizontalAdvance(text) <= room:
                    break
            else:
                continue
            break
        fitted = (text, f"{pt * scale:.1f}pt", self.palette.muted)
        if fitted != getattr(self, "_axis_fitted", None):
            self._axis_fitted = fitted
            self.logit_plot.setLabel("bottom", text, **{"font-size": fitted[1], "color": fitted[2]})

    def _show_probabilities(self, probs: np.ndarray) -> None:
        """Each bar's probability printed at its end, in the axes' type ("9.8 %")."""
        while len(self.prob_texts) > len(probs):
            self.logit_plot.removeItem(self.prob_texts.pop())
        while len(self.prob_texts) < len(probs):
            item = pg.TextItem(anchor=(0.0, 0.5))
            self.logit_plot.addItem(item)
            self.prob_texts.append(item)
        font = self.text_font()
        for k, (item, p) in enumerate(zip(self.prob_texts, probs, strict=True)):
            item.setText(num(100.0 * float(p), ".1f" if p >= 0.001 else ".2g") + " %", color=self.palette.foreground)
            item.setFont(font)
            item.setPos(float(p), float(k))


def station_class(key: str) -> type[Station]:
    """The Station class of a key: its own where it draws more than heatmaps, else a plain one."""
    special = {cls.key: cls for cls in (ProjectionStation, SoftmaxRowStation, HeadsStation, MLPStation)}
    return special.get(key) or type(f"{key.title().replace('_', '')}Station", (Station,), {"key": key})


STATION_CLASSES = [station_class(key) for key in STATION_VIEWS]
