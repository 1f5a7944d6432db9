"""What the circuit pages show (compute/circuits.py's numbers), once, for the screen and for figures alike:
knock heads out with direct logit attribution, the logit lens, the score taken apart, the head finder.
Each is a PageViews of the instrument pages' vocabulary (widgets/instrument_views.py), so the page on
screen (widgets/circuit_pages.py) and its exported figure draw exactly these.

`extra` is what app/ computed off the UI thread: the pass without the knocked-out heads (`Clean`), the
head finder's scores (`Found`); a figure computes it here (`compute_missing=True`).
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

from compute import circuits, forward
from compute.instruments.patching import find_heads

from ..charts import Chart, Series
from ..i18n import QT_TR_NOOP, tr
from ..matrix import idx_labels, symmetric_levels
from ..views import Panel
from .instrument_views import Item, PageViews, _t

TOP_SOURCES = 8                                # sources shown in the score's source charts

FORMULAS = {
    "knockout": "logit_t = Σ_l Σ_h result_lh·(w/σ)·W_U[:, t] + Σ_l mlp_out_l·(w/σ)·W_U[:, t] + rest;&nbsp; "
                "knocked out: z_lh = 0",
    "score_parts": "q_i·k_j = Σ_d q_i[d] k_j[d] = Σ_pairs … = Σ_s q_i · k_j(source s)",
    "head_finder": "induction = mean p[i, i − n + 1], previous = mean p[i, i − 1], sink = mean p[i, 0], "
                   "duplicate = mean p[i, i − n]",
}


def formula(key: str) -> str:
    return FORMULAS.get(key, "")


@dataclass(frozen=True)
class Clean:
    """The pass without the knocked-out heads, for the result `request_id`."""

    request_id: int
    trace: Any


@dataclass(frozen=True)
class Found:
    """The head finder's scores for the weights `weights_uid`."""

    weights_uid: int
    scores: circuits.HeadScores


def clean_of(result) -> Clean:
    inputs = result.inputs
    return Clean(result.request_id, forward(inputs.config, result.weights, inputs.tokens, backend=inputs.backend))


