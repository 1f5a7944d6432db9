"""What the four oldest instrument pages show, in the one vocabulary of panels and charts
(`PageViews`, as widgets/pages/instrument_views.py): the head lens, the mask, the √d_k lab and the KV
cache. Their exported figures draw these; the pages on screen (widgets/pages/classic.py) draw the
same numbers.

`extra` is what app/ computed off the UI thread for the page (the unmasked run, the √d_k lab's
numbers, the KV-cache generation); a figure, which has no app, computes it here
(`compute_missing=True`).
"""
from __future__ import annotations

import dataclasses
import html

import numpy as np

from compute import forward
from compute.instruments import explain, kvcache, sqrt_dk

from ..charts import Chart, Series
from ..i18n import message, num, tr
from ..theme import BARS, REMEDY, WARN
from ..views import Panel, idx_labels, kv_head, symmetric_levels
from .instrument_views import QK, Item, PageViews

LENS_ROWS = ("pattern", "k", "v", "result")      # the patterns on top: the lesson


def _idx(n: int) -> tuple[str, ...]:
    return tuple(idx_labels(n))


# -- head lens ------------------------------------------------------------------------------------------------
def head_lens_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    """Two heads (sel.lens: (layer, head) A and B) side by side, one colour scale per row for A and
    B, and A − B: their patterns (the lesson: the top row, most of the room), then under each the
    k and v it reads (its K/V head) and its share of attn_out side by side, as strips."""
    t, cfg, labels = result.trace, result.inputs.config, tuple(result.labels)
    (la, ha), (lb, hb) = lens_pair(result, sel)
    cols = {"k": _idx(cfg.d_head), "v": _idx(cfg.d_head), "pattern": labels, "result": _idx(cfg.d_model)}
    # (grid row, column within a head's three columns, columns spanned) per row of the lens
    places = {"pattern": (0, 0, 3), "k": (1, 0, 1), "v": (1, 1, 1), "result": (1, 2, 1)}
    items = []
    for name in LENS_ROWS:
        kv = name in ("k", "v")
        A = t.read(name, la, head=kv_head(cfg, ha) if kv else ha)
        B = t.read(name, lb, head=kv_head(cfg, hb) if kv else hb)
        pattern = name == "pattern"
        levels = (0.0, 1.0) if pattern else symmetric_levels(A, B)        # one scale for A and B
        roles = QK if pattern else ("key" if kv else "query", None)
        masked_a = t.forbidden(la) if pattern else None
        masked_b = t.forbidden(lb) if pattern else None
        # On screen the patterns' rows are named once (A's), A and B share one colour bar (B's);
        # k, v and result are strips without labels or colour bars (hover shows a cell's value).
        row, sub, span = places[name]
        strip = () if pattern else ("left", "bottom")
        for c, (tag, values, layer, head, masked) in enumerate((("A", A, la, ha, masked_a),
                                                                ("B", B, lb, hb, masked_b))):
            # A strip's title is short (the pattern above names the head): "k · A (K/V 1)".
            title = (tr("{name} · layer {layer} head {head}").format(name=name, layer=layer, head=head) if pattern
                     else f"{name} · {tag}")
            if kv and cfg.n_kv_heads < cfg.n_heads:
                title += f" (K/V {kv_head(cfg, head)})"
            axes = ((tr("query i") if c == 0 else ""), tr("key j")) if pattern else ("", "")
            items.append(Item(Panel(f"{name}_{tag}", title, values, labels, cols[name], *axes,
                                    kind="sequential" if pattern else "diverging", masked=masked, levels=levels),
                              row, 3 * c + sub, colspan=span, roles=roles, colorbar=c == 1 and pattern,
                              bare=("left",) if pattern and c == 1 else strip))
        diff = np.asarray(A, np.float64) - np.asarray(B, np.float64)
        masked_d = (masked_a | masked_b) if pattern else None             # each head's mask; the difference both
        axes = ("", tr("key j")) if pattern else ("", "")
        items.append(Item(Panel(f"{name}_diff", f"{name} · A − B", diff, labels, cols[name], *axes, masked=masked_d),
                          row, 6 + sub, colspan=span, roles=roles, colorbar=pattern,
                          bare=("left",) if pattern else strip))
    # The patterns take the canvas (issue 25: they were the page's smallest panels, ~110 px on a
    # projector); k, v and the share of attn_out are strips under them.
    return PageViews("head_lens", tuple(items), row_stretch=(6, 1), col_stretch=(5, 5, 5, 4, 4, 4, 4, 4, 4),
                     panel_size=(140, 240),
                     shapes=tr("rows: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; one colour scale per "
                               "row for A and B"))


