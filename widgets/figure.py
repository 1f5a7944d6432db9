"""Figures for slides and papers: one named view, or a composed multi-panel figure, drawn from a
LabResult + Selection in a publication style (white paper, chosen font size, colour-blind-safe
colour maps, optional numbers in the cells).

View names are DESIGN.md's (section 3): every Trace name that is a matrix once a layer and a
head are chosen (`pattern` = pattern[layer][head]), the per-head weights (`W_Q` =
blocks.L.attn.W_Q[h]), and composed figures named after the stations plus `block` and
`all_heads`. `figure_spec()` only picks arrays (no arithmetic); `FigureWidget` draws one.
"""
from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen

from compute import explain

from .axes import safe_paint
from .matrix import MatrixPlot, idx_labels, symmetric_levels
from .theme import DARK, DIVERGING_MAPS, FIGURE, SEQUENTIAL_MAPS, Palette

ALIASES = {"ln1": "ln1_out", "ln2": "ln2_out"}


@dataclass(frozen=True)
class Panel:
    """One heatmap of a figure: a DESIGN name, its matrix as shown, and how to label it."""

    name: str                                  # e.g. "pattern" (key of FigureSpec.data())
    title: str                                 # e.g. "pattern = softmax(attn_scores)"
    values: np.ndarray                         # [rows, cols]
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    row_axis: str = ""
    col_axis: str = ""
    kind: str = "diverging"                    # "diverging" (symmetric levels) | "sequential"
    masked: np.ndarray | None = None
    levels: tuple[float, float] | None = None
    masked_text: str = "−∞"


@dataclass(frozen=True)
class FigureSpec:
    view: str
    title: str
    panels: tuple[Panel, ...]
    grid: tuple[tuple[int, int, int, int], ...]      # (row, col, rowspan, colspan) per panel
    columns: int
    rows: int
    panel_size: tuple[int, int] = (360, 320)          # logical px per grid cell at 10 pt
    col_stretch: tuple[int, ...] = ()
    subtitle: str = ""                                # the tokens, in quotes

    def data(self) -> dict[str, np.ndarray]:
        """The matrices shown, by panel name."""
        return {p.name: p.values for p in self.panels}


@dataclass(frozen=True)
class FigureStyle:
    """How an exported figure looks ("figure mode")."""

    theme: str = "light"                 # light: white paper, black ink; dark: for dark slides
    font_pt: float = 10.0
    sequential: str = "viridis"          # SEQUENTIAL_MAPS
    diverging: str = "diverging-cb"      # DIVERGING_MAPS
    show_values: bool = True             # numbers in the cells, where they fit
    title: bool = True
    line_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.theme not in ("light", "dark"):
            raise ValueError(f"theme {self.theme!r}: choose light or dark")
        if self.sequential not in SEQUENTIAL_MAPS:
            raise ValueError(f"colour map {self.sequential!r}: choose one of {', '.join(SEQUENTIAL_MAPS)}")
        if self.diverging not in DIVERGING_MAPS:
            raise ValueError(f"diverging map {self.diverging!r}: choose one of {', '.join(DIVERGING_MAPS)}")
        if not 4 <= self.font_pt <= 72:
            raise ValueError(f"font size {self.font_pt:g} pt: choose 4 to 72")

    @property
    def palette(self) -> Palette:
        return FIGURE if self.theme == "light" else DARK

    def cmap_for(self, kind: str) -> str:
        return self.sequential if kind == "sequential" else self.diverging


# -- picking the arrays ------------------------------------------------------------------------------
def _idx(n: int) -> tuple[str, ...]:
    return tuple(idx_labels(n))


_sym = symmetric_levels



def _vocab_labels(result, n: int) -> tuple[str, ...]:
    return tuple(result.token_label(i) for i in range(n)) if n <= 256 else _idx(n)


def _head_cols(cfg) -> tuple[str, ...]:
    return tuple(f"{c // cfg.d_head}·{c % cfg.d_head}" for c in range(cfg.d_concat))


