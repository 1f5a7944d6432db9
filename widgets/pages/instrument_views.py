"""What the modern-attention instrument pages show, once, for the screen and for figures alike
(the instruments' counterpart of widgets/views.py).
Each page's row in widgets/pages/ (modern.py: PAGES) names its function here.

Each `*_views(result, sel, ...)` picks the heatmaps (`widgets.views.Panel`) and charts
(`widgets.charts.Chart`) of a page from numbers compute made (compute.instruments.rope_lab, shared_kv,
receptive, tiled_softmax, ab): where they sit, which link to the query and key, and the line of
numbers under them. The page on screen (widgets/modern.py) and its exported figure
(widgets/figure.py) both draw exactly these.

`extra` is what app/ computed off the UI thread for the page (the run without the first token,
A/B's side B); a figure, which has no app, computes it here (`compute_missing=True`).
"""
from __future__ import annotations

import dataclasses
import html
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from compute.instruments import ab, receptive, rope_lab, shared_kv
from compute.instruments import tiled_softmax as tiled
from compute.memory import fmt_bytes

from ..charts import CATEGORY, Chart, Series
from ..i18n import QT_TR_NOOP, localise_number, message, num, tr
from ..theme import OTHER, OTHER2, PLAIN, RESCALE
from ..views import Panel, idx_labels, panel, pattern_levels, symmetric_levels

QK = ("query", "key")


@dataclass(frozen=True)
class Item:
    """One panel or chart of a page and its place (row, col, spans). `roles` say what a panel's
    rows and columns are ("query", "key"); `row_offset`: row 0 is query `row_offset` (a block of
    rows). `boxes`: rectangles (x, y, width, height in cell units) drawn over a panel."""

    view: Any                                  # Panel | Chart
    row: int
    col: int
    rowspan: int = 1
    colspan: int = 1
    roles: tuple[str | None, str | None] = (None, None)
    row_offset: int = 0
    boxes: tuple[tuple[float, float, float, float], ...] = ()
    colorbar: bool = True
    box_colour: str = "foreground"             # a palette name or a theme colour (the mask's answer: WARN)
    bare: tuple[str, ...] = ()                 # on screen: the sides drawn without tick labels ("left": the panel
                                               # on its left names its rows); both: a strip that asks for no height


@dataclass(frozen=True)
class PageViews:
    key: str
    items: tuple[Item, ...]
    text: str = ""                             # the line of numbers under the views (HTML)
    shapes: str = ""                           # the header's sizes line
    col_stretch: tuple[int, ...] = ()
    row_stretch: tuple[int, ...] = ()
    panel_size: tuple[int, int] = (360, 320)   # a figure's px per grid cell at 10 pt
    waiting: str = ""                          # what app/ is still computing ("" = all here)

    @property
    def columns(self) -> int:
        return max((i.col + i.colspan for i in self.items), default=1)

    def data(self) -> dict[str, np.ndarray]:
        return {i.view.name: np.asarray(i.view.values) for i in self.items}


# The page headers' equations (HTML).
FORMULAS = {
    "rope": "q_rot = R(i·θ_d) q per pair (d, d + r/2), θ_d = θ^(−2d/r);&nbsp; "
            "q_rot·k_rot = Σ_d |q_d||k_d| cos(φ_d + (i − j)θ_d)",
    "shared_kv": "query head h reads K/V head h // (n_heads / n_kv_heads):&nbsp; scores_h = q_h · k_gᵀ",
    "windows": "a window W: query i sees keys i − W &lt; j ≤ i;&nbsp; after L such layers it has read "
               "positions down to i − L·(W − 1)",
    "tiled_softmax": "m ← max(m, max S);&nbsp; ℓ ← e^(m_old − m)·ℓ + Σ e^(S − m);&nbsp; "
                     "o ← e^(m_old − m)·o + e^(S − m)·V;&nbsp; z = o / ℓ",
    "ab": QT_TR_NOOP("the same inputs with one change: A as the lab shows it, B a fresh forward pass, and B − A"),
}
TRANSLATED_FORMULAS = {"ab"}                   # the others are equations: the same in every language


def formula(key: str) -> str:
    """A page header's equation, its words (if any) in the window's language."""
    text = FORMULAS.get(key, "")
    return tr(text) if key in TRANSLATED_FORMULAS else text


class _Local:
    """A number in a template: formatted by its spec, in the reader's decimal separators."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __format__(self, spec: str) -> str:
        return localise_number(format(self.value, spec))


def _t(template: str, **values) -> str:
    """A translatable template filled in: tr() sees the literal text (pyside6-lupdate reads `_t` as
    tr: tools/i18n.py), .format the numbers, each in the reader's decimal separators."""
    local = {k: _Local(v) if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) else v
             for k, v in values.items()}
    return tr(template).format(**local)


# -- RoPE lab -----------------------------------------------------------------------------------------------
def default_key(sel, T: int) -> int:
    """The key j the RoPE lab compares with: the selected key, else the token before the query."""
    return min(max(sel.key if sel.key is not None else sel.query - 1, 0), max(T - 1, 0))