def lens_pair(result, sel) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two heads the lens shows: sel.lens, else the selected head and the one most different
    from it (compute.instruments.explain.lens_heads), clamped to the model."""
    cfg = result.inputs.config
    (la, ha), (lb, hb) = explain.lens_heads(result.trace, sel.lens, sel.layer, sel.head, sel.query)
    return ((min(la, cfg.n_layers - 1), min(ha, cfg.n_heads - 1)),
            (min(lb, cfg.n_layers - 1), min(hb, cfg.n_heads - 1)))


# -- the mask -------------------------------------------------------------------------------------------------
def unmasked_of(result):
    """The same inputs computed once more with causal=False (a LabResult)."""
    inputs = result.inputs
    cfg = inputs.config.replace(causal=False)
    trace = forward(cfg, result.weights, inputs.tokens, backend=inputs.backend)
    return dataclasses.replace(result, trace=trace, inputs=dataclasses.replace(inputs, config=cfg))


def mask_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    """The pattern with the causal mask and without it; boxed: key i + 1, the token query i must
    predict. `extra`: the unmasked run of the same request (app/ computes it off the UI thread)."""
    t, labels, L, h = result.trace, tuple(result.labels), sel.layer, sel.head
    T = len(labels)
    if extra is not None and extra.request_id != result.request_id:
        extra = None                                      # it belonged to other inputs
    if extra is None and compute_missing:
        extra = unmasked_of(result)
    with_mask = Panel("pattern", tr("pattern with the causal mask") if result.inputs.config.causal
                      else tr("pattern (the mask is off now)"), t.read("pattern", L, head=h), labels, labels,
                      tr("query i"), tr("key j"), kind="sequential", masked=t.forbidden(L), levels=(0.0, 1.0))
    items = [Item(with_mask, 0, 0, roles=QK)]
    waiting = ""
    if extra is not None:
        without = extra.trace.read("pattern", L, head=h)
        boxes = tuple((i + 1 - 0.42, i - 0.42, 0.84, 0.84) for i in range(T - 1)) if T <= 64 else ()
        shares = explain.mask_shares(without)
        text = tr(
            "<span style='color:{warn}'>Red boxes</span>: key j = i+1, the token query i must predict. Without the "
            "mask, query rows put <b>{answer}</b> of their weight on it on average, and <b>{future}</b> on all "
            "future keys; with the mask: 0%. Trained without the mask, a model would learn to read the answer there "
            "— and fail at generation, where the next token does not exist yet.").format(
            warn=WARN, answer=num(shares["answer_share"], ".1%"), future=num(shares["future_share"], ".1%"))
    else:
        without, boxes, text = np.zeros((T, T)), (), tr("computing the unmasked pattern…")
        waiting = text
    items.append(Item(Panel("pattern_unmasked", tr("pattern without it"), without, labels, labels, "", tr("key j"),
                            kind="sequential", levels=(0.0, 1.0)), 0, 1, roles=QK, boxes=boxes, box_colour=WARN))
    return PageViews("mask", tuple(items), text=text, shapes=f"[T, T] = [{T}, {T}]", panel_size=(420, 400),
                     waiting=waiting)


# -- the √d_k lab -----------------------------------------------------------------------------------------------
def sqrt_dk_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    """The spread of q·k against √d_k for random unit-variance vectors (sel.d_k), a softmax row
    unscaled and scaled, and the std of q·k over d_k. `extra`: compute.instruments.sqrt_dk.lab_numbers."""
    d_k = sel.d_k
    n = extra if extra is not None and extra.spread.d_k == d_k else None
    if n is None:
        if not compute_missing:
            return PageViews("sqrt_dk", (), waiting=tr("measuring d_k = {d_k}…").format(d_k=num(d_k, ",")))
        n = sqrt_dk.lab_numbers(d_k)
    items = []
    for c, (name, (counts, edges), spread, colour, title) in enumerate((
            ("hist_raw", n.hist_raw, n.spread.sqrt_d_k, WARN,
             tr("q·k (dashed: ±√d_k = ±{sqrt})").format(sqrt=num(n.spread.sqrt_d_k, ".1f"))),
            ("hist_scaled", n.hist_scaled, 1.0, REMEDY, tr("q·k / √d_k, on the same scale (dashed: ±1)")))):
        centres = (edges[:-1] + edges[1:]) / 2                               # [60]
        top = float(max(n.hist_raw[0].max(), n.hist_scaled[0].max())) * 1.05
        lines = np.array([-spread, -spread, spread, spread])
        items.append(Item(Chart(name, title, (
            Series("", centres, counts.astype(np.float64), style="bars", colour=colour,
                   width=float(edges[1] - edges[0])),
            Series("", lines, np.array([0, top, 0, top]), style="segments", dashed=True)),
            x_axis="q·k", x_range=(float(n.hist_raw[1][0]), float(n.hist_raw[1][-1])), y_range=(0, top),
            legend=False), 0, c))
    keys = np.arange(n.row.T, dtype=np.float64)
    for c, (name, row, mx, which) in enumerate((("row_raw", n.row.row_raw, n.row.max_raw,
                                                 tr("softmax, unscaled: max {max}")),
                                                ("row_scaled", n.row.row_scaled, n.row.max_scaled,
                                                 tr("softmax, scaled: max {max}")))):
        items.append(Item(Chart(name, which.format(max=num(mx, ".2f")),
                                (Series("", keys, np.asarray(row, np.float64), style="bars", colour=BARS,
                                        width=0.7),), x_axis="j", y_range=(0, 1.05), legend=False), 1, c))
    dks = np.array([s[0] for s in n.curve], np.float64)
    x = np.log2(dks)                                                          # d_k on a doubling axis
    items.append(Item(Chart("curve", tr("std of q·k (red), of q·k/√d_k (blue); line √d_k"), (
        Series("√d_k", x, np.sqrt(dks)),
        Series("std q·k", x, np.array([s[1] for s in n.curve]), style="points", colour=WARN),
        Series("std q·k/√d_k", x, np.array([s[2] for s in n.curve]), style="points", colour=REMEDY)),
        x_axis="d_k", y_axis="std", log_y=True, x_ticks=tuple((float(np.log2(d)), num(int(d), ",")) for d in dks)),
        2, 0, colspan=2))
    return PageViews("sqrt_dk", tuple(items), row_stretch=(1, 1, 1), panel_size=(420, 240), text=sqrt_text(n),
                     shapes=f"d_k = {num(d_k, ',')}")


def sqrt_text(n) -> str:
    """The lab's numbers in words: the spread measured, one softmax row's entropy, the gradients."""
    d_k, g = n.spread.d_k, n.grads
    spread = tr(
        "q, k with unit-variance entries: q·k sums %n product(s), so its spread is about √{d_k} = "
        "<b>{sqrt}</b>; measured <b>{std}</b> over {samples} samples. Divided by √d_k: <b>{scaled}</b>.", "",
        d_k).format(d_k=num(d_k, ","), sqrt=num(n.spread.sqrt_d_k, ".1f"), std=num(n.spread.std_raw, ".2f"),
                    samples=num(len(n.spread.raw), ","), scaled=num(n.spread.std_scaled, ".3f"))
    grads = tr(
        "<b>One softmax row of {T} keys</b><br>entropy unscaled <b>{raw}</b>, scaled <b>{scaled}</b> nats "
        "(uniform: {uniform})<br><br><b>Gradients through the softmax</b><br>(torch autograd, {rows} rows of "
        "{T} keys)<br><br>median ‖∂L/∂scores‖ per row<br>&nbsp;&nbsp;unscaled: <b>{g_raw}</b><br>&nbsp;&nbsp;"
        "scaled: <b>{g_scaled}</b><br><br>rows passing back almost nothing (&lt; 1e-3)<br>&nbsp;&nbsp;unscaled: "
        "<b>{s_raw}</b>&nbsp;&nbsp;scaled: <b>{s_scaled}</b>").format(
        T=n.row.T, raw=num(n.row.entropy_raw, ".2f"), scaled=num(n.row.entropy_scaled, ".2f"),
        uniform=num(float(np.log(n.row.T)), ".2f"), rows=n.grad_rows, g_raw=num(g.grad_scores_raw, ".2e"),
        g_scaled=num(g.grad_scores_scaled, ".2e"), s_raw=num(g.stalled_raw, ".0%"),
        s_scaled=num(g.stalled_scaled, ".0%"))
    return f"{spread}<br><br>{grads}<br><br>{sqrt_note(d_k)}"


def sqrt_note(d_k: int) -> str:
    """The √d_k lab's closing line, for the d_k on show."""
    if d_k == 4096:
        return tr("At d_model = 4096 with one head (d_k = 4096) the unscaled spread is about 64: exp(64) ≈ 6·10²⁷, "
                  "so one key takes all the weight.")
    return tr("Slide to 4096 for the d_model = 4096 case.")