def _panel(name: str, result, sel) -> Panel:
    """The single view `name` for the selected layer and head."""
    t, w, cfg, labels = result.trace, result.weights, result.inputs.config, tuple(result.labels)
    L, h = sel.layer, sel.head
    dm, dh, dmlp = _idx(cfg.d_model), _idx(cfg.d_head), _idx(cfg.d_mlp)
    p = f"blocks.{L}."
    tok = dict(rows=labels, row_axis="token")
    if name in ("embed", "pos_embed", "ln_final_out"):
        titles = {"embed": "embed = W_E[tokens]", "pos_embed": "pos_embed = W_pos[:T]",
                  "ln_final_out": "ln_final_out"}
        return Panel(name, titles[name], t[name], cols=dm, col_axis="d_model", **tok)
    if name == "logits":
        return Panel(name, "logits = ln_final_out · W_Eᵀ", t["logits"], cols=_vocab_labels(result, cfg.d_vocab),
                     col_axis="vocabulary", **tok)
    if name in ("resid_pre", "ln1_out", "attn_out", "resid_mid", "ln2_out", "mlp_out", "resid_post"):
        titles = {"attn_out": "attn_out = Σ_h result + b_O", "resid_mid": "resid_mid = resid_pre + attn_out",
                  "resid_post": "resid_post = resid_mid + mlp_out"}
        return Panel(name, titles.get(name, name), t[name, L], cols=dm, col_axis="d_model", **tok)
    if name in ("mlp_pre", "mlp_post"):
        title = "mlp_pre = ln2_out · W_in + b_in" if name == "mlp_pre" else "mlp_post = GELU(mlp_pre)"
        return Panel(name, title, t[name, L], cols=dmlp, col_axis="d_mlp", **tok)
    if name in ("ln1_mean", "ln1_var", "ln2_mean", "ln2_var"):
        kind = "sequential" if name.endswith("var") else "diverging"
        return Panel(name, name, t[name, L][:, None], cols=(name.split("_")[1],), kind=kind, **tok)
    if name == "z_concat":
        return Panel(name, "z_concat (heads side by side)", t[name, L], cols=_head_cols(cfg),
                     col_axis="head · d_head", **tok)
    if name in ("q", "k", "v", "z"):
        titles = {"q": f"q[:, {h}] = ln1_out · W_Q[{h}] + b_Q", "k": f"k[:, {h}] = ln1_out · W_K[{h}] + b_K",
                  "v": f"v[:, {h}] = ln1_out · W_V[{h}] + b_V", "z": f"z[:, {h}] = pattern · v"}
        return Panel(name, titles[name], t[name, L][:, h], cols=dh, col_axis="d_head", **tok)
    if name == "result":
        return Panel(name, f"result[:, {h}] = z_{h} · W_O[{h}]", t[name, L][:, h], cols=dm, col_axis="d_model", **tok)
    if name in ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern"):
        forbidden = np.isneginf(t["attn_scores", L][h])
        qk = dict(rows=labels, cols=labels, row_axis="query i", col_axis="key j")
        if name == "attn_scores_raw":
            return Panel(name, "attn_scores_raw = q·kᵀ", t[name, L][h], **qk)
        if name == "attn_scores_scaled":
            title = (f"attn_scores_scaled = raw ÷ √{cfg.d_head}" if cfg.scale_scores
                     else "attn_scores_scaled (no scaling)")
            return Panel(name, title, t[name, L][h], **qk)
        if name == "attn_scores":
            title = "attn_scores (masked: −∞)" if cfg.causal else "attn_scores (no mask)"
            return Panel(name, title, t[name, L][h], masked=forbidden, **qk)
        # Masked cells stay blank: the hatching says it, a wall of "0" only hides the real weights.
        return Panel(name, "pattern = softmax(attn_scores)", t[name, L][h], kind="sequential", masked=forbidden,
                     levels=(0.0, 1.0), masked_text="", **qk)
    if name in ("W_Q", "W_K", "W_V"):
        return Panel(name, f"{name}[{h}]", w[p + "attn." + name][h], rows=dm, cols=dh, row_axis="d_model",
                     col_axis="d_head")
    if name == "W_O":
        return Panel(name, f"W_O[{h}]", w[p + "attn.W_O"][h], rows=dh, cols=dm, row_axis="d_head", col_axis="d_model")
    if name == "W_in":
        return Panel(name, "W_in", w[p + "mlp.W_in"], rows=dm, cols=dmlp, row_axis="d_model", col_axis="d_mlp")
    if name == "W_out":
        return Panel(name, "W_out", w[p + "mlp.W_out"], rows=dmlp, cols=dm, row_axis="d_mlp", col_axis="d_model")
    if name == "W_E":
        return Panel(name, "W_E", w["embed.W_E"], rows=_vocab_labels(result, cfg.d_vocab), cols=dm,
                     row_axis="vocabulary", col_axis="d_model")
    if name == "W_pos":
        return Panel(name, "W_pos", w["pos_embed.W_pos"], rows=_idx(cfg.n_ctx), cols=dm, row_axis="position",
                     col_axis="d_model")
    raise KeyError(name)