def _arrow(x0, y0, x1, y1, head: float) -> list[tuple[float, float]]:
    """A shaft and two barbs, as segment ends."""
    dx, dy = x1 - x0, y1 - y0
    n = math.hypot(dx, dy)
    pts = [(x0, y0), (x1, y1)]
    if n > 1e-9:
        ux, uy = dx / n, dy / n
        for side in (1, -1):
            bx = x1 - head * (ux * 0.87 - side * uy * 0.5)
            by = y1 - head * (uy * 0.87 + side * ux * 0.5)
            pts += [(x1, y1), (bx, by)]
    return pts


def pairs_chart(v: rope_lab.PairView) -> Chart:
    """Every pair d of q_i and k_j as 2-D arrows, before (dashed) and after the rotation (solid),
    one small circle each; the pair's relative angle (i − j)·θ_d under it."""
    P = len(v.freq)
    cols = min(P, 8)
    nq, nk = v.norms
    circle = np.linspace(0, 2 * np.pi, 49)
    ring_x, ring_y, segs = [], [], {"q": [], "q_rot": [], "k": [], "k_rot": []}
    label_x, label_y, labels = [], [], []
    for d in range(P):
        cx, cy = d % cols, -(d // cols) * 1.5
        ring_x += list(cx + 0.45 * np.cos(circle)) + [np.nan]
        ring_y += list(cy + 0.45 * np.sin(circle)) + [np.nan]
        scale = 0.42 / max(nq[d], nk[d], 1e-30)              # the longer of the two reaches the ring
        for name, vec in (("q", v.q[d]), ("q_rot", v.q_rot[d]), ("k", v.k[d]), ("k_rot", v.k_rot[d])):
            segs[name] += _arrow(cx, cy, cx + vec[0] * scale, cy + vec[1] * scale, 0.09 if "rot" in name else 0.0)
        deg = math.degrees(v.relative[d]) % 360
        label_x += [cx, cx]
        label_y += [cy + 0.56, cy - 0.56]
        labels += [f"d={d}", f"{deg:.0f}°" if deg < 359.5 else "0°"]

    def seg(name, label, colour, width, dashed):
        pts = np.array(segs[name]) if segs[name] else np.zeros((0, 2))
        return Series(label, pts[:, 0], pts[:, 1], style="segments", colour=colour, width=width, dashed=dashed)

    series = (Series("", np.array(ring_x), np.array(ring_y), colour="grid", width=1.0),
              seg("q", "", "accent", 1.2, True), seg("k", "", "accent2", 1.2, True),
              seg("q_rot", f"q_i, i = {v.query}", "accent", 2.4, False),
              seg("k_rot", f"k_j, j = {v.key}", "accent2", 2.4, False),
              Series("", np.array(label_x), np.array(label_y), style="text", colour="muted", size=7.5,
                     texts=tuple(labels)))
    rows = (P + cols - 1) // cols
    return Chart("pairs", _t("{P} pairs (d, d + {half}): dashed before, solid after; (i − j)·θ_d", P=P,
                             half=v.rotary_dim // 2),
                 series, aspect=True, axes=False, x_range=(-0.6, cols - 0.4), y_range=(-(rows - 1) * 1.5 - 0.75, 0.75))


def rope_views(result, sel) -> PageViews:
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    L, h, i, T = sel.layer, sel.head, sel.query, t.T
    scores = panel("attn_scores_raw", result, sel)
    if not cfg.components.positions.rotates:
        pos = panel("pos_embed", result, sel)
        sim = Panel("position_similarity", tr("cos(W_pos[i], W_pos[j]): what W_pos learned"),
                    rope_lab.position_similarity(t["pos_embed"]), tuple(idx_labels(T)), tuple(idx_labels(T)),
                    tr("position i"), tr("position j"),
                    levels=(-1.0, 1.0))
        return PageViews("rope", (Item(scores, 0, 0, roles=QK), Item(pos, 0, 1, roles=("query", None)),
                                  Item(sim, 0, 2, roles=QK)),
                         text=html.escape(message(rope_lab.learned_reason(cfg))),
                         shapes=f"W_pos: [n_ctx, d_model] = [{cfg.n_ctx:,}, {cfg.d_model:,}] · T = {T}")
    j = default_key(sel, T)
    scores = dataclasses.replace(scores, title=_t("attn_scores_raw[{h}]: click a key j", h=h))
    v = rope_lab.pair_view(t, L, h, i, j)
    P = len(v.freq)
    d = np.arange(P, dtype=np.float64)
    contrib = Chart("contributions", f"Σ_d q_rot·k_rot = {num(v.score, '.4g')}"
                    + (_t(" (+ {rest:.3g} unrotated)", rest=v.rest) if v.rotary_dim < v.d_head else ""),
                    (Series(tr("after RoPE"), d, v.contributions, style="bars", colour=OTHER, width=0.7),
                     Series(tr("without RoPE"), d, v.unrotated, style="points", colour="muted", size=7)),
                    x_axis=tr("pair d"), y_axis="q_rot[d]·k_rot[d]")
    rel = np.abs(v.relative)
    angle = Chart("angles", tr("θ_d: radians per position"),
                  (Series("θ_d", d, v.freq, style="bars", colour=OTHER, width=0.7),)
                  + ((Series("|i − j|·θ_d", d, rel, style="points", colour=OTHER2, size=7),)
                     if i != j else ()), x_axis=tr("pair d (fast … slow)"), y_axis=tr("radians"), log_y=True)
    far = int(min(max(64, 4 * T), cfg.n_ctx))
    steps = np.arange(0, far + 1, dtype=np.float64)
    shifted = rope_lab.shifted_scores(v, steps)                               # [n]
    moved = rope_lab.distance_scores(v, (i - j) + steps)                      # [n]
    drift = float(np.abs(shifted - v.score).max())
    move = Chart("move", tr("score when positions move by Δ"),
                 (Series("i + Δ, j + Δ", steps, shifted, colour=OTHER2, width=2.5),
                  Series(tr("only j − Δ"), steps, moved, colour=OTHER, width=1.6),
                  Series("", np.array([0.0]), np.array([v.score]), style="points", colour="foreground", size=9)),
                 x_axis=tr("Δ (positions)"), y_axis="q_rot·k_rot")
    masked = j > i and cfg.causal
    text = (_t("Moving both positions by Δ changes the score by at most {drift:.0e}; moving only the key "
               "changes it by up to {swing:.3g}. Query i = {i} “{qi}”, key j = {j} “{kj}”, head {h} (reads K/V "
               "head {g}), layer {L}: θ = {theta:g}, rotary_dim = {r} of d_head = {dh}. The pairs' shares add up "
               "to <b>{score:.5g}</b> = attn_scores_raw[{h}, {i}, {j}] (the model: {model:.5g}); ÷ √d_head → "
               "{scaled:.4g}", drift=drift, swing=np.ptp(moved), i=i, qi=html.escape(labels[i]), j=j,
               kj=html.escape(labels[j]), h=h, g=v.kv_head, L=L, theta=cfg.rope_theta, r=v.rotary_dim,
               dh=v.d_head, score=v.score, model=float(t.read("attn_scores_raw", L, head=h, rows=i, cols=j)),
               scaled=v.score * v.scale)
            + (tr(" — the mask forbids this key (j &gt; i)") if masked else "") + tr(". Every arrow keeps its length."))
    return PageViews("rope", (Item(scores, 0, 0, roles=QK), Item(pairs_chart(v), 0, 1, colspan=2),
                              Item(contrib, 1, 0), Item(angle, 1, 1), Item(move, 1, 2)),
                     text=text, col_stretch=(3, 3, 3), row_stretch=(5, 4),
                     shapes=f"q, k: [T, heads, d_head] = [{T}, {cfg.n_heads}/{cfg.n_kv_heads}, {cfg.d_head}] · "
                            + _t("{P} rotated pairs per head · θ_d from 1 to {low:.1e} rad per position", P=P,
                                 low=float(v.freq[-1])))


# -- shared K/V heads ---------------------------------------------------------------------------------------
def heads_chart(cfg, head: int) -> Chart:
    """Query heads (top) joined to the K/V head each reads (bottom), coloured by group."""
    H, KV = cfg.n_heads, cfg.n_kv_heads
    kv_of = shared_kv.kv_of(cfg)
    xq = np.arange(H, dtype=np.float64)
    xkv = np.array([(g + 0.5) * cfg.n_groups - 0.5 for g in range(KV)])
    colours = tuple(CATEGORY[g % len(CATEGORY)] for g in kv_of)
    ends = np.array([p for h in range(H) for p in ((xq[h], 1.0), (xkv[kv_of[h]], 0.0))])
    big = 16 if H <= 32 else 7
    series = [Series("", ends[:, 0], ends[:, 1], style="segments", colour="muted", width=1.2),
              Series("", np.array([xq[head]]), np.array([1.0]), style="points", colour="foreground", size=big + 8),
              Series(tr("query heads"), xq, np.ones(H), style="points", colour="accent", size=big,
                     colours=colours),
              Series(tr("K/V heads"), xkv, np.zeros(KV), style="points", colour="accent2", size=22 if KV <= 16 else 9,
                     colours=tuple(CATEGORY[g % len(CATEGORY)] for g in range(KV))),
              Series("", np.array([xq[head]]), np.array([1.5]), style="text", colour="foreground",
                     texts=(f"h{head}",), size=10)]
    # Names clear of the nodes: the query heads' above their ring, the K/V heads' below theirs.
    if H <= 32:
        series.append(Series("", xq, np.full(H, 1.5), style="text", colour="muted", size=9,
                             texts=tuple(f"h{h}" if h != head else "" for h in range(H))))
    if KV <= 16:
        series.append(Series("", xkv, np.full(KV, -0.55), style="text", colour="muted", size=9,
                             texts=tuple(f"K/V {g}" for g in range(KV))))
    return Chart("heads", _t("{H} query heads read {KV} K/V heads ({n} per group)", H=H, KV=KV, n=cfg.n_groups),
                 tuple(series),
                 axes=False, legend=False, x_range=(-0.8, H - 0.2), y_range=(-0.85, 1.75))


def _bar_note(n: int, what_if: int, own: int) -> str:
    if n == own:
        return "\n" + tr("(this model)")
    return "\n" + tr("(what if)") if n == what_if else ""


def cache_chart(cfg, T: int, what_if: int) -> Chart:
    choices = shared_kv.kv_choices(cfg)
    meters = [shared_kv.cache_meter(cfg, T, n) for n in choices]
    x = np.arange(len(choices), dtype=np.float64)
    full = np.array([m.bytes_full for m in meters], np.float64)               # [choices] bytes
    unit, size = next((u, b) for u, b in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("bytes", 1))
                      if full.max() >= b)
    mib = full / size
    colours = tuple(OTHER if n == what_if else OTHER2 if n == cfg.n_kv_heads else PLAIN for n in choices)
    m = shared_kv.cache_meter(cfg, T, what_if)
    return Chart("cache", _t("K/V cache at n_ctx = {n:,}, fp16: {ratio:.3g}× less than {H} heads", n=cfg.n_ctx,
                             ratio=m.ratio, H=cfg.n_heads),
                 (Series("", x, mib, style="bars", colour=PLAIN, width=0.7, colours=colours),
                  Series("", x, mib + 0.17 * float(mib.max()), style="text", colour="foreground", size=8,
                         texts=tuple(fmt_bytes(b.bytes_full) + _bar_note(n, what_if, cfg.n_kv_heads)
                                     for n, b in zip(choices, meters, strict=True)))),
                 x_axis="n_kv_heads", y_axis=tr(unit), x_ticks=tuple((float(k), str(n)) for k, n in enumerate(choices)),
                 legend=False, y_range=(0.0, float(mib.max()) * 1.35))


def shared_kv_views(result, sel) -> PageViews:
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    L, h, T = sel.layer, sel.head, t.T
    what_if = sel.kv_heads if sel.kv_heads in shared_kv.kv_choices(cfg) else cfg.n_kv_heads
    g = shared_kv.group(t, L, h)
    shown = g.heads if len(g.heads) <= 4 else tuple(sorted({h, *[x for x in g.heads if x != h][:3]}))
    levels = symmetric_levels(*(g.scores[g.heads.index(x)] for x in shown))
    items = [Item(heads_chart(cfg, h), 0, 0, colspan=2), Item(cache_chart(cfg, T, what_if), 0, 2, colspan=3)]
    for n, x in enumerate(shown):
        s = g.scores[g.heads.index(x)]
        items.append(Item(Panel(f"attn_scores/{x}", _t("head {x}: q_{x} · k_{g}ᵀ", x=x, g=g.kv_head), s, labels,
                                labels,
                                tr("query i") if n == 0 else "", tr("key j"), masked=np.isneginf(s), levels=levels),
                          1, n, roles=QK))
    key_name = cfg.components.cached_key
    items.append(Item(Panel("k", _t("shared keys {k}[:, {g}]", k=key_name, g=g.kv_head), g.k, labels,
                            tuple(idx_labels(cfg.d_head)), tr("key j"), "d_head"), 1, len(shown), roles=("key", None)))
    meter = shared_kv.cache_meter(cfg, T, what_if)
    own = shared_kv.cache_meter(cfg, T)
    together = (_t("Head {h} is in group {g} with heads {heads}: one k and one v for them all, {n} different "
                   "queries, so {n} different score maps over the same keys. ", h=h, g=g.kv_head,
                   heads=", ".join(map(str, g.heads)), n=len(g.heads))
                if len(g.heads) > 1 else _t("Head {h} reads K/V head {g} alone. ", h=h, g=g.kv_head))
    text = together + _t(
        "This model's cache: {now} for these {T} tokens, {full} at n_ctx = {n_ctx:,}. With n_kv_heads = {n}: "
        "{what_if}. <b>MQA</b> (1 K/V head) keeps every head's own queries and pattern and makes the cache {H}× "
        "smaller; it loses the heads' own keys and values — they can differ only by what they ask. Try n_kv_heads "
        "in A/B: the K/V heads are mean-pooled (not retrained).", now=fmt_bytes(own.bytes_now), T=T,
        full=fmt_bytes(own.bytes_full), n_ctx=cfg.n_ctx, n=what_if, what_if=fmt_bytes(meter.bytes_full), H=cfg.n_heads)
    if cfg.n_kv_heads == cfg.n_heads:
        text = _t("Every head has its own K/V head here (n_kv_heads = n_heads = {H}, multi-head). ",
                  H=cfg.n_heads) + text
    return PageViews("shared_kv", tuple(items), text=text, row_stretch=(1, 4), panel_size=(300, 300),
                     shapes=f"k, v: [T, n_kv_heads, d_head] = [{T}, {cfg.n_kv_heads}, {cfg.d_head}] · "
                            f"q: [T, n_heads, d_head] = [{T}, {cfg.n_heads}, {cfg.d_head}]")


# -- windows, banded layers and sinks ---------------------------------------------------------------------------
def default_window(cfg, sel, T: int) -> int:
    if sel.window is not None:
        return max(1, int(sel.window))
    own = [w for w in receptive.model_windows(cfg) if w is not None]
    return own[0] if own else max(2, min(8, T // 3))


@dataclass(frozen=True)
class WithoutFirst:
    """The same model on the tokens after the first one (app/ computes it off the UI thread)."""

    request_id: int
    trace: Any


def without_first(result) -> WithoutFirst | None:
    from compute import forward

    tokens = result.inputs.tokens[1:]
    if not tokens:
        return None
    return WithoutFirst(result.request_id, forward(result.inputs.config, result.weights, tokens,
                                                   backend=result.inputs.backend))


def _reach_panel(name: str, title: str, windows, T: int, i: int, labels) -> Panel:
    r = receptive.reach(windows, T, i).astype(np.float64)                     # [L + 1, T]
    rows = ("input",) + tuple(f"after L{layer}" for layer in range(len(windows)))
    every = max(1, len(rows) // 8)                                            # thin a 31-row axis
    ticks = tuple(x if n % every == 0 or n == len(rows) - 1 else "" for n, x in enumerate(rows))
    return Panel(name, title, r, rows, labels, "", tr("position j"), kind="sequential", levels=(0.0, 1.0),
                 row_ticks=ticks)


def reach_chart(lay: dict, T: int, i: int, W: int) -> Chart:
    """How many positions query i can have read after each layer, for the three layouts."""
    x = np.arange(len(lay["every"]) + 1, dtype=np.float64)
    series = []
    for key, label, colour, width in (("every", "W", OTHER, 3.0),
                                      ("alternating", tr("dense/W"), OTHER2, 2.0),
                                      ("model", tr("model"), "foreground", 1.5)):
        n = receptive.reach(lay[key], T, i).sum(axis=1).astype(np.float64)   # [L + 1]
        series.append(Series(label, x, n, colour=colour, width=width, dashed=key == "model"))
    L = len(lay["every"])
    every = max(1, math.ceil(L / 6))
    return Chart("reach", _t("reach of i = {i}", i=i), tuple(series), x_axis=tr("layers"), y_axis=tr("positions"),
                 x_ticks=tuple((float(n), str(n)) for n in range(0, L + 1, every)), y_range=(0.0, i + 1.5))


def windows_views(result, sel, extra: WithoutFirst | None = None, compute_missing: bool = False) -> PageViews:
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    L, h, i, T = sel.layer, sel.head, sel.query, t.T
    W = default_window(cfg, sel, T)
    scaled = t.read("attn_scores_scaled", L, head=h)                          # [T, T]
    own = cfg.window(L)
    dense, band = receptive.band_pattern(scaled, None, cfg.causal), receptive.band_pattern(scaled, W, cfg.causal)
    top = pattern_levels(np.maximum(dense, band))
    dense_title = _t("layer {L} dense", L=L) if own is None else _t("layer {L}, W = {W} off", L=L, W=own)
    items = [Item(Panel("pattern_dense", dense_title,
                        dense, labels, labels, tr("query i"), tr("key j"), kind="sequential",
                        masked=~receptive.allowed(T, None, cfg.causal), levels=top, masked_text=""), 0, 0, roles=QK),
             Item(Panel("pattern_window", _t("window W = {W}", W=W),
                        band, labels, labels, "", tr("key j"), kind="sequential",
                        masked=~receptive.allowed(T, W, cfg.causal), levels=top, masked_text=""), 0, 1, roles=QK)]
    lay = receptive.layouts(cfg, W)
    reached = {k: int(receptive.reach(v, T, i)[-1].sum()) for k, v in lay.items()}
    items += [Item(_reach_panel("reach_every", _t("reach, W = {W}", W=W), lay["every"], T, i, labels), 0, 2,
                   roles=(None, "key"), colorbar=False),
              Item(reach_chart(lay, T, i, W), 0, 3)]
    shares = receptive.sink_shares(t)                                         # [L, H]
    layer_rows, head_cols = tuple(idx_labels(cfg.n_layers)), tuple(idx_labels(cfg.n_heads))
    uniform = receptive.uniform_share(T)
    items.append(Item(Panel("sink_share", _t("weight on 0 “{w}”", w=labels[0] if labels else ""), shares,
                            layer_rows, head_cols, tr("layer"), tr("head"), kind="sequential", levels=(0.0, 1.0)),
                      1, 0))
    waiting = ""
    if extra is None and compute_missing and T > 1:
        extra = without_first(result)
    if T > 1 and extra is not None and extra.request_id == result.request_id:
        t2 = extra.trace
        shares2 = receptive.sink_shares(t2)
        items.append(Item(Panel("sink_share_without_first", _t("without it: on “{w}”", w=labels[1]),
                                shares2, layer_rows, head_cols, "", tr("head"), kind="sequential", levels=(0.0, 1.0)),
                          1, 1))
        P2 = t2.read("pattern", L, head=h)
        items.append(Item(Panel("pattern_without_first", _t("pattern without “{w}”", w=labels[0]), P2, labels[1:],
                                labels[1:], tr("query i"), tr("key j"), kind="sequential",
                                masked=t2.forbidden(L), levels=pattern_levels(P2), masked_text=""),
                          1, 2, colspan=2, roles=QK, row_offset=1))
        after = _t(" Without “{w}” the new first token takes <b>{share:.0%}</b> on average (uniform: {u:.0%}).",
                   w=html.escape(labels[0]), share=shares2.mean(), u=receptive.uniform_share(T - 1))
    else:
        waiting = tr("the run without the first token") if T > 1 else ""
        after = tr(" (one token only: nothing to remove)") if T <= 1 else tr(" Computing the run without the first "
                                                                               "token…")
    span = receptive.reach_span(lay["every"])
    top_layer, top_head = (int(x) for x in np.unravel_index(shares.argmax(), shares.shape))
    text = _t("Reach: after {L} layers query i = {i} can have read {every} of its {n} positions with W = {W} in "
              "every layer, {alternating} with dense / W alternating, {model} with this model's layers. A window of "
              "W = {W} keys lets query i = {i} see {seen} of its {n} positions; through the residual stream each "
              "windowed layer adds W − 1 = {more} more: after {L} such layers it reaches back {span:,} positions. "
              "Mistral-7B: W = 4,096 in 32 layers reaches back {mistral:,}. GPT-3 alternates dense and banded "
              "layers: one dense layer reaches the start. <b>Sinks</b>: on average the queries put <b>{share:.0%}</b> "
              "of their weight on position 0 (a uniform row would give {u:.0%}); the largest, layer {tl} head {th}: "
              "{top:.0%}.", L=cfg.n_layers, i=i, n=i + 1, W=W, seen=min(W, i + 1), more=W - 1, span=span,
              mistral=receptive.reach_span((4096,) * 32), share=shares.mean(), u=uniform, tl=top_layer, th=top_head,
              top=shares.max(), **reached) + after
    # The sinks' layer × head map is a real model's clearest picture here: the lower row gets more room.
    return PageViews("windows", tuple(items), text=text, waiting=waiting, col_stretch=(5, 5, 4, 6),
                     row_stretch=(2, 3), panel_size=(330, 320),
                     shapes=f"pattern [T, T] = [{T}, {T}] · reach [n_layers + 1, T] = [{cfg.n_layers + 1}, {T}] · "
                            f"sinks [n_layers, n_heads] = [{cfg.n_layers}, {cfg.n_heads}]")


# -- the tiled softmax -------------------------------------------------------------------------------------------
def tile_of(sel, T: int) -> int:
    return max(1, min(int(sel.tile), max(T, 1)))


def tiled_views(result, sel) -> PageViews:
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    L, h, i, T = sel.layer, sel.head, sel.query, t.T
    run = tiled.tiled_run(t, L, h, i, tile_of(sel, T))
    N = len(run.steps)
    n = N if sel.tile_step is None else max(0, min(int(sel.tile_step), N))
    a, b = run.rows
    rows = labels[a:b]
    forbidden = np.isneginf(run.scores)
    boxes = ()
    if 0 < n:
        ka, kb = run.steps[n - 1].keys
        boxes = ((ka - 0.5, -0.5, kb - ka, b - a),)
    now = run.steps[n - 1] if n else None
    title = (_t("scores of queries {a}…{b}; step {n} of {N}: keys {ka}…{kb}", a=a, b=b - 1, n=n, N=N,
                ka=now.keys[0], kb=now.keys[1] - 1) if now
             else _t("scores of queries {a}…{b}: before the first tile", a=a, b=b - 1))
    scores = Panel("attn_scores", title, run.scores, rows, labels, tr("query i"), tr("key j"), masked=forbidden)
    running = run.pattern_after(n)
    pattern_rows = np.asarray(t.read("pattern", L, head=h, rows=slice(a, b)), np.float64)   # the model's
    diff = running - pattern_rows
    seen = np.isfinite(diff)
    worst = float(np.abs(diff[seen]).max()) if seen.any() else 0.0
    levels = pattern_levels(pattern_rows)
    r = i - a                                                                 # the selected query's row
    steps = np.arange(1, N + 1, dtype=np.float64)
    m = np.array([s.m[r] for s in run.steps])
    m = np.where(np.isfinite(m), m, np.nan)                                   # nothing seen yet: no max
    ell = np.array([s.ell[r] for s in run.steps])
    rescale = np.array([s.rescale[r] for s in run.steps])
    done = steps <= n
    top = 1.6 * max(1.0, float(np.nanmax(np.r_[m, ell, rescale])))
    bottom = min(0.0, float(np.nanmin(m, initial=0.0)))
    gap = 0.08 * (top - bottom)                                               # labels beside their points
    step_ticks = tuple((float(s), str(int(s))) for s in steps) if N <= 16 else None
    m_chart = Chart("running", _t("query {i}, tile by tile", i=i),
                    (Series("rescale", steps[done], rescale[done], style="bars", colour=RESCALE, width=0.6),
                     Series("m", steps[done], m[done], style="line", colour=OTHER, width=2.5),
                     Series("", steps[done], m[done], style="points", colour=OTHER, size=9),
                     Series("ℓ", steps[done], ell[done], style="line", colour=OTHER2, width=2.5),
                     Series("", steps[done], ell[done], style="points", colour=OTHER2, size=9),
                     Series("", steps[done], np.nan_to_num(m[done]) + gap, style="text", colour=OTHER, size=8,
                            texts=tuple(num(x, ".3g") for x in m[done])),
                     Series("", steps[done], ell[done] - gap, style="text", colour=OTHER2, size=8,
                            texts=tuple(num(x, ".3g") for x in ell[done]))),
                    x_axis=tr("step (tile)"), x_ticks=step_ticks, x_range=(0.4, N + 0.6),
                    y_range=(bottom - 2 * gap, top))
    tiled_bytes = np.cumsum([s.bytes_read + s.bytes_written for s in run.steps]).astype(np.float64) / 1024
    # A short title: the chart has a quarter of the width (the totals are in the text under the page).
    memory = Chart("memory", tr("memory traffic"),
                   (Series("tiled", steps, tiled_bytes, style="bars", colour=OTHER2,
                           width=0.6, colours=tuple(OTHER2 if s <= n else PLAIN for s in steps)),
                    Series("materialised", np.array([0.4, N + 0.6]),
                           np.full(2, run.bytes_materialised / 1024), colour=OTHER, width=2.0, dashed=True)),
                   x_axis=tr("step (tile)"), y_axis="KiB", x_range=(0.4, N + 0.6),
                   x_ticks=tuple((float(s), str(int(s))) for s in steps) if N <= 16 else None,
                   y_range=(0.0, max(run.bytes_materialised, run.bytes_tiled) / 1024 * 1.45))
    # Two rows, not three: a [B_r, T] block is a few rows tall, and a third row left each map a
    # sliver on a projector. The scores and the bytes moved on top, the softmax rows and m, ℓ under.
    items = (Item(scores, 0, 0, colspan=3, roles=QK, row_offset=a, boxes=boxes),
             Item(m_chart, 1, 3),
             Item(Panel("pattern_tiled", _t("running e^(S − m)/ℓ, step {n}", n=n), running, rows,
                        labels, tr("query i"), tr("key j"), kind="sequential", masked=~np.isfinite(running) | forbidden,
                        levels=levels, masked_text=""), 1, 0, roles=QK, row_offset=a, boxes=boxes),
             Item(Panel("pattern", tr("pattern (materialised)"), pattern_rows, rows, labels, "", tr("key j"),
                        kind="sequential", masked=forbidden, levels=levels, masked_text=""), 1, 1, roles=QK,
                  row_offset=a),
             Item(Panel("difference", _t("difference: max {d:.1e}", d=worst), np.where(seen, diff, np.nan), rows,
                        labels, "", tr("key j"), masked=~seen), 1, 2, roles=QK, row_offset=a),
             Item(memory, 0, 3))
    final = run.pattern_after(N) - pattern_rows                               # after every tile
    final_worst = float(np.abs(final).max()) if N else 0.0
    z_rows = np.asarray(t.read("z", L, head=h, rows=slice(a, b)), np.float64)
    z_diff = float(np.abs(run.output_after(N) - z_rows).max()) if N else 0.0
    Bc = run.tile
    text = (_t("After step {n} of {N} the running rows differ from the pattern by up to {d:.1e}", n=n, N=N, d=worst)
            + (tr(" (ℓ has not seen every key yet). ") if n < N else ". ")
            + _t("Block of B_r = {Br} queries ({a}…{b}), tiles of B_c = {Bc} keys: {N} steps", Br=b - a, a=a,
                 b=b - 1, Bc=Bc, N=N)
            + (_t(", {k} skipped (every key masked)", k=run.skipped) if run.skipped else "")
            + _t(". At any time only a [{Br}, {Bc}] tile of scores exists; the materialised softmax writes [{Br}, {T}] "
                 "scores and as many probabilities to memory and reads them back. After the last tile the running rows "
                 "equal the pattern (max difference {final:.1e}) and o/ℓ equals z (max difference {z:.1e}). Memory "
                 "traffic: tiled <b>{tiled}</b> against materialised <b>{full}</b> (K and V are read either way; the "
                 "saving grows with T). The T×T = {TT:,} scores per head and layer are never stored: at n_ctx = "
                 "{n_ctx:,} they would be {big} per head.", Br=b - a, Bc=Bc, T=T, final=final_worst, z=z_diff,
                 tiled=fmt_bytes(run.bytes_tiled), full=fmt_bytes(run.bytes_materialised), TT=T * T, n_ctx=cfg.n_ctx,
                 big=fmt_bytes(tiled.ITEMSIZE * cfg.n_ctx ** 2)))
    return PageViews("tiled_softmax", items, text=text, col_stretch=(4, 4, 4, 5), row_stretch=(1, 1),
                     panel_size=(360, 260),
                     shapes=f"q block [B_r, d_head] = [{b - a}, {cfg.d_head}] · K, V tiles [B_c, d_head] = "
                            f"[{Bc}, {cfg.d_head}] · m, ℓ [B_r]")


# -- A/B ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Side:
    """A/B's side B, computed for A's request (app/ runs it off the UI thread)."""

    request_id: int
    condition: tuple
    edited: Any                                # compute.instruments.ab.Edited (None when it failed)
    trace: Any                                 # its Trace
    error: str = ""                            # why B could not be computed


def condition_of(sel, cfg) -> tuple:
    if sel.ab is not None:
        return tuple(sel.ab)
    return ab.default_condition("scaling_off", cfg, sel.head, sel.query)


def side_b(result, condition: tuple) -> Side:
    """B for `result` under `condition`, computed now (a figure; app/ does it off the UI thread)."""
    from compute import trained_toy_weights

    inputs = result.inputs
    edited, trace = ab.run(inputs.config, result.weights, inputs.tokens, condition, backend=inputs.backend,
                           a=result.trace, seed=inputs.seed, trained=trained_toy_weights)
    return Side(result.request_id, tuple(condition), edited, trace)


def _next_tokens(result, a, b, i: int, T_b: int) -> str:
    """'The next token after i: A “x” (p), B “y” (p)' from both Traces' logits rows at i."""
    def top(trace) -> tuple[str, float]:
        logits = np.asarray(trace.logits_rows([i])[0], np.float64)          # [d_vocab]
        p = np.exp(logits - logits.max())
        j = int(np.argmax(p))
        return result.token_label(j), float(p[j] / p.sum())

    if not 0 <= i < min(a.T, T_b):
        return ""
    (wa, pa), (wb, pb) = top(a), top(b)
    return _t("The next token after query {i}: A “{wa}” ({pa:.2f}), B “{wb}” ({pb:.2f}).", i=i,
              wa=html.escape(wa), pa=pa, wb=html.escape(wb), pb=pb)


def ab_views(result, sel, extra: Side | None = None, compute_missing: bool = False) -> PageViews:
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    L, h, i, T = sel.layer, sel.head, sel.query, t.T
    condition = condition_of(sel, cfg)
    if extra is None and compute_missing:
        extra = side_b(result, condition)
    sA, pA = t.read("attn_scores", L, head=h), t.read("pattern", L, head=h)
    a_items = [Panel("attn_scores/A", f"A: attn_scores[{h}]", sA, labels, labels, tr("query i"), tr("key j"),
                     masked=np.isneginf(sA)),
               Panel("pattern/A", f"A: pattern[{h}]", pA, labels, labels, tr("query i"), tr("key j"), kind="sequential",
                     masked=np.isneginf(sA), masked_text="")]
    if extra is None or extra.request_id != result.request_id or tuple(extra.condition) != condition or extra.error:
        items = (Item(a_items[0], 0, 0, roles=QK), Item(a_items[1], 1, 0, roles=QK))
        if extra is not None and extra.error and (extra.request_id, tuple(extra.condition)) == (result.request_id,
                                                                                      condition):
            return PageViews("ab", items, text=_t("B cannot be computed: {why}", why=html.escape(extra.error)),
                             shapes=f"[T, T] = [{T}, {T}]")
        # A where and as large as it will be beside B, B's places held (blank, named): nothing moves
        # when B arrives, and A is the lesson until then.
        blank, later = np.zeros_like(sA), tr("B: computing…")
        items += tuple(Item(Panel(f"{name}/{side}", later if side == "B" else "B − A", blank, labels, labels, "",
                                  tr("key j"), kind="sequential" if name == "pattern" and side == "B" else "diverging",
                                  levels=(0.0, 1.0) if name == "pattern" else symmetric_levels(sA)), r, c, roles=QK)
                       for r, name in enumerate(("attn_scores", "pattern")) for c, side in ((1, "B"), (2, "B-A")))
        return PageViews("ab", items, text=tr("Computing B…"), waiting=tr("side B"), shapes=f"[T, T] = [{T}, {T}]")
    tb, e = extra.trace, extra.edited
    hb = e.head if e.head is not None else min(h, e.cfg.n_heads - 1)
    labels_b = tuple(result.token_label(int(x)) for x in e.tokens)
    sB, pB = tb.read("attn_scores", L, head=hb), tb.read("pattern", L, head=hb)
    s_levels = symmetric_levels(sA, sB)
    p_levels = pattern_levels(np.maximum(pA, pB))
    ds, ds_undefined = ab.difference(sA, sB)
    dp, _ = ab.difference(pA, pB)
    a_items[0] = dataclasses.replace(a_items[0], levels=s_levels)
    a_items[1] = dataclasses.replace(a_items[1], levels=p_levels)
    bh = f"[{hb}]"
    items = (Item(a_items[0], 0, 0, roles=QK),
             Item(Panel("attn_scores/B", f"B: attn_scores{bh}", sB, labels_b, labels_b, "", tr("key j"),
                        masked=np.isneginf(sB), levels=s_levels), 0, 1, roles=QK),
             Item(Panel("attn_scores/B-A", "B − A", ds, labels, labels, "", tr("key j"),
                        masked=ds_undefined, masked_text=""), 0, 2, roles=QK),
             Item(a_items[1], 1, 0, roles=QK),
             Item(Panel("pattern/B", f"B: pattern{bh}", pB, labels_b, labels_b, "", tr("key j"), kind="sequential",
                        masked=np.isneginf(sB), levels=p_levels, masked_text=""), 1, 1, roles=QK),
             Item(Panel("pattern/B-A", f"B − A: max |·| = {num(np.abs(dp).max(), '.3g')}", dp, labels, labels, "",
                        tr("key j"),
                        masked=np.isneginf(sA) & np.isneginf(sB), masked_text=""), 1, 2, roles=QK))
    ta, tbk = int(np.argmax(pA[i])), int(np.argmax(pB[i]))
    text = _t("<b>B</b>: {note}. Query i = {i}: in A its largest weight is on key {ta} “{wa}” ({pa:.2f}); in B on "
              "key {tb} “{wb}” ({pb:.2f}). Its row moves by {moved:.0%} of its weight (half the L1 difference). One "
              "colour scale for A and B in each row.", note=html.escape(message(e.note)), i=i, ta=ta,
              wa=html.escape(labels[ta]), pa=pA[i, ta], tb=tbk, wb=html.escape(labels_b[tbk]), pb=pB[i, tbk],
              moved=np.abs(dp[i]).sum() / 2)
    if condition[0] == "mistake":                       # loaded wrong: what it does to the prediction
        text += " " + _next_tokens(result, t, tb, i, len(e.tokens))
    return PageViews("ab", items, text=text,
                     shapes=f"[T, T] = [{T}, {T}] · B: {message(e.note)}")