def finder_args(cfg, bos: int | None = None) -> dict:
    """A random sequence repeated that fits the model: n ≤ 30, ids past the special tokens of a real vocabulary,
    after the tokenizer's own first token where it adds one (Gemma without its <bos> hardly completes a repeat:
    14% against 83% of the second copy's tokens)."""
    n = max(2, min(30, (cfg.n_ctx - 1) // 2))
    low = 1000 if cfg.d_vocab > 4000 else 1
    return dict(n=n, low=low, seed=0, bos=bos)


def found_of(result) -> Found:
    inputs = result.inputs
    return Found(result.weights.uid, find_heads(inputs.config, result.weights, inputs.backend,
                                                **finder_args(inputs.config, result.bos)))


def _label(result, token: int) -> str:
    """A token's text, whitespace made visible (a newline or spaces alone would be a blank label)."""
    text = str(result.token_label(int(token)))
    return text if text.strip() else (text.replace("\n", "\\n").replace("\t", "\\t").replace(" ", "␣") or "∅")


def _boxes(pairs) -> tuple[tuple[float, float, float, float], ...]:
    return tuple((h - 0.5, la - 0.5, 1.0, 1.0) for la, h in pairs)


def _softmax_at(row: np.ndarray, token: int) -> float:
    row = np.asarray(row, np.float64)
    e = np.exp(row - row.max())
    return float(e[token] / e.sum())


# -- knock heads out, and each head's direct share of the logit -------------------------------------------------
def knockout_views(result, sel, extra: Clean | None = None, compute_missing: bool = False) -> PageViews:
    t, cfg = result.trace, result.inputs.config
    i = sel.query
    ablated = tuple(result.inputs.ablated)
    waiting = ""
    if ablated and extra is None and compute_missing:
        extra = clean_of(result)
    clean = extra.trace if ablated and extra is not None and extra.request_id == result.request_id else None
    if ablated and clean is None:
        waiting = tr("the pass without the knocked-out heads")
    row = np.asarray(t.logits_rows([i])[0], np.float64)                            # [d_vocab]
    before = np.asarray(clean.logits_rows([i])[0], np.float64) if clean is not None else row
    target = int(np.argmax(before))                                               # the intact model's prediction
    att = circuits.logit_attribution(t, target, i, result.weights)
    L, H = cfg.n_layers, cfg.n_heads
    levels = symmetric_levels(att.heads)                     # the heads' own scale: the last MLP dwarfs them
    word = html.escape(_label(result, target))
    items = [Item(Panel("dla", _t("each head's share of logit “{w}”", w=_label(result, target)), att.heads,
                        tuple(idx_labels(L)), tuple(idx_labels(H)), tr("layer"), tr("head"), levels=levels),
                  0, 0, boxes=_boxes(ablated)),
             Item(Panel("dla_mlp", tr("MLP"), att.mlps[:, None], tuple(idx_labels(L)), ("mlp",), "", "",
                        levels=symmetric_levels(att.mlps)), 0, 1, colorbar=False)]
    p_now, p_before = _softmax_at(row, target), _softmax_at(before, target)
    top_now = int(np.argmax(row))
    text = _t("Query i = {i}: the model predicts “{w}” (p = {p:.3f}, logit {lg:.2f}). Heads {heads:.2f} + MLPs "
              "{mlps:.2f} + embedding and biases {rest:.2f} = {total:.2f} = the logit. Click a head to knock it out "
              "(z = 0); click again to put it back (Edit ▸ Undo too).", i=i, w=word, p=p_now, lg=float(row[target]),
              heads=float(att.heads.sum()), mlps=float(att.mlps.sum()), rest=att.rest, total=att.total)
    if ablated:
        names = ", ".join(f"{la}.{h}" for la, h in ablated)
        if clean is not None:
            text += " " + _t("Knocked out: {names}. p(“{w}”) {p0:.3f} → {p1:.3f} ({dp:+.3f}), logit {l0:.2f} → "
                             "{l1:.2f} ({dl:+.2f}); the prediction is now “{now}”.", names=names, w=word, p0=p_before,
                             p1=p_now, dp=p_now - p_before, l0=float(before[target]), l1=float(row[target]),
                             dl=float(row[target] - before[target]), now=html.escape(_label(result, top_now)))
        else:
            text += " " + _t("Knocked out: {names}. Computing the pass without them…", names=names)
    return PageViews("knockout", tuple(items), text=text, waiting=waiting, col_stretch=(9, 1), panel_size=(520, 460),
                     shapes=f"dla [n_layers, n_heads] = [{L}, {H}] · mlp [n_layers] = [{L}]")


# -- the logit lens ------------------------------------------------------------------------------------------------
# -- the score taken apart -------------------------------------------------------------------------------------
def key_of(sel, trace) -> int:
    """The key j the decomposition explains: the selected key (up to the query), else the key the head
    attends to most from the query."""
    if sel.key is not None:
        return min(max(sel.key, 0), max(sel.query, 0))
    return int(np.argmax(trace.part("pattern", sel.layer, sel.head)[sel.query]))


def _source_chart(name: str, title: str, sources, values: np.ndarray) -> Chart:
    order = np.argsort(-np.abs(values), kind="stable")[:TOP_SOURCES]
    x = np.arange(len(order), dtype=np.float64)
    colours = tuple("accent" if values[o] >= 0 else "accent2" for o in order)
    return Chart(name, title, (Series("", x, values[order], style="bars", width=0.7, colours=colours),),
                 y_axis=tr("share of q·k"), legend=False,
                 x_ticks=tuple((float(n), sources[o]) for n, o in enumerate(order)))


def score_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    t, cfg = result.trace, result.inputs.config
    layer, head, i = sel.layer, sel.head, sel.query
    j = key_of(sel, t)
    parts = circuits.score_parts(t, layer, head, i, j, result.weights)
    if parts.by_pair is not None:
        y, what = parts.by_pair, tr("frequency pair (d, d + r/2)")
    else:
        y, what = parts.by_dim, tr("dimension d")
    x = np.arange(len(y), dtype=np.float64)
    items = [Item(Chart("score_dims", _t("q_i·k_j by {what}", what=what),
                        (Series("", x, y, style="bars", colour="accent", width=0.7),),
                        x_axis=what, y_axis=tr("share of q·k"), legend=False), 0, 0, colspan=2),
             Item(_source_chart("score_key_sources", _t("who wrote k_j (j = {j})", j=j), parts.sources,
                                parts.by_key_source), 1, 0),
             Item(_source_chart("score_query_sources", _t("who wrote q_i (i = {i})", i=i), parts.sources,
                                parts.by_query_source), 1, 1)]
    best_k = int(np.argmax(parts.by_key_source))
    best_q = int(np.argmax(parts.by_query_source))
    labels = tuple(result.labels)
    wi, wj = (html.escape(labels[n]) if n < len(labels) else str(n) for n in (i, j))
    text = _t("Head {L}.{h}, query i = {i} “{wi}”, key j = {j} “{wj}”: q_i·k_j = {s:.3f} (× {scale:.3f} = the scaled "
              "score). It is the sum of the bars above, and of the bars of each source chart: the residual stream "
              "that built k_j, split into the embedding, each earlier head's output, each earlier MLP and the "
              "biases (the norm's scale held fixed). The largest share of the key: <b>{kbest}</b> ({kv:.2f}); of "
              "the query: <b>{qbest}</b> ({qv:.2f}).", L=layer, h=head, i=i, wi=wi, j=j, wj=wj, s=parts.score,
              scale=parts.scale, kbest=parts.sources[best_k], kv=float(parts.by_key_source[best_k]),
              qbest=parts.sources[best_q], qv=float(parts.by_query_source[best_q]))
    return PageViews("score_parts", tuple(items), text=text, row_stretch=(1, 1), panel_size=(560, 300),
                     shapes=f"sources = 2 + layer·(n_heads + 1) = {len(parts.sources)} · d_head = {cfg.d_head}")


# -- the head finder ------------------------------------------------------------------------------------------
FINDER_MAPS = (("induction", QT_TR_NOOP("induction")), ("previous", QT_TR_NOOP("previous token")),
               ("sink", QT_TR_NOOP("sink (position 0)")), ("duplicate", QT_TR_NOOP("duplicate token")))


def finder_views(result, sel, extra: Found | None = None, compute_missing: bool = False) -> PageViews:
    cfg = result.inputs.config
    if extra is None and compute_missing:
        extra = found_of(result)
    L, H = cfg.n_layers, cfg.n_heads
    rows, cols = tuple(idx_labels(L)), tuple(idx_labels(H))
    if extra is None or extra.weights_uid != result.weights.uid:
        empty = np.zeros((L, H))
        items = tuple(Item(Panel(f"finder_{kind}", tr(title), empty, rows, cols, tr("layer"), tr("head"),
                                 kind="sequential", levels=(0.0, 1.0)), n // 2, n % 2)
                      for n, (kind, title) in enumerate(FINDER_MAPS))
        return PageViews("head_finder", items, text=tr("Running the model on a random sequence repeated…"),
                         waiting=tr("the head finder's pass"), panel_size=(420, 330),
                         shapes=f"[n_layers, n_heads] = [{L}, {H}]")
    s = extra.scores
    items = []
    for n, (kind, title) in enumerate(FINDER_MAPS):
        best = s.best(kind)
        items.append(Item(Panel(f"finder_{kind}", _t("{what}: best {L}.{h}", what=tr(title), L=best[0], h=best[1]),
                                getattr(s, kind), rows, cols, tr("layer") if n % 2 == 0 else "", tr("head"),
                                kind="sequential", levels=(0.0, 1.0)), n // 2, n % 2, boxes=_boxes([best])))
    ind, prev = s.best("induction"), s.best("previous")
    text = _t("On a random sequence of {n} tokens repeated once ({T} tokens): an <b>induction</b> head looks, from a "
              "token's second copy, at the token that followed its first copy; a <b>previous-token</b> head at the "
              "token before. The strongest here: induction {il}.{ih} ({iv:.2f}), previous token {pl}.{ph} ({pv:.2f}). "
              "Click a head to open it.", n=s.n, T=len(s.tokens), il=ind[0], ih=ind[1],
              iv=float(s.induction[ind]), pl=prev[0], ph=prev[1], pv=float(s.previous[prev]))
    return PageViews("head_finder", tuple(items), text=text, panel_size=(420, 330),
                     shapes=f"[n_layers, n_heads] = [{L}, {H}] · T = 1 + 2n = {len(s.tokens)}")