# name -> (what it shows, needs a layer, needs a head)
SINGLE_VIEWS: dict[str, tuple[str, bool, bool]] = {
    "embed": ("W_E[tokens] [T, d_model]", False, False),
    "pos_embed": ("W_pos[:T] [T, d_model]", False, False),
    "resid_pre": ("block input [T, d_model]", True, False),
    "ln1_mean": ("LayerNorm 1 mean [T]", True, False),
    "ln1_var": ("LayerNorm 1 variance [T]", True, False),
    "ln1_out": ("LayerNorm 1 output [T, d_model] (alias ln1)", True, False),
    "W_Q": ("blocks.L.attn.W_Q[h] [d_model, d_head]", True, True),
    "W_K": ("blocks.L.attn.W_K[h] [d_model, d_head]", True, True),
    "W_V": ("blocks.L.attn.W_V[h] [d_model, d_head]", True, True),
    "q": ("q[:, h] [T, d_head]", True, True),
    "k": ("k[:, h] [T, d_head]", True, True),
    "v": ("v[:, h] [T, d_head]", True, True),
    "attn_scores_raw": ("q·kᵀ [T, T]", True, True),
    "attn_scores_scaled": ("raw / √d_head [T, T]", True, True),
    "attn_scores": ("scaled, causal mask −∞ [T, T]", True, True),
    "pattern": ("softmax of attn_scores [T, T]", True, True),
    "z": ("z[:, h] = pattern · v [T, d_head]", True, True),
    "z_concat": ("heads side by side [T, n_heads·d_head]", True, False),
    "W_O": ("blocks.L.attn.W_O[h] [d_head, d_model]", True, True),
    "result": ("result[:, h] = z_h · W_O[h] [T, d_model]", True, True),
    "attn_out": ("Σ_h result + b_O [T, d_model]", True, False),
    "resid_mid": ("resid_pre + attn_out [T, d_model]", True, False),
    "ln2_mean": ("LayerNorm 2 mean [T]", True, False),
    "ln2_var": ("LayerNorm 2 variance [T]", True, False),
    "ln2_out": ("LayerNorm 2 output [T, d_model] (alias ln2)", True, False),
    "W_in": ("blocks.L.mlp.W_in [d_model, d_mlp]", True, False),
    "mlp_pre": ("ln2_out · W_in + b_in [T, d_mlp]", True, False),
    "mlp_post": ("GELU(mlp_pre) [T, d_mlp]", True, False),
    "W_out": ("blocks.L.mlp.W_out [d_mlp, d_model]", True, False),
    "mlp_out": ("MLP output [T, d_model]", True, False),
    "resid_post": ("block output [T, d_model]", True, False),
    "ln_final_out": ("final LayerNorm [T, d_model]", False, False),
    "logits": ("ln_final_out · W_Eᵀ [T, d_vocab]", False, False),
    "W_E": ("embed.W_E [d_vocab, d_model]", False, False),
    "W_pos": ("pos_embed.W_pos [n_ctx, d_model]", False, False),
}


def _softmax_rows(result, sel) -> list[Panel]:
    t, L, h, i = result.trace, sel.layer, sel.head, sel.query
    labels = tuple(result.labels)
    scores, probs = t["attn_scores", L][h, i], t["pattern", L][h, i]
    forbidden = np.isneginf(scores)[None, :]
    word = labels[i] if labels else ""
    row = (f"i={i} {word}",)
    return [Panel("attn_scores", f"attn_scores[{h}, {i}, :] — query “{word}”", scores[None, :], row, labels,
                  col_axis="key j", masked=forbidden),
            Panel("pattern", f"pattern[{h}, {i}, :] = softmax (row sums to 1)", probs[None, :], row, labels,
                  col_axis="key j", kind="sequential", masked=forbidden, levels=(0.0, 1.0), masked_text="")]