# -- KV cache ---------------------------------------------------------------------------------------------------
def generation_of(result, steps: int = 1):
    """The prompt prefilled and `steps` tokens decoded (compute.instruments.kvcache), for a figure."""
    gen = kvcache.prefill(result.inputs.config, result.weights, list(result.inputs.tokens))
    for _ in range(steps):
        kvcache.decode_step(gen, result.weights)
    return gen


def kv_cache_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    """The cached K and V rows of the selected layer (the K/V head the selected head reads), the
    new query row of the last decode step and its pattern. `extra`: a kvcache.Generation."""
    gen = extra
    if gen is None:
        if not compute_missing:
            return PageViews("kv_cache", (), waiting=tr("Prefill the prompt"),
                             text=html.escape(message(kvcache.cache_size(result.inputs.config).describe())))
        gen = generation_of(result)
    cfg = gen.cfg
    layer, head = min(sel.layer, cfg.n_layers - 1), min(sel.head, cfg.n_heads - 1)
    g, cache = kv_head(cfg, head), gen.caches[layer]
    labels = [result.token_label(int(t)) for t in gen.tokens]
    rows = tuple(labels[p] if p < len(labels) else str(p) for p in cache.positions)
    dh = _idx(cfg.d_head)
    rope = cfg.components.positions.rotates
    k_title = (tr("K cache (rot_k: after RoPE), K/V head {g}") if rope else tr("K cache, K/V head {g}")).format(g=g)
    items = [Item(Panel("k_cache", k_title, cache.k[:, g], rows, dh), 0, 0, roles=("key", None)),
             Item(Panel("v_cache", tr("V cache, K/V head {g}").format(g=g), cache.v[:, g], rows, dh), 0, 1,
                  roles=("key", None))]
    if gen.steps:
        step = gen.steps[-1]
        q_title = (tr("the new query row rot_q (after RoPE) of head {head} (after a decode step)") if rope
                   else tr("the new query row q of head {head} (after a decode step)")).format(head=head)
        items.append(Item(Panel("p_row", tr("its pattern"), step.pattern[layer][head][:, None], rows, ("p",),
                                kind="sequential", levels=(0.0, 1.0)), 0, 2, roles=("key", None)))
        items.append(Item(Panel("q_row", q_title, step.q[layer][head][None, :], (f"{step.position}:{labels[-1]}",),
                                dh), 1, 0, colspan=2))
    return PageViews("kv_cache", tuple(items), col_stretch=(4, 4, 1), row_stretch=(8, 1), panel_size=(360, 300),
                     text=kv_text(gen, labels, layer, head, message(kvcache.cache_size(cfg).describe())),
                     shapes=f"[t, d_head] = [{len(rows)}, {cfg.d_head}]")