def _weighted_sum(result, sel) -> list[Panel]:
    t, L, h, i = result.trace, sel.layer, sel.head, sel.query
    labels, dh = tuple(result.labels), _idx(result.inputs.config.d_head)
    terms, z = explain.weighted_terms(t, L, h, i)
    levels = _sym(terms, z)
    word = labels[i] if labels else ""
    return [Panel("pattern", f"pattern[{h}, {i}, j]", t["pattern", L][h, i][:, None], labels, ("p",),
                  row_axis="key j", kind="sequential", levels=(0.0, 1.0)),
            Panel("v", f"v[j, {h}]", t["v", L][:, h], labels, dh, col_axis="d_head"),
            Panel("terms", f"pattern[{h}, {i}, j] · v[j, {h}]", terms, labels, dh, col_axis="d_head", levels=levels),
            Panel("z", f"z[{i}, {h}] = Σ_j (column sums)", z[None, :], (f"i={i} {word}",), dh, col_axis="d_head",
                  levels=levels)]


def _shared(panels: list[Panel], names: tuple[str, ...]) -> list[Panel]:
    """One colour scale for the named panels (so their colours compare)."""
    chosen = [p for p in panels if p.name in names]
    levels = _sym(*(p.values for p in chosen))
    return [Panel(**{**p.__dict__, "levels": levels}) if p.name in names else p for p in panels]


def _grid(n: int, columns: int) -> tuple[tuple[int, int, int, int], ...]:
    return tuple((k // columns, k % columns, 1, 1) for k in range(n))


# name -> (description, builder(result, sel) -> (panels, columns, grid or None, panel size, column stretch))
Composer = Callable[[object, object], tuple]


def _composed_block(result, sel):
    names = ("resid_pre", "ln1_out", "q", "k", "v",
             "attn_scores", "pattern", "z", "attn_out", "resid_mid",
             "ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post")
    panels = _shared([_panel(n, result, sel) for n in names], ("q", "k", "v"))
    return panels, 5, None, (300, 280), ()


def _composed(names: tuple[str, ...], columns: int, shared: tuple[tuple[str, ...], ...] = (),
              size=(360, 320), stretch=()) -> Composer:
    def build(result, sel):
        panels = [_panel(n, result, sel) for n in names]
        for group in shared:
            panels = _shared(panels, group)
        return panels, columns, None, size, stretch
    return build


def _composed_scores(result, sel):
    panels = [_panel(n, result, sel) for n in ("attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern")]
    if sel.lock_scales:
        panels = _shared(panels, ("attn_scores_raw", "attn_scores_scaled", "attn_scores"))
    return panels, 2, None, (380, 340), ()


def _composed_all_heads(result, sel):
    n = result.inputs.config.n_heads
    panels = []
    for h in range(n):
        p = _panel("pattern", result, dataclasses.replace(sel, head=h))
        panels.append(Panel(**{**p.__dict__, "name": f"pattern/{h}", "title": f"pattern, head {h}"}))
    columns = min(n, 4)
    return panels, columns, None, (340, 310), ()


COMPOSED_VIEWS: dict[str, tuple[str, Composer]] = {
    "embeddings": ("station: embed, pos_embed, resid_pre (layer 0)",
                   lambda r, s: ([_panel("embed", r, s), _panel("pos_embed", r, s),
                                  _panel("resid_pre", r, _layer0(s))], 3, None, (360, 320), ())),
    "layernorm": ("station: resid_pre, ln1_mean, ln1_var, ln1_out",
                  _composed(("resid_pre", "ln1_mean", "ln1_var", "ln1_out"), 4, size=(300, 340))),
    "projections": ("station: W_Q, W_K, W_V over q, k, v (one colour scale each row)",
                    _composed(("W_Q", "W_K", "W_V", "q", "k", "v"), 3,
                              shared=(("W_Q", "W_K", "W_V"), ("q", "k", "v")))),
    "scores": ("station: attn_scores_raw, attn_scores_scaled, attn_scores, pattern", _composed_scores),
    "softmax": ("station: one query's attn_scores row and its pattern row",
                lambda r, s: (_softmax_rows(r, s), 1, None, (640, 150), ())),
    "weighted_sum": ("station: pattern row, v, the terms pattern·v, z",
                     lambda r, s: (_weighted_sum(r, s), 4, ((0, 0, 1, 1), (0, 1, 1, 1), (0, 2, 1, 1), (1, 2, 1, 1)),
                                   (340, 250), ())),
    "heads": ("station: z_concat, W_O, result, attn_out, resid_mid",
              _composed(("z_concat", "W_O", "result", "attn_out", "resid_mid"), 3, shared=(("result", "attn_out"),))),
    "mlp": ("station: ln2_out, mlp_pre, mlp_post, mlp_out, resid_post",
            _composed(("ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post"), 3,
                      shared=(("mlp_pre", "mlp_post"),))),
    "block": ("the whole block for one head: 15 panels from resid_pre to resid_post", _composed_block),
    "all_heads": ("pattern of every head in the layer", _composed_all_heads),
}


# composed view -> (depends on the layer, depends on the head), for the figure title
COMPOSED_NEEDS = {"embeddings": (False, False), "layernorm": (True, False), "mlp": (True, False),
                  "all_heads": (True, False)}
COMPOSED_NEEDS.update({k: (True, True) for k in COMPOSED_VIEWS if k not in COMPOSED_NEEDS})


def _layer0(sel):
    return dataclasses.replace(sel, layer=0)


def view_names() -> list[str]:
    return list(SINGLE_VIEWS) + list(COMPOSED_VIEWS)


def canonical(view: str) -> str:
    return ALIASES.get(view, view)


def is_single(view: str) -> bool:
    return canonical(view) in SINGLE_VIEWS


def describe_views() -> str:
    """A help text listing every view name (CLI --help, docs)."""
    single = ", ".join(SINGLE_VIEWS)
    composed = "; ".join(f"{k} ({d})" for k, (d, _) in COMPOSED_VIEWS.items())
    return f"single views: {single} (aliases: ln1 = ln1_out, ln2 = ln2_out). composed figures: {composed}."


def views_help(width: int = 100) -> str:
    """Every view name, for `qkv-lab export --help`: single views wrapped, composed ones a line each."""
    import textwrap

    single = textwrap.fill(", ".join(SINGLE_VIEWS) + " (aliases: ln1 = ln1_out, ln2 = ln2_out)", width,
                           initial_indent="  ", subsequent_indent="  ")
    composed = "\n".join(f"  {name:<13}{text}" for name, (text, _) in COMPOSED_VIEWS.items())
    return ("single views (one matrix; --layer and --head pick it, e.g. pattern = pattern[layer][head]):\n"
            f"{single}\ncomposed figures (several panels; SVG/PDF/PNG only):\n{composed}")


def figure_title(view: str, result, sel) -> tuple[str, str]:
    """(heading, subtitle): "pattern · toy · layer 0 · head 1" and the tokens in quotes."""
    cfg, inputs = result.inputs.config, result.inputs
    name = inputs.preset if inputs.preset != "custom" else "custom"
    parts = [view, name]
    needs_layer, needs_head = SINGLE_VIEWS[view][1:] if view in SINGLE_VIEWS else COMPOSED_NEEDS[view]
    if needs_layer and cfg.n_layers > 1:
        parts.append(f"layer {sel.layer}")
    if needs_head and cfg.n_heads > 1:
        parts.append(f"head {sel.head}")
    text = " ".join(result.labels)
    if len(text) > 80:
        text = text[:77] + "…"
    subtitle = f"“{text}”" if text else ""
    if name != "toy" and getattr(inputs, "weights", "") == "random":   # noise, not the real model's attention
        subtitle = " · ".join(filter(None, (subtitle, f"random weights (seed {inputs.seed})")))
    return " · ".join(parts), subtitle


def figure_spec(view: str, result, sel) -> FigureSpec:
    """The panels of a view for this result and selection (KeyError for an unknown view)."""
    view = canonical(view)
    if view in SINGLE_VIEWS:
        panel = _panel(view, result, sel)
        rows, cols = panel.values.shape if panel.values.ndim == 2 else (1, panel.values.size)
        # Column vectors and single rows get a narrow / short figure; matrices a near-square one.
        size = (220, 480) if cols == 1 else (640, 200) if rows == 1 else (560, 500)
        title, subtitle = figure_title(view, result, sel)
        return FigureSpec(view, title, (panel,), ((0, 0, 1, 1),), 1, 1, size, subtitle=subtitle)
    if view not in COMPOSED_VIEWS:
        raise KeyError(view)
    panels, columns, grid, size, stretch = COMPOSED_VIEWS[view][1](result, sel)
    grid = grid or _grid(len(panels), columns)
    n_rows = max(r + rs for r, _, rs, _ in grid)
    n_cols = max(c + cs for _, c, _, cs in grid)
    title, subtitle = figure_title(view, result, sel)
    return FigureSpec(view, title, tuple(panels), grid, n_cols, n_rows, size, stretch, subtitle)


MAX_PANEL_PX = 900                                # beyond this, labels thin out (index:word)


def natural_size(spec: FigureSpec, style: FigureStyle) -> tuple[int, int]:
    """Logical size (px at 96 dpi) that suits the figure; larger fonts get larger panels."""
    scale = max(1.0, style.font_pt / 10.0)
    pw, ph = spec.panel_size
    # Wide enough that every column label fits (no thinning of the tokens), within reason.
    font = QFont()
    font.setPointSizeF(style.font_pt)
    metrics = QFontMetricsF(font)
    need, square = 0.0, False
    for panel, (_, _, _, cs) in zip(spec.panels, spec.grid, strict=True):
        rows, cols = panel.values.shape
        if all(t.isdigit() or "·" in t for t in panel.cols):
            continue                              # index columns may thin out (every 2nd, 5th …)
        cell = max((metrics.horizontalAdvance(t) for t in panel.cols), default=0.0) + 12
        side = max((metrics.horizontalAdvance(t) for t in panel.rows), default=0.0)
        need = max(need, (cols * cell + side + 11 * style.font_pt + 30) / cs / scale)
        square = square or (rows == cols and rows > 1)
    grown = min(max(pw, need), MAX_PANEL_PX)
    if grown > pw and square:
        ph = ph * grown / pw                      # keep T×T cells square-ish
    pw = grown
    width = pw * spec.columns
    title_h = 0.0
    if style.title:
        for text, size, bold in _title_lines(spec, style):
            font = QFont()
            font.setPointSizeF(size)
            font.setBold(bold)
            metrics = QFontMetricsF(font)
            width = max(width, metrics.horizontalAdvance(text) / scale + 40)   # never clip the title
            title_h += metrics.height() / scale + 4
    return int(round(width * scale)), int(round((ph * spec.rows + title_h + 8) * scale))


def _title_lines(spec: FigureSpec, style: FigureStyle) -> list[tuple[str, float, bool]]:
    lines = [(spec.title, style.font_pt * 1.3, True)]
    if spec.subtitle:
        lines.append((spec.subtitle, style.font_pt * 1.1, False))
    return lines


def title_html(spec: FigureSpec, style: FigureStyle) -> str:
    lines = _title_lines(spec, style)
    parts = [f"<div align='center' style='font-size:{size:.1f}pt; font-weight:{'bold' if bold else 'normal'}'>"
             f"{html.escape(text)}</div>" for text, size, bold in lines]
    return "".join(parts)


# -- drawing ----------------------------------------------------------------------------------------
# Few-cell images are handed to the plot nearest-neighbour enlarged: SVG and PDF viewers smooth a
# 6×6 bitmap into a blur; a 600×600 one stays crisp cells.
CRISP_PIXELS = 600
CRISP_MAX = 4_000_000


class FigureWidget(pg.GraphicsLayoutWidget):
    """Draws a FigureSpec in a FigureStyle: a title over a grid of MatrixPlots."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plots: dict[str, MatrixPlot] = {}
        self.title_label = None
        self.spec: FigureSpec | None = None
        self.style: FigureStyle | None = None

    def show_figure(self, spec: FigureSpec, style: FigureStyle) -> None:
        self.spec, self.style = spec, style
        pal = style.palette
        self.ci.clear()
        self.plots = {}
        self.hatches: list[LineHatch] = []
        self.setBackground(pal.background)
        self.ci.setContentsMargins(8, 8, 8, 8)
        self.ci.setSpacing(max(10, style.font_pt * 1.2))
        top = 0
        self.title_label = None
        if style.title and spec.title:
            self.title_label = self.ci.addLabel(title_html(spec, style), row=0, col=0, colspan=spec.columns,
                                                color=pal.foreground)
            item = self.title_label.item        # centre each line under the widest one
            item.setTextWidth(item.document().idealWidth())
            top = 1
        for panel, (r, c, rs, cs) in zip(spec.panels, spec.grid, strict=True):
            mp = MatrixPlot(self.ci, top + r, c, panel.title, kind=panel.kind, row_axis=panel.row_axis,
                            col_axis=panel.col_axis, palette=pal, rowspan=rs, colspan=cs)
            mp.apply_style(pal, cmap=style.cmap_for(panel.kind), font_pt=style.font_pt, line_scale=style.line_scale)
            mp.show_values = style.show_values
            mp.set_data(panel.values, panel.rows, panel.cols, masked=panel.masked, levels=panel.levels,
                        masked_text=panel.masked_text, stairs=False)
            _crisp(mp)
            # Stretch factors only share out spare room: cap a single column / row instead.
            rows, cols = mp.values.shape
            scale = max(1.0, style.font_pt / 10.0)
            if cols == 1 and spec.columns > 1:
                mp.plot.setMaximumWidth(190 * scale)
            if rows == 1 and spec.rows > 1:
                mp.plot.setMaximumHeight(150 * scale)
            if panel.masked is not None and panel.masked.any():
                # Qt's pattern brushes come out as grey blocks in SVG viewers: hatch with lines.
                mp.hatch.setBrush(QBrush(Qt.BrushStyle.NoBrush))
                hatch = LineHatch(mp.hatch.rect(), "#aeb2b7" if style.theme == "light" else pal.masked)
                mp.plot.addItem(hatch)
                self.hatches.append(hatch)
            self.plots[panel.name] = mp
        for col, stretch in enumerate(spec.col_stretch):
            self.ci.layout.setColumnStretchFactor(col, stretch)

    @contextmanager
    def rendering_at(self, scale: float):
        """Numbers in cells are sized in device pixels: scale them with an enlarged render."""
        items = [mp.text for mp in self.plots.values()] + self.hatches
        for item in items:
            item.px_scale = scale
        try:
            yield
        finally:
            for item in items:
                item.px_scale = 1.0


class LineHatch(pg.GraphicsObject):
    """Diagonal lines over a rectangle, under the image: they show through the masked (NaN)
    cells. Plain lines survive every format, unlike a pattern brush."""

    SPACING_PX = 7.0

    def __init__(self, rect: QRectF, colour: str):
        super().__init__()
        self._rect = QRectF(rect)
        self._colour = QColor(colour)
        self.px_scale = 1.0
        self.setZValue(-10)

    def boundingRect(self) -> QRectF:
        return self._rect

    @safe_paint
    def paint(self, p, *args) -> None:
        r = p.transform().mapRect(self._rect)
        if r.isEmpty():
            return
        p.save()
        p.resetTransform()
        pen = QPen(self._colour, 0.8 * self.px_scale)
        p.setPen(pen)
        step = self.SPACING_PX * self.px_scale
        left, top, right, bottom = r.left(), r.top(), r.right(), r.bottom()
        c = math.ceil((left + top) / step) * step         # lines x + y = c ("/" on screen)
        lines = []
        while c <= right + bottom:
            x0, x1 = max(left, c - bottom), min(right, c - top)
            if x1 > x0:
                lines.append(QLineF(x0, c - x0, x1, c - x1))
            c += step
        p.drawLines(lines)
        p.restore()


def _crisp(mp: MatrixPlot) -> None:
    image = mp.image.image
    if image is None or mp.values is None or image.size == 0:
        return
    rows, cols = image.shape[:2]
    k = max(1, math.ceil(CRISP_PIXELS / max(1, min(rows, cols))))
    while k > 1 and rows * cols * k * k > CRISP_MAX:
        k -= 1
    if k == 1:
        return
    big = np.repeat(np.repeat(image, k, axis=0), k, axis=1)
    full_rows, full_cols = mp.values.shape
    mp.image.setImage(big, levels=mp.levels, autoLevels=False)
    mp.image.setRect(QRectF(-0.5, -0.5, full_cols, full_rows))


__all__ = ["ALIASES", "COMPOSED_VIEWS", "FigureSpec", "FigureStyle", "FigureWidget", "Panel", "SINGLE_VIEWS",
           "canonical", "describe_views", "figure_spec", "figure_title", "is_single", "natural_size", "view_names"]