def kv_text(gen, labels, layer: int, head: int, sizes: str) -> str:
    """The generation in words: the prompt and what was generated, the rows kept (shared, a ring),
    the multiply-adds the cache saves and its bytes."""
    cfg, cache = gen.cfg, gen.caches[layer]
    g, t = kv_head(cfg, head), len(gen.tokens)
    prompt = " ".join(labels[: len(gen.prompt)])
    made = " ".join(labels[len(gen.prompt):])
    shared = ""
    if cfg.n_kv_heads < cfg.n_heads:
        first = g * cfg.n_groups
        shared = tr("; query head {head} reads K/V head {g}, shared by query heads {first}–{last} (one cached "
                    "K/V head for {n})").format(head=head, g=g, first=first, last=first + cfg.n_groups - 1,
                                                 n=cfg.n_groups)
    ring = (tr("; a window of {W}: this layer keeps a ring of its last {W} rows").format(W=cache.window)
            if cache.window is not None else "")
    generated = tr(" → generated: {words}").format(words=f"<b>{html.escape(made)}</b>") if made else ""
    lines = [tr("prompt: {words}").format(words=f"<b>{html.escape(prompt)}</b>") + generated,
             tr("layer {layer}, head {head} · %n cached row(s)", "", len(cache.positions)).format(
                 layer=layer, head=head)
             + shared + ring + tr("; the outlined row is new this step, the others are reused as they are")]
    if gen.steps:
        s = gen.steps[-1]
        lines.append(tr(
            "step {step}: with the cache <b>{cached}</b> multiply-adds; recomputing all %n position(s) would take "
            "<b>{recompute}</b> ({ratio}×). Saved so far: <b>{saved}</b>.", "", t).format(
            step=len(gen.steps), cached=num(s.macs_cached, ","), recompute=num(s.macs_recompute, ","),
            ratio=num(s.macs_recompute / s.macs_cached, ".1f"), saved=num(gen.macs_saved, ",")))
    else:
        lines.append(tr("prefill: {macs} multiply-adds for %n position(s) at once. Decode one token ▶ to "
                        "see the new query row and its pattern.", "", t).format(macs=num(gen.prefill_macs, ",")))
    return "<br>".join(lines + [html.escape(sizes)] if sizes else lines)
