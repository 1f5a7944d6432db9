"""What each view shows, once, for the screen and for exported figures alike.

A `Panel` is one matrix as a person sees it: its name (docs/ARCHITECTURE.md section 4), title, values, labels and colour
scale. `panel(name, result, sel)` picks it from a LabResult and a Selection (no arithmetic beyond
choosing a layer, a head, a row). A `StationView` lays a station's panels out: which panels, where,
which share a colour scale, which follow the hovered query or key. `station_panels` gives the
panels of a station; the station on screen (widgets/stations.py) draws exactly these, and the
exported figure of the station (widgets/figure.py) is made of exactly these — so the figure
equals the screen by construction (tests/widgets/test_views.py checks it).

Adding a station: a Page row in compute/stations.py, a StationView here, and (only if it draws
something other than heatmaps) a Station subclass in widgets/stations.py. See CONTRIBUTING.md.
"""
from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

import numpy as np

from compute import Config
from compute.instruments import explain
from compute.instruments.overview import top_keys
from compute.models import TAGS
from compute.names import missing_message, missing_weight_message

from .i18n import QT_TR_NOOP, message, num, tr
from .matrix import idx_labels, symmetric_levels  # noqa: F401 - instrument_views imports it from here

ALIASES = {"ln1": "ln1_out", "ln2": "ln2_out"}
# Views of values in 0…1 or ≥ 0 (a sequential colour map); every other view is signed (diverging).
SEQUENTIAL = frozenset({"pattern", "pattern_row", "pattern_col", "ln1_var", "ln2_var", "ln1_scale", "ln2_scale",
                        "router_probs", "expert_weights"})


def visible_token(text: str) -> str:
    """A token's text as a label: a token of whitespace alone made visible (" " as ␣, "\\n" as
    \\n) that would otherwise be a blank label; any other text as it is."""
    text = str(text)
    if not text.strip():
        return text.replace("\n", "\\n").replace("\t", "\\t").replace(" ", "␣") or "∅"
    return text


# What a colour bar's values are, by the Trace name a panel shows (its own word, translated).
_PROBABILITIES = {"pattern", "pattern_row", "pattern_col", "pattern_dense", "pattern_window", "pattern_tiled",
                  "pattern_unmasked", "pattern_without_first", "router_probs", "expert_weights", "p_row",
                  "sink_share", "sink_share_without_first"}
_SCORES = {"attn_scores_raw", "attn_scores_scaled", "attn_scores", "scores_row", "router_logits"}
_UNITS = {"logits": QT_TR_NOOP("logit"), "ln1_scale": QT_TR_NOOP("RMS"), "ln2_scale": QT_TR_NOOP("RMS"),
          "ln1_var": QT_TR_NOOP("variance"), "ln2_var": QT_TR_NOOP("variance"), "ln1_mean": QT_TR_NOOP("mean"),
          "ln2_mean": QT_TR_NOOP("mean"), "position_similarity": QT_TR_NOOP("cosine")}


def colour_unit(name: str) -> str:
    """The unit a colour bar prints along itself for a panel of Trace name `name` (block-map tiles
    are "k:name"): probability, score, weight (W_…), or activation (every other intermediate)."""
    name = name.split(":", 1)[-1]
    if name in _PROBABILITIES:
        return tr("probability")
    if name in _SCORES or name.startswith("attn_scores"):
        return tr("score")
    if name in _UNITS:
        return tr(_UNITS[name])
    if name.startswith("W_"):
        return tr("weight")
    if name == "difference":
        return tr("difference")
    return tr("activation")


def view_kind(view: str) -> str:
    return "sequential" if view in SEQUENTIAL else "diverging"


# Views that are a part of a Trace name (one query's row, every head at once), in words.
_PART_WORDS = {"scores_row": QT_TR_NOOP("the query's attn_scores row"), "pattern_row": QT_TR_NOOP("its pattern row"),
               "pattern_col": QT_TR_NOOP("the query's pattern"), "terms": QT_TR_NOOP("the terms pattern·v"),
               "z_row": "z", "W_O_stacked": QT_TR_NOOP("W_O (every head)")}


def view_words(view: str) -> str:
    return tr(_PART_WORDS[view]) if view in _PART_WORDS else view


@dataclass(frozen=True)
class Panel:
    """One heatmap: a Trace name, its matrix as shown, and how to label it."""

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
    masked_text: str = ""                      # hatched cells carry no text: the hatch says it
    row_ticks: tuple[str, ...] | None = None   # axis labels instead of `rows` ("" leaves a blank)
    col_ticks: tuple[str, ...] | None = None
    missing: str = ""                          # why this model has no such name (then values are empty)
    outline: tuple[int, int, int, int] | None = None   # a block to outline: (row, col, rows, cols)
    clipped: np.ndarray | None = None          # [n, 2] (row, col) of cells beyond `levels` (the largest first)
    caption: str = ""                          # what the scale clips ("d_model 507 reaches 23,989 …; clipped")
    marks: np.ndarray | None = None            # [n, 2] (row, col): a long map's query row's strongest keys


@lru_cache(maxsize=32)
def _idx(n: int) -> tuple[str, ...]:
    return tuple(idx_labels(n))


_FORBIDDEN: dict[tuple[int, int], tuple[weakref.ref, np.ndarray]] = {}


def forbidden(t, layer: int, rows=None) -> np.ndarray:
    """t.forbidden(layer, rows), made once per Trace and layer (read-only): the four maps of a
    station, their marks and the softmax row all ask, and at T = 4,096 each ask is 16 M cells."""
    key = (id(t), layer)
    hit = _FORBIDDEN.get(key)
    if hit is None or hit[0]() is not t:
        if len(_FORBIDDEN) > 16:
            _FORBIDDEN.clear()
        whole = t.forbidden(layer)                                        # [T, T]
        whole.setflags(write=False)
        hit = _FORBIDDEN[key] = (weakref.ref(t), whole)
    return hit[1] if rows is None else hit[1][rows]


def _vocab_labels(result, n: int) -> tuple[str, ...]:
    return tuple(result.token_label(i) for i in range(n)) if n <= 256 else _idx(n)


def _head_cols(cfg) -> tuple[str, ...]:
    return tuple(f"{c // cfg.d_head}·{c % cfg.d_head}" for c in range(cfg.d_concat))


def _head_ticks(cfg) -> tuple[str, ...]:
    """"h0", "h1", … at each head's first column of the concatenation; blank elsewhere."""
    return tuple(f"h{c // cfg.d_head}" if c % cfg.d_head == 0 else "" for c in range(cfg.d_concat))


def pattern_levels(pattern: np.ndarray) -> tuple[float, float]:
    """0…1 for short rows; long rows spread their weight thin (≈ 1/T), so past 32 keys the scale
    runs to the largest weight."""
    top = float(pattern.max()) if pattern.size else 1.0
    return (0.0, 1.0) if pattern.shape[-1] <= 32 or top <= 0 else (0.0, top)


# Views of a weight: the weight's name (in block `L` where it is per layer), for the missing-name sentence.
_VIEW_WEIGHTS = {"W_pos": "pos_embed.W_pos", "W_U": "unembed.W_U", "W_gate": "blocks.{L}.mlp.W_gate",
                 "W_router": "blocks.{L}.moe.W_router"}


def missing_view(name: str, cfg: Config, layer: int = 0) -> str:
    """Why `cfg`'s model has nothing to show for view `name` ("" when it has it): the sentence the
    screen, the figure and the CLI say instead of stale or zero data (in the window's language)."""
    if name in _VIEW_WEIGHTS:
        why = missing_weight_message(_VIEW_WEIGHTS[name].format(L=layer), cfg)
    else:
        why = missing_message(ALIASES.get(name, name), cfg)
    return message(why) if why is not None else ""


def kv_head(cfg: Config, head: int) -> int:
    """The K/V head query head `head` reads (GQA: consecutive query heads share one)."""
    return head // cfg.n_groups


def kv_sharers(cfg: Config, head: int) -> tuple[int, int]:
    """The first and last query head that read the same K/V head as `head`."""
    g = kv_head(cfg, head)
    return g * cfg.n_groups, (g + 1) * cfg.n_groups - 1


# A T×T map longer than this marks its query row's MARKED_KEYS strongest keys (labels no longer fit).
MARKS_FROM = 64
MARKED_KEYS = 8
# A Softmax row longer than this is drawn as its TOP_KEYS strongest keys, each with its token.
SPARSE_ROW_FROM = 128
TOP_KEYS = 24


def query_marks(t, layer: int, head: int, query: int) -> np.ndarray | None:
    """[n, 2] (query, key) of the query's strongest keys in a long map (None for a short one)."""
    if t.T <= MARKS_FROM or not 0 <= query < t.T:
        return None
    row = t.read("pattern", layer, head=head, rows=query)                  # [T]
    keys = top_keys(row, MARKED_KEYS, allowed=~forbidden(t, layer, rows=query))   # [n]
    return np.stack([np.full(len(keys), query), keys], axis=1)             # [n, 2]


def panel(name: str, result, sel) -> Panel:
    """The single view `name` for the selected layer and head (KeyError for an unknown name). A
    name this model lacks gives an empty Panel whose `missing` says why."""
    t, w, cfg, labels = result.trace, result.weights, result.inputs.config, tuple(result.labels)
    L, h = sel.layer, sel.head
    g = kv_head(cfg, h)                                                    # k, v: the K/V head h reads
    dm, dh, dmlp = _idx(cfg.d_model), _idx(cfg.d_head), _idx(cfg.d_mlp)
    dh_n = cfg.d_head
    p = f"blocks.{L}."
    tok = dict(rows=labels, row_axis=tr("token"))
    why = missing_view(name, cfg, L)
    if why:
        return Panel(name, tr("no {name}").format(name=name), np.zeros((0, 0)), (), (), missing=why)
    ab = (lambda b: f" + {b}") if cfg.attn_bias else (lambda b: "")       # titles name biases a model has
    mb = (lambda b: f" + {b}") if cfg.mlp_bias else (lambda b: "")
    if name in ("embed", "pos_embed", "ln_final_out"):
        titles = {"embed": "embed = W_E[tokens]", "pos_embed": "pos_embed = W_pos[:T]",
                  "ln_final_out": "ln_final_out"}
        return Panel(name, titles[name], t[name], cols=dm, col_axis="d_model", **tok)
    if name == "logits":
        title = "logits = ln_final_out · W_Eᵀ" if cfg.tied_embeddings else "logits = ln_final_out · W_U"
        return Panel(name, title, t["logits"], cols=_vocab_labels(result, cfg.d_vocab), col_axis=tr("vocabulary"),
                     **tok)
    if name in ("resid_pre", "ln1_out", "attn_out", "attn_out_normed", "resid_mid", "ln2_out", "mlp_out",
                "mlp_out_normed", "resid_post"):
        post = "_normed" if cfg.components.post_norm is not None else ""  # Gemma 2/3, OLMo 2: the normed one
        titles = {"attn_out": f"attn_out = Σ_h result{ab('b_O')}",
                  "resid_mid": f"resid_mid = resid_pre + attn_out{post}",
                  "resid_post": f"resid_post = resid_mid + mlp_out{post}",
                  "attn_out_normed": "attn_out_normed = RMSNorm(attn_out)",
                  "mlp_out_normed": "mlp_out_normed = RMSNorm(mlp_out)"}
        if cfg.components.parallel:                       # GPT-NeoX: the MLP reads the block's input
            titles["ln2_out"] = f"ln2_out = {cfg.components.norm.title}(resid_pre)  ∥ attention"
        return Panel(name, titles.get(name, name), t[name, L], cols=dm, col_axis="d_model", **tok)
    if name in ("mlp_pre", "mlp_pre_linear", "mlp_post"):
        if cfg.components.mlp.gated:
            titles = {"mlp_pre": tr("mlp_pre = ln2_out · W_gate{bias}  (gate)").format(bias=mb("b_gate")),
                      "mlp_pre_linear": tr("mlp_pre_linear = ln2_out · W_in{bias}  (up)").format(bias=mb("b_in")),
                      "mlp_post": f"mlp_post = {gate_name(cfg)}(mlp_pre) ⊙ mlp_pre_linear"}
        else:
            gelu = "GELU_erf" if cfg.components.mlp.exact else "GELU"           # exact, or GPT-2's tanh
            titles = {"mlp_pre": f"mlp_pre = ln2_out · W_in{mb('b_in')}", "mlp_post": f"mlp_post = {gelu}(mlp_pre)"}
        return Panel(name, titles[name], t[name, L], cols=dmlp, col_axis="d_mlp", **tok)
    if name in ("router_logits", "router_probs", "expert_weights"):       # a mixture of experts: token × expert
        experts = cfg.components.experts
        titles = {"router_logits": "router_logits = ln2_out · W_router",
                  "router_probs": "router_probs = softmax(router_logits)",
                  "expert_weights": (tr("expert_weights: the top {k}, renormalised") if experts.normalise
                                     else tr("expert_weights: the top {k}")).format(k=experts.top_k)}
        cols = tuple(f"e{e}" for e in range(experts.n_experts))
        probs = name != "router_logits"
        return Panel(name, titles[name], t[name, L], cols=cols, col_axis=tr("expert"), kind=view_kind(name),
                     levels=(0.0, 1.0) if probs else None, **tok)
    if name == "expert_out":                  # [T, k, d_model]: each row's first choice
        return Panel(name, tr("expert_out[:, 0] (each token's first expert)"), t[name, L][:, 0], cols=dm,
                     col_axis="d_model", **tok)
    if name in ("ln1_mean", "ln1_var", "ln2_mean", "ln2_var"):
        return Panel(name, name, t[name, L][:, None], cols=(name.split("_")[1],), kind=view_kind(name), **tok)
    if name in ("ln1_scale", "ln2_scale"):                # RMSNorm: √(mean(x²) + ε), one per token
        return Panel(name, name, t[name, L][:, None], cols=("scale",), kind=view_kind(name), **tok)
    if name == "z_concat":                    # the selected head's columns outlined
        return Panel(name, tr("z_concat (heads side by side)"), t[name, L], cols=_head_cols(cfg),
                     col_axis=tr("head · d_head"), col_ticks=_head_ticks(cfg),
                     outline=(0, h * dh_n, len(labels), dh_n), **tok)
    if name in ("q", "k", "v", "z", "rot_q", "rot_k", "q_normed", "k_normed"):
        qk = ("q_normed", "k_normed") if cfg.components.attention.qk_norm is not None else ("q", "k")
        titles = {"q": f"q[:, {h}] = ln1_out · W_Q[{h}]{ab('b_Q')}", "k": f"k[:, {g}] = ln1_out · W_K[{g}]{ab('b_K')}",
                  "v": f"v[:, {g}] = ln1_out · W_V[{g}]{ab('b_V')}", "z": f"z[:, {h}] = pattern · v",
                  "rot_q": f"rot_q[:, {h}] = RoPE({qk[0]})", "rot_k": f"rot_k[:, {g}] = RoPE({qk[1]})",
                  "q_normed": f"q_normed[:, {h}] = RMSNorm(q)", "k_normed": f"k_normed[:, {g}] = RMSNorm(k)"}
        head = g if name in ("k", "v", "rot_k", "k_normed") else h         # k, v: [T, n_kv_heads, d_head]
        return Panel(name, titles[name], t.read(name, L, head=head), cols=dh, col_axis="d_head", **tok)
    if name == "result":
        return Panel(name, f"result[:, {h}] = z_{h} · W_O[{h}]", t.read(name, L, head=h), cols=dm, col_axis="d_model",
                     **tok)
    if name in ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern"):
        # One head's map: a GPU Trace copies just that head to the host (Trace.read), not all of them;
        # where the mask forbids is known without reading anything (Trace.forbidden).
        masked = forbidden(t, L)
        qk = dict(rows=labels, cols=labels, row_axis=tr("query i"), col_axis=tr("key j"),
                  marks=query_marks(t, L, h, sel.query))
        if name == "attn_scores_raw":
            title = "attn_scores_raw = rot_q·rot_kᵀ" if cfg.components.positions.rotates else "attn_scores_raw = q·kᵀ"
            return Panel(name, title, t.read(name, L, head=h), **qk)
        if name == "attn_scores_scaled":
            under = cfg.query_pre_attn_scalar or cfg.d_head              # Gemma: √query_pre_attn_scalar
            title = (f"attn_scores_scaled = raw ÷ √{under:g}" if cfg.scale_scores
                     else tr("attn_scores_scaled (scaling off)"))
            return Panel(name, title, t.read(name, L, head=h), **qk)
        if name == "attn_scores_capped":                                   # Gemma 2: cap·tanh(s/cap), then the mask
            return Panel(name, f"attn_scores_capped = {cfg.components.attention.softcap.formula}",
                         t.read(name, L, head=h), **qk)
        if name == "attn_scores":
            window = cfg.window(L)
            title = (tr("attn_scores (no mask)") if not cfg.causal and window is None else
                     tr("attn_scores (masked: −∞, window {window})").format(window=window) if window is not None
                     else tr("attn_scores (masked: −∞)"))
            return Panel(name, title, t.read(name, L, head=h), masked=masked, **qk)
        # Masked cells stay blank: the hatching says it, a wall of "0" only hides the real weights.
        values = t.read(name, L, head=h)
        return Panel(name, "pattern = softmax(attn_scores)", values, kind=view_kind(name), masked=masked,
                     levels=pattern_levels(values), masked_text="", **qk)
    if name in ("W_Q", "W_K", "W_V"):
        head = h if name == "W_Q" else g                                   # W_K, W_V: [n_kv_heads, ...]
        return Panel(name, f"{name}[{head}]", w[p + "attn." + name][head], rows=dm, cols=dh, row_axis="d_model",
                     col_axis="d_head")
    if name == "W_O":
        return Panel(name, f"W_O[{h}]", w[p + "attn.W_O"][h], rows=dh, cols=dm, row_axis="d_head", col_axis="d_model")
    if name == "W_O_stacked":                 # every head's W_O, in the order of z_concat's columns
        W_O = w[p + "attn.W_O"]                                             # [H, d_head, d_model]
        return Panel("W_O", tr("W_O (stacked per head)"), W_O.reshape(-1, W_O.shape[-1]), rows=_head_cols(cfg),
                     cols=dm, row_axis=tr("head · d_head"), col_axis="d_model", row_ticks=_head_ticks(cfg),
                     outline=(h * dh_n, 0, dh_n, cfg.d_model))
    if name in ("W_in", "W_gate"):
        return Panel(name, name, w[p + "mlp." + name], rows=dm, cols=dmlp, row_axis="d_model", col_axis="d_mlp")
    if name == "W_router":                    # a mixture of experts: each expert's direction in d_model
        E = cfg.n_experts
        return Panel(name, "W_router", w[p + "moe.W_router"], rows=dm, cols=tuple(f"e{e}" for e in range(E)),
                     row_axis="d_model", col_axis=tr("expert"))
    if name == "W_out":
        return Panel(name, "W_out", w[p + "mlp.W_out"], rows=dmlp, cols=dm, row_axis="d_mlp", col_axis="d_model")
    if name == "W_E":
        return Panel(name, "W_E", w["embed.W_E"], rows=_vocab_labels(result, cfg.d_vocab), cols=dm,
                     row_axis=tr("vocabulary"), col_axis="d_model")
    if name == "W_U":
        return Panel(name, tr("W_U (untied unembedding)"), w["unembed.W_U"], rows=dm,
                     cols=_vocab_labels(result, cfg.d_vocab), row_axis="d_model", col_axis=tr("vocabulary"))
    if name == "W_pos":
        return Panel(name, "W_pos", w["pos_embed.W_pos"], rows=_idx(cfg.n_ctx), cols=dm, row_axis=tr("position"),
                     col_axis="d_model")
    if name in ("scores_row", "pattern_row"):  # one query's row of attn_scores / pattern (the softmax)
        i = sel.query
        word = labels[i] if labels else ""
        scores = t.read("attn_scores", L, head=h, rows=i)                   # [T]
        forbid = forbidden(t, L, rows=i)[None, :]                          # [1, T]
        row = dict(rows=(f"i={i} {word}",), cols=labels, col_axis=tr("key j"), masked=forbid)
        if name == "scores_row":
            return Panel("attn_scores", tr("attn_scores[{h}, {i}, :] — query “{word}”").format(h=h, i=i, word=word),
                         scores[None, :], **row)
        weights = t.read("pattern", L, head=h, rows=i)                      # [T]
        if len(weights) > SPARSE_ROW_FROM:                                  # long: the keys that matter, with words
            keys = np.sort(top_keys(weights, TOP_KEYS, allowed=~forbid[0]))      # [K] in key order
            cols = tuple(f"{j} {labels[j]}" if j < len(labels) else str(j) for j in keys)
            return Panel("pattern", tr("pattern[{h}, {i}, :] — its {k} strongest of {T} keys (the row sums to 1)")
                         .format(h=h, i=i, k=len(keys), T=len(weights)), weights[keys][None, :], row["rows"], cols,
                         col_axis=tr("key j"), kind=view_kind(name), levels=(0.0, float(max(weights.max(), 1e-9))),
                         masked_text="")
        return Panel("pattern", tr("pattern[{h}, {i}, :] = softmax (row sums to 1)").format(h=h, i=i),
                     weights[None, :], kind=view_kind(name), levels=(0.0, 1.0), masked_text="", **row)
    if name in ("pattern_col", "terms", "z_row"):     # the weighted sum of v for one query
        i = sel.query
        word = labels[i] if labels else ""
        terms, z = explain.weighted_terms(t, L, h, i)                       # [T, d_head], [d_head]
        if name == "pattern_col":
            return Panel("pattern", f"pattern[{h}, {i}, j]", t.read("pattern", L, head=h, rows=i)[:, None], labels,
                         ("p",),
                         row_axis=tr("key j"), kind=view_kind(name), levels=(0.0, 1.0))
        if name == "terms":
            return Panel("terms", f"pattern[{h}, {i}, j] · v[j, {g}]", terms, labels, dh, col_axis="d_head")
        return Panel("z", tr("z[{i}, {h}] = Σ_j (column sums)").format(i=i, h=h), z[None, :], (f"i={i} {word}",), dh,
                     col_axis="d_head")
    raise KeyError(name)


# name -> (what it shows, needs a layer, needs a head): the single views of `qkv-lab export --view`.
SINGLE_VIEWS: dict[str, tuple[str, bool, bool]] = {
    "embed": ("W_E[tokens] [T, d_model]", False, False),
    "pos_embed": ("W_pos[:T] [T, d_model]", False, False),
    "resid_pre": (QT_TR_NOOP("block input [T, d_model]"), True, False),
    "ln1_mean": (QT_TR_NOOP("LayerNorm 1 mean [T]"), True, False),
    "ln1_var": (QT_TR_NOOP("LayerNorm 1 variance [T]"), True, False),
    "ln1_scale": (QT_TR_NOOP("RMSNorm 1 scale √(mean(x²) + ε) [T]"), True, False),
    "ln1_out": (QT_TR_NOOP("LayerNorm 1 output [T, d_model] (alias ln1)"), True, False),
    "W_Q": ("blocks.L.attn.W_Q[h] [d_model, d_head]", True, True),
    "W_K": (QT_TR_NOOP("blocks.L.attn.W_K[g] [d_model, d_head] (g: the K/V head h reads)"), True, True),
    "W_V": ("blocks.L.attn.W_V[g] [d_model, d_head]", True, True),
    "q": ("q[:, h] [T, d_head]", True, True),
    "k": ("k[:, g] [T, d_head] (g = h // (n_heads / n_kv_heads))", True, True),
    "v": ("v[:, g] [T, d_head]", True, True),
    "q_normed": (QT_TR_NOOP("q after the QK-norm [T, d_head] (Qwen3, Gemma 3, OLMo 2)"), True, True),
    "k_normed": (QT_TR_NOOP("k after the QK-norm [T, d_head]"), True, True),
    "rot_q": (QT_TR_NOOP("q after RoPE [T, d_head]"), True, True),
    "rot_k": (QT_TR_NOOP("k after RoPE [T, d_head]"), True, True),
    "attn_scores_raw": ("q·kᵀ [T, T]", True, True),
    "attn_scores_scaled": (QT_TR_NOOP("raw / √d_head [T, T]"), True, True),
    "attn_scores_capped": (QT_TR_NOOP("soft-capped: cap·tanh(scaled / cap), before the mask [T, T] (Gemma 2)"), True,
                           True),
    "attn_scores": (QT_TR_NOOP("scaled, causal mask −∞ [T, T]"), True, True),
    "pattern": (QT_TR_NOOP("softmax of attn_scores [T, T]"), True, True),
    "z": ("z[:, h] = pattern · v [T, d_head]", True, True),
    "z_concat": (QT_TR_NOOP("heads side by side [T, n_heads·d_head]"), True, False),
    "W_O": ("blocks.L.attn.W_O[h] [d_head, d_model]", True, True),
    "result": ("result[:, h] = z_h · W_O[h] [T, d_model]", True, True),
    "attn_out": ("Σ_h result + b_O [T, d_model]", True, False),
    "resid_mid": ("resid_pre + attn_out [T, d_model]", True, False),
    "ln2_mean": (QT_TR_NOOP("LayerNorm 2 mean [T]"), True, False),
    "ln2_var": (QT_TR_NOOP("LayerNorm 2 variance [T]"), True, False),
    "ln2_scale": (QT_TR_NOOP("RMSNorm 2 scale [T]"), True, False),
    "ln2_out": (QT_TR_NOOP("LayerNorm 2 output [T, d_model] (alias ln2)"), True, False),
    "W_in": ("blocks.L.mlp.W_in [d_model, d_mlp]", True, False),
    "mlp_pre": (QT_TR_NOOP("ln2_out · W_in + b_in [T, d_mlp] (SwiGLU: the gate, ln2_out · W_gate)"), True, False),
    "W_gate": ("blocks.L.mlp.W_gate [d_model, d_mlp] (SwiGLU)", True, False),
    "mlp_pre_linear": (QT_TR_NOOP("SwiGLU's up branch ln2_out · W_in [T, d_mlp]"), True, False),
    "mlp_post": (QT_TR_NOOP("GELU(mlp_pre) [T, d_mlp] (SwiGLU: SiLU(gate) ⊙ up)"), True, False),
    "W_out": ("blocks.L.mlp.W_out [d_mlp, d_model]", True, False),
    "W_router": (QT_TR_NOOP("blocks.L.moe.W_router [d_model, n_experts] (a mixture of experts)"), True, False),
    "router_logits": (QT_TR_NOOP("a mixture of experts' router, ln2_out · W_router [T, n_experts]"), True, False),
    "router_probs": (QT_TR_NOOP("softmax of the router [T, n_experts]"), True, False),
    "expert_weights": (QT_TR_NOOP("the router's weights on each token's top-k experts [T, n_experts]"), True, False),
    "expert_out": (QT_TR_NOOP("each token's first expert's output [T, d_model]"), True, False),
    "mlp_out": (QT_TR_NOOP("MLP output [T, d_model]"), True, False),
    "resid_post": (QT_TR_NOOP("block output [T, d_model]"), True, False),
    "ln_final_out": (QT_TR_NOOP("final LayerNorm [T, d_model]"), False, False),
    "logits": ("ln_final_out · W_Eᵀ (or W_U) [T, d_vocab]", False, False),
    "W_U": (QT_TR_NOOP("unembed.W_U [d_model, d_vocab] (untied models)"), False, False),
    "W_E": ("embed.W_E [d_vocab, d_model]", False, False),
    "W_pos": ("pos_embed.W_pos [n_ctx, d_model]", False, False),
}


# -- the stations' layouts ----------------------------------------------------------------------------
# Model families (compute.config): the conditions a Slot's `when` and a StationView's `family`
# overrides name. A station shows each family faithfully: RMSNorm's scale instead of LayerNorm's
# mean and variance, RoPE's rotated q and k, SwiGLU's gate and up branches.
def _has(tag: str, cfg: Config) -> bool:
    return cfg.components.has(tag)


# Each is a question to the config's components (compute/models/components.py, TAGS).
FAMILY: dict[str, Callable[[Config], bool]] = {tag: partial(_has, tag) for tag in TAGS}


def meets(cfg: Config, when: str) -> bool:
    """Whether `cfg` meets a FAMILY condition ("" always does; "swiglu+postnorm": each of them)."""
    return all(FAMILY[part](cfg) for part in when.split("+")) if when else True


@dataclass(frozen=True)
class Slot:
    """One panel of a station, where it sits and how it links to the selection on screen."""

    view: str                                  # a `panel()` name
    row: int
    col: int
    rowspan: int = 1
    colspan: int = 1
    roles: tuple[str | None, str | None] = ("query", None)   # what its rows / columns are: "query", "key"
    attr: str = ""                             # the station's attribute for its plot (tests, tools)
    title: str = ""                            # a shorter title here; "{h}", "{i}", "{g}" (K/V head) filled in
    trace: str | None = None                   # a click explains the cell (dot-product trace) of this name
    colorbar: bool = True
    layer0: bool = False                       # always layer 0 (the embeddings' resid_pre)
    when: str = ""                             # only for models that meet this FAMILY condition
    keys_masked: bool = False                  # rows are keys j of query i: those it may not see are hatched
    weight: float = 1.0                        # how much its legibility counts when a screen layout is chosen
    bare: bool = False                         # on screen no tick labels: the panel above labels its columns


@dataclass(frozen=True)
class Layout:
    """Another arrangement of a station's slots on screen, for canvases of some shape: `places`
    gives (row, col, rowspan, colspan) per slot, in the slots' order. Exported figures keep the
    slots' own places."""

    places: tuple[tuple[int, int, int, int], ...]
    col_stretch: tuple[int, ...] = ()
    row_stretch: tuple[int, ...] = ()
    min_aspect: float = 0.0                    # only for canvases at least this wide per unit of height


@dataclass(frozen=True)
class StationView:
    key: str                                   # compute.stations.PAGE key
    formula: str                               # the station header's equation (HTML)
    slots: tuple[Slot, ...]
    shared: tuple[tuple[str, ...], ...] = ()   # panel names that always share one colour scale
    locked: tuple[tuple[str, ...], ...] = ()   # ... and those that share one when 'lock scales' is on
    shapes: str = ""                           # the header's sizes line: {T}, {i} and Config fields
    col_stretch: tuple[int, ...] = ()
    row_stretch: tuple[int, ...] = ()
    panel_size: tuple[int, int] = (360, 320)   # an exported figure's logical px per grid cell at 10 pt
    layouts: tuple[Layout, ...] = ()           # other screen arrangements (the slots' own is the first)
    # FAMILY condition -> fields that replace these for models that meet it (in this order)
    family: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False, hash=False)

    @property
    def columns(self) -> int:
        return max(s.col + s.colspan for s in self.slots)

    @property
    def screen_layouts(self) -> tuple[Layout, ...]:
        """The slots' own arrangement, then the alternatives a station may choose on screen."""
        own = Layout(tuple((s.row, s.col, s.rowspan, s.colspan) for s in self.slots), self.col_stretch,
                     self.row_stretch)
        return (own, *self.layouts)


QK = ("query", "key")
KEYS = ("key", None)
STATION_VIEWS: dict[str, StationView] = {v.key: v for v in (
    StationView("embeddings", "resid_pre = embed + pos_embed = W_E[tokens] + W_pos[:T]", (
        Slot("embed", 0, 0, attr="embed"),
        Slot("pos_embed", 0, 1, attr="pos"),
        Slot("resid_pre", 0, 2, attr="sum", title=QT_TR_NOOP("resid_pre (layer 0)"), layer0=True),
    ), shared=(("embed", "pos_embed", "resid_pre"),), shapes="[T, d_model] = [{T}, {d_model}]",
        layouts=(Layout(((0, 0, 1, 1), (1, 0, 1, 1), (2, 0, 1, 1))),),      # stacked: wide rows, short T
        # RoPE: no W_pos; its panel only says why, in a narrow column (the two matrices take the room)
        family={"rope": dict(formula=QT_TR_NOOP("resid_pre = embed = W_E[tokens];&nbsp; no W_pos: with RoPE the "
                                                "positions enter as rotations of q and k (Q·K·V)"),
                             col_stretch=(3, 1, 3),
                             layouts=(Layout(((0, 0, 1, 1), (1, 0, 1, 1), (2, 0, 1, 1)), row_stretch=(3, 1, 3)),))}),
    StationView("layernorm", "ln1_out = (resid_pre − ln1_mean) / √(ln1_var + ε) · w + b", (
        Slot("resid_pre", 0, 0, attr="inp"),
        Slot("ln1_mean", 0, 1, attr="mean", colorbar=False),
        Slot("ln1_var", 0, 2, attr="var", colorbar=False),
        Slot("ln1_out", 0, 3, attr="out"),
    ), locked=(("resid_pre", "ln1_out"),),
        shapes=QT_TR_NOOP("[T, d_model] = [{T}, {d_model}], ε = 1e-5, biased variance"),
        col_stretch=(4, 1, 1, 4), panel_size=(300, 340),
        layouts=(Layout(((0, 0, 1, 1), (0, 1, 1, 1), (0, 2, 1, 1), (1, 0, 1, 1)), col_stretch=(8, 1, 1)),),
        family={"rmsnorm": dict(
            formula=QT_TR_NOOP("ln1_out = resid_pre / ln1_scale · w,&nbsp; ln1_scale = √(mean(resid_pre²) + ε)"
                    "&nbsp; — RMSNorm: no mean subtracted, no bias"),
            slots=(Slot("resid_pre", 0, 0, attr="inp"),
                   Slot("ln1_scale", 0, 1, attr="scale", colorbar=False),
                   Slot("ln1_out", 0, 2, attr="out")),
            shapes=QT_TR_NOOP("[T, d_model] = [{T}, {d_model}], ε = {norm_eps:.3g}; ln1_scale: [T], one per token"),
            col_stretch=(4, 1, 4),
            layouts=(Layout(((0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1)), col_stretch=(8, 1)),))}),
    # Laid out as the product is written: ln1_out beside q, k, v (its rows are theirs, row by row
    # on one line), W_Q, W_K, W_V above them (their columns are theirs); RoPE's rot_q, rot_k in
    # the same row (the same tokens).
    StationView("projections", QT_TR_NOOP("q = ln1_out · W_Q[h] + b_Q[h]   (likewise k, v)"), (
        Slot("ln1_out", 1, 0, attr="x"),
        # on a projector the weights are thumbnails (weight < 1): the rows that multiply take the height
        Slot("W_Q", 0, 1, roles=(None, None), attr="wq", weight=0.5),
        Slot("W_K", 0, 2, roles=(None, None), attr="wk", weight=0.5),
        Slot("W_V", 0, 3, roles=(None, None), attr="wv", weight=0.5),
        Slot("q", 1, 1, attr="q", title=QT_TR_NOOP("q[:, {h}]  (query i)"), trace="q"),
        Slot("k", 1, 2, roles=KEYS, attr="k", title=QT_TR_NOOP("k[:, {g}]  (key j)"), trace="k"),
        Slot("v", 1, 3, roles=KEYS, attr="v", title=QT_TR_NOOP("v[:, {g}]  (value j)"), trace="v"),
        Slot("rot_q", 1, 4, attr="rq", title="rot_q[:, {h}] = RoPE(q)", when="rope"),
        Slot("rot_k", 1, 5, roles=KEYS, attr="rk", title="rot_k[:, {g}] = RoPE(k)", when="rope"),
    ), shared=(("W_Q", "W_K", "W_V"), ("q", "k", "v", "rot_q", "rot_k")),
        locked=(("ln1_out", "q", "k", "v", "rot_q", "rot_k"),), col_stretch=(8, 4, 4, 4, 4, 4),
        shapes="W_Q[h]: [d_model, d_head] = [{d_model}, {d_head}] · q[:, h]: [T, d_head] = [{T}, {d_head}]",
        # a real model's W (d_model rows) reads as a texture: the rows that multiply take the height
        family={"rope": dict(formula=QT_TR_NOOP("q = ln1_out · W_Q[h] (likewise k, v);&nbsp; rot_q, rot_k = q, k "
                                                "with each pair of dimensions rotated by an angle ∝ the position "
                                                "(RoPE)"), row_stretch=(1, 5)),
                "gqa": dict(shapes="W_Q[h]: [d_model, d_head] = [{d_model}, {d_head}] · q: [T, n_heads, d_head] = "
                                   "[{T}, {n_heads}, {d_head}] · k, v: [T, n_kv_heads, d_head] = "
                                   "[{T}, {n_kv_heads}, {d_head}]"),
                # QK-norm (Qwen3, Gemma 3, OLMo 2): q and k normed before RoPE turns them
                "qknorm": dict(
                    formula=QT_TR_NOOP("q = ln1_out · W_Q[h] (likewise k, v);&nbsp; q_normed, k_normed = RMSNorm of "
                                       "q, k (QK-norm);&nbsp; rot_q, rot_k = those with each pair of dimensions "
                                       "rotated (RoPE)"),
                    slots=(Slot("ln1_out", 1, 0, attr="x"),
                           Slot("W_Q", 0, 1, roles=(None, None), attr="wq", weight=0.5),
                           Slot("W_K", 0, 2, roles=(None, None), attr="wk", weight=0.5),
                           Slot("W_V", 0, 3, roles=(None, None), attr="wv", weight=0.5),
                           Slot("q", 1, 1, attr="q", title=QT_TR_NOOP("q[:, {h}]  (query i)"), trace="q"),
                           Slot("k", 1, 2, roles=KEYS, attr="k", title=QT_TR_NOOP("k[:, {g}]  (key j)"), trace="k"),
                           Slot("v", 1, 3, roles=KEYS, attr="v", title=QT_TR_NOOP("v[:, {g}]  (value j)"), trace="v"),
                           Slot("q_normed", 1, 4, attr="qn", title="q_normed[:, {h}]"),
                           Slot("k_normed", 1, 5, roles=KEYS, attr="kn", title="k_normed[:, {g}]"),
                           Slot("rot_q", 1, 6, attr="rq", title="rot_q[:, {h}]", when="rope"),
                           Slot("rot_k", 1, 7, roles=KEYS, attr="rk", title="rot_k[:, {g}]", when="rope")),
                    shared=(("W_Q", "W_K", "W_V"), ("q", "k", "v"), ("q_normed", "k_normed", "rot_q", "rot_k")),
                    locked=(("ln1_out", "q", "k", "v"),), col_stretch=(8, 4, 4, 4, 4, 4, 4, 4))}),
    # raw, scaled and masked on one scale: the ÷√d_head shows as paler colours.
    StationView("scores", QT_TR_NOOP("attn_scores_raw = q·kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern"), (
        Slot("attn_scores_raw", 0, 0, roles=QK, attr="raw", trace="attn_scores"),
        Slot("attn_scores_scaled", 0, 1, roles=QK, attr="scaled", trace="attn_scores"),
        Slot("attn_scores", 1, 0, roles=QK, attr="masked", trace="attn_scores"),
        Slot("pattern", 1, 1, roles=QK, attr="pattern", trace="attn_scores", weight=3.0),
    ), shared=(("attn_scores_raw", "attn_scores_scaled", "attn_scores"),), panel_size=(380, 340),
        shapes=QT_TR_NOOP("[T, T] = [{T}, {T}] = {TT} scores per head"),
        # wide and short (a laptop on a projector): the pattern large, the scores small beside it
        layouts=(Layout(((0, 1, 1, 1), (0, 2, 1, 1), (1, 1, 1, 1), (0, 0, 2, 1)), col_stretch=(2, 1, 1),
                        min_aspect=1.6),
                 # a projector: the pattern takes the height, the three scores a column of thumbnails
                 Layout(((0, 1, 1, 1), (1, 1, 1, 1), (2, 1, 1, 1), (0, 0, 3, 1)), col_stretch=(3, 1),
                        min_aspect=1.6)),
        family={"rope": dict(formula=QT_TR_NOOP("attn_scores_raw = rot_q·rot_kᵀ → ÷ √d_head → causal mask (−∞) → "
                                     "softmax = pattern")),
                # Gemma 2: a stage between the scale and the mask, on the same colour scale (the cap flattens)
                "softcap": dict(formula=QT_TR_NOOP("attn_scores_raw → × scale → soft-cap: cap·tanh(s / cap) → causal "
                                                   "mask (−∞) → softmax = pattern"),
                                slots=(Slot("attn_scores_raw", 0, 0, roles=QK, attr="raw", trace="attn_scores"),
                                       Slot("attn_scores_scaled", 0, 1, roles=QK, attr="scaled", trace="attn_scores"),
                                       Slot("attn_scores_capped", 0, 2, roles=QK, attr="capped"),
                                       Slot("attn_scores", 1, 0, roles=QK, attr="masked", trace="attn_scores"),
                                       Slot("pattern", 1, 1, colspan=2, roles=QK, attr="pattern", trace="attn_scores",
                                            weight=3.0)),
                                shared=(("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped",
                                         "attn_scores"),),
                                # wide: the pattern large on the left, the four score maps in two rows beside it
                                layouts=(Layout(((0, 1, 1, 1), (0, 2, 1, 1), (1, 1, 1, 1), (1, 2, 1, 1),
                                                 (0, 0, 2, 1)), col_stretch=(2, 1, 1), min_aspect=1.6),))}),
    StationView("softmax", "pattern[h, i, j] = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij)", (
        Slot("scores_row", 0, 0, roles=(None, "key"), attr="scores_row"),
        Slot("pattern_row", 1, 0, roles=(None, "key"), attr="pattern_row"),
    ), shapes=QT_TR_NOOP("one row of [T, T], T = {T}"), panel_size=(640, 150)),
    # v → p·v → z on one scale: the weights shrink the rows, the column sums are z.
    StationView("weighted_sum", "z[i, h] = Σ_j pattern[h, i, j] · v[j, h]", (
        Slot("pattern_col", 0, 0, roles=KEYS, attr="p", colorbar=False, keys_masked=True),
        Slot("v", 0, 1, roles=KEYS, attr="v", title="v[j, {g}]", keys_masked=True),
        Slot("terms", 0, 2, roles=KEYS, attr="terms", keys_masked=True),
        # z under the terms it sums, column under column: no labels of its own (its title names i), so
        # its cells line up with the terms' and the row above takes the height its axis took.
        Slot("z_row", 1, 2, roles=(None, None), attr="z", bare=True),
    ), shared=(("v", "terms", "z"),), col_stretch=(1, 4, 4), row_stretch=(6, 1), panel_size=(340, 250),
        shapes=QT_TR_NOOP("v[:, h]: [T, d_head] = [{T}, {d_head}] · query i = {i}"),
        family={"gqa": dict(formula="z[i, h] = Σ_j pattern[h, i, j] · v[j, g],&nbsp; g = h // (n_heads / n_kv_heads)",
                            shapes=QT_TR_NOOP("v[:, g]: [T, d_head] = [{T}, {d_head}] · query i = {i}"))}),
    # resid_pre above resid_mid, beside attn_out, all on one scale: the residual add shows.
    StationView("heads", "z_concat = [z_0 | z_1 | …];&nbsp; attn_out = Σ_h z_h · W_O[h] + b_O;&nbsp; "
                         "resid_mid = resid_pre + attn_out", (
        Slot("z_concat", 0, 0, attr="zc"),
        Slot("W_O_stacked", 0, 1, roles=(None, None), attr="wo", weight=0.5),
        Slot("resid_pre", 0, 2, attr="pre"),
        Slot("result", 1, 0, attr="res"),
        Slot("attn_out", 1, 1, attr="out"),
        Slot("resid_mid", 1, 2, attr="mid"),
    # A head's share and their sum on one scale, the stream before and after on another: a real
    # model's residual stream is ~100x attn_out (one colour scale, 'lock', puts all on one).
    ), shared=(("result", "attn_out"), ("resid_pre", "resid_mid")),
        locked=(("z_concat", "result", "attn_out", "resid_pre", "resid_mid"),),
        # A projector: the token panels in one row (each token labelled once, on the left, at full
        # size), W_O a strip over the heads' results.
        layouts=(Layout(((1, 0, 1, 1), (0, 1, 1, 2), (1, 3, 1, 1), (1, 1, 1, 1), (1, 2, 1, 1), (1, 4, 1, 1)),
                        row_stretch=(1, 5)),),
        shapes="z_concat: [T, n_heads·d_head] = [{T}, {d_concat}] · W_O: [n_heads·d_head, d_model] = "
               "[{d_concat}, {d_model}]",
        family={"nobias": dict(formula="z_concat = [z_0 | z_1 | …];&nbsp; attn_out = Σ_h z_h · W_O[h];&nbsp; "
                                       "resid_mid = resid_pre + attn_out"),
                # Gemma 2/3, OLMo 2: the residual adds attn_out's norm, between the two in the second row
                "postnorm": dict(formula="z_concat = [z_0 | z_1 | …];&nbsp; attn_out = Σ_h z_h · W_O[h];&nbsp; "
                                         "resid_mid = resid_pre + RMSNorm(attn_out)",
                                 slots=(Slot("z_concat", 0, 0, attr="zc"),
                                        Slot("W_O_stacked", 0, 1, roles=(None, None), attr="wo"),
                                        Slot("resid_pre", 0, 2, attr="pre"),
                                        Slot("result", 1, 0, attr="res"),
                                        Slot("attn_out", 1, 1, attr="out"),
                                        Slot("attn_out_normed", 1, 2, attr="normed"),
                                        Slot("resid_mid", 1, 3, attr="mid")))}),
    StationView("mlp", "mlp_out = GELU(ln2_out · W_in + b_in) · W_out + b_out;&nbsp; "
                       "resid_post = resid_mid + mlp_out", (
        Slot("ln2_out", 0, 0, attr="ln2"),
        Slot("mlp_pre", 0, 1, attr="pre"),
        Slot("mlp_post", 0, 2, attr="post"),
        Slot("mlp_out", 1, 0, attr="out"),
        Slot("resid_post", 1, 1, attr="resid"),
    ), shared=(("mlp_pre", "mlp_post"),),
        locked=(("ln2_out", "mlp_out", "resid_post"),),
        shapes=QT_TR_NOOP("mlp_pre: [T, d_mlp] = [{T}, {d_mlp}] · logits via {unembed}"),
        family={"swiglu": dict(
            formula=QT_TR_NOOP("mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&nbsp; "
                    "resid_post = resid_mid + mlp_out&nbsp; (SwiGLU: gate ⊙ up)"),
            # Four columns: short titles that fit (the header has the equations).
            slots=(Slot("ln2_out", 0, 0, attr="ln2"),
                   Slot("mlp_pre", 0, 1, attr="pre", title=QT_TR_NOOP("mlp_pre (gate)")),
                   Slot("mlp_pre_linear", 0, 2, attr="lin", title=QT_TR_NOOP("mlp_pre_linear (up)")),
                   Slot("mlp_post", 0, 3, attr="post", title=QT_TR_NOOP("mlp_post = SiLU(gate) ⊙ up")),
                   Slot("W_out", 1, 0, roles=(None, None), attr="wout"),
                   Slot("mlp_out", 1, 1, attr="out"),
                   Slot("resid_post", 1, 2, attr="resid", title="resid_post")),
            shared=(("mlp_pre", "mlp_pre_linear"),), panel_size=(330, 320),
            layouts=(),
            shapes=QT_TR_NOOP("mlp_pre (gate), mlp_pre_linear (up), mlp_post: [T, d_mlp] = [{T}, {d_mlp}] · "
                   "W_out: [d_mlp, d_model] = [{d_mlp}, {d_model}] · logits via {unembed}")),
        # A mixture of experts: the router's choice per token, then the experts' weighted sum.
        "moe": dict(
            formula=QT_TR_NOOP("router_probs = softmax(ln2_out · W_router);&nbsp; each token through its top-k "
                               "experts e: (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e];&nbsp; "
                               "mlp_out = Σ_e expert_weights[e] · expert_out[e]"),
            # Four columns as SwiGLU's: the next-token bars take the last one of the second row.
            slots=(Slot("ln2_out", 0, 0, attr="ln2"),
                   Slot("router_probs", 0, 1, attr="router"),
                   Slot("expert_weights", 0, 2, attr="weights"),
                   Slot("expert_out", 0, 3, attr="expert"),
                   Slot("W_router", 1, 0, roles=(None, None), attr="wrouter"),
                   Slot("mlp_out", 1, 1, attr="out"),
                   Slot("resid_post", 1, 2, attr="resid", title="resid_post")),
            shared=(("router_probs", "expert_weights"),), panel_size=(330, 320), layouts=(),
            shapes=QT_TR_NOOP("router_probs, expert_weights: [T, n_experts] = [{T}, {n_experts}] · each of "
                              "{n_experts} experts: W_gate, W_in [d_model, d_mlp] = [{d_model}, {d_mlp}] · "
                              "logits via {unembed}"))}),
)}


# Gemma's GeGLU: SwiGLU's chain with a tanh-GELU gate, and its norm after the MLP where SwiGLU shows W_out
# (the second row's last column is the next-token bars').
_SWIGLU = STATION_VIEWS["mlp"].family["swiglu"]
_GEGLU_ROW2 = (Slot("mlp_out", 1, 0, attr="out"), Slot("mlp_out_normed", 1, 1, attr="normed", when="postnorm"),
               Slot("resid_post", 1, 2, attr="resid", title="resid_post"))
STATION_VIEWS["mlp"] = dataclasses.replace(STATION_VIEWS["mlp"], family={**STATION_VIEWS["mlp"].family, "geglu": {
    **_SWIGLU, "formula": "mlp_out = (GELU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&nbsp; "
                          "resid_post = resid_mid + RMSNorm(mlp_out)&nbsp; (GeGLU)",
    "slots": tuple(dataclasses.replace(slot, title=QT_TR_NOOP("mlp_post = GELU(gate) ⊙ up")) if slot.view == "mlp_post"
                   else slot for slot in _SWIGLU["slots"] if slot.row == 0) + _GEGLU_ROW2}})
# Every model with a norm after the MLP shows what the residual adds, mlp_out_normed, beside mlp_out (as
# Heads·W_O shows attn_out_normed): OLMo 2's SwiGLU as Gemma's GeGLU (W_out gives its place), and a
# GELU MLP's first row one column wider so the next-token bars keep the second row's last column.
_GELU = STATION_VIEWS["mlp"]
STATION_VIEWS["mlp"] = dataclasses.replace(_GELU, family={**_GELU.family, "swiglu+postnorm": {
    "formula": QT_TR_NOOP("mlp_out = (SiLU(ln2_out · W_gate) ⊙ (ln2_out · W_in)) · W_out;&nbsp; "
                          "resid_post = resid_mid + RMSNorm(mlp_out)&nbsp; (SwiGLU: gate ⊙ up)"),
    "slots": tuple(slot for slot in _SWIGLU["slots"] if slot.row == 0) + _GEGLU_ROW2}, "gelu+postnorm": {
    "formula": QT_TR_NOOP("mlp_out = GELU(ln2_out · W_in + b_in) · W_out + b_out;&nbsp; "
                          "resid_post = resid_mid + RMSNorm(mlp_out)"),
    "slots": tuple(dataclasses.replace(slot, colspan=2) if slot.view == "mlp_post" else slot
                   for slot in _GELU.slots if slot.row == 0) + _GEGLU_ROW2}})


def gate_name(cfg: Config) -> str:
    """The gated MLP's gate function as its title writes it: SiLU (SwiGLU) or GELU (GeGLU)."""
    return "GELU" if cfg.components.has("geglu") else "SiLU"


@lru_cache(maxsize=64)
def station_view(key: str, cfg: Config) -> StationView:
    """The station's view for this model: its family's overrides applied, the slots its model
    has (a station rebuilds its plots when this changes)."""
    view = STATION_VIEWS[key]
    for when, changes in view.family.items():
        if meets(cfg, when):
            view = dataclasses.replace(view, **changes)
    return dataclasses.replace(view, slots=tuple(s for s in view.slots if meets(cfg, s.when)), family={})


# Robust colour scales: the numbers (where a scale ends, which cells it clips) come from
# compute/instruments/explain.py (robust_scale, beyond_scale); here they become a Panel's levels,
# its marked cells and its caption.
def _clip(p: Panel, levels: tuple[float, float], cut: float) -> Panel:
    """`p` on `levels`, its outliers (|x| >= cut) listed (largest first) for marking, and what it
    clips named in a caption."""
    cells, size = explain.beyond_scale(p.values, levels, p.masked)       # [n, 2], [n]
    if not len(cells):
        return dataclasses.replace(p, levels=levels)
    i, j = (int(x) for x in cells[0])
    row = p.rows[i] if i < len(p.rows) else str(i)
    where = (row if p.values.shape[1] == 1 else
             tr("{axis} {j} at “{row}”").format(axis=p.col_axis or tr("column"), j=j, row=row.strip() or row))
    n, value, end = len(cells), _big(float(p.values[i, j])), _big(levels[1])
    if levels[0] >= 0:                                                    # a 0…end scale (ln1_scale): no ±
        caption = tr("▲ {where} = {value} · %n clipped above {end}", "", n).format(where=where, value=value, end=end)
    else:
        caption = tr("▲ {where} = {value} · %n clipped beyond ±{end}", "", n).format(where=where, value=value, end=end)
    return dataclasses.replace(p, levels=levels, clipped=cells[size >= cut][:explain.MARKED], caption=caption)


def _big(v: float) -> str:
    return (num(v, ",.0f") if abs(v) >= 100 else num(v, ".3g")).replace("-", "−")


def robust_levels(panels: list[Panel], names: tuple[str, ...] | None = None, full: bool = False) -> list[Panel]:
    """One colour scale for the named panels (so their colours compare; None: each panel its
    own), robust to outliers unless `full` (compute.instruments.explain.robust_scale). Panels whose levels are fixed
    (the pattern's 0…1) keep them."""
    groups = [[p for p in panels if p.name in names and not p.missing]] if names is not None else \
        [[p] for p in panels if not p.missing and p.levels is None and p.values.size]
    out = {}
    for group in groups:
        if not group:
            continue
        sequential = all(p.kind == "sequential" and np.nanmin(p.values, initial=0.0) >= 0 for p in group)
        scale = explain.robust_scale(*(p.values for p in group))
        end, top, cut = scale.end, scale.top, scale.cut
        if names is None and end == top:
            continue                                   # nothing clipped: the plot's own full range
        shown = top if full else end
        levels = (0.0, shown if shown > 0 else 1.0) if sequential else ((-shown, shown) if shown > 0 else (-1.0, 1.0))
        for p in group:
            if end == top:
                out[id(p)] = dataclasses.replace(p, levels=levels)
            elif full:
                words = (tr("full range 0…{top}: outliers set the scale (click: clip at {end})") if sequential
                         else tr("full range ±{top}: outliers set the scale (click: clip at ±{end})"))
                out[id(p)] = dataclasses.replace(p, levels=levels, caption=words.format(top=_big(top), end=_big(end)))
            else:
                out[id(p)] = _clip(p, levels, cut)
    return [out.get(id(p), p) for p in panels]


def share_levels(panels: list[Panel], names: tuple[str, ...], full: bool = False) -> list[Panel]:
    """One colour scale for the named panels (so their colours compare), robust to outliers."""
    return robust_levels(panels, names, full)


def masked_keys(result, sel) -> np.ndarray:
    """The keys j the selected query may not see (−∞ in its attn_scores row) [T]."""
    return forbidden(result.trace, sel.layer, rows=sel.query)


def mask_keys(p: Panel, result, sel) -> Panel:
    """A panel whose rows are keys of the query, with the keys it may not see hatched (no text)."""
    forbidden = masked_keys(result, sel)                                   # [T]
    masked = np.broadcast_to(forbidden[:, None], p.values.shape).copy()    # [T, cols]
    return dataclasses.replace(p, masked=masked, masked_text="")


def station_panels(key: str, result, sel) -> list[Panel]:
    """The panels of a station for this result and selection, in its slots' order."""
    cfg = result.inputs.config
    view = station_view(key, cfg)
    panels = []
    for slot in view.slots:
        p = panel(slot.view, result, dataclasses.replace(sel, layer=0) if slot.layer0 else sel)
        if slot.title and not p.missing:
            p = dataclasses.replace(p, title=tr(slot.title).format(h=sel.head, i=sel.query, g=kv_head(cfg, sel.head)))
        if slot.keys_masked and not p.missing:
            p = mask_keys(p, result, sel)
        panels.append(p)
    full = getattr(sel, "full_range", False)
    for group in view.shared + (view.locked if sel.lock_scales else ()):
        panels = share_levels(panels, group, full)
    return traced_cell(key, robust_levels(panels, full=full), sel)


SCORE_MAPS = ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern")
# Panels whose row i (and, of a T×T map, key column j) depends on tokens 0..i (j) alone: after an
# edit at position p their first p rows (and columns) are what they were (the screen draws only the rest).
TOKEN_MAPS = frozenset(SCORE_MAPS)
TOKEN_ROWS = frozenset({
    "embed", "pos_embed", "resid_pre", "ln1_out", "ln1_mean", "ln1_var", "ln1_scale", "q", "k", "v", "q_normed",
    "k_normed", "rot_q", "rot_k", "z", "z_concat", "result", "attn_out", "attn_out_normed", "resid_mid", "ln2_out",
    "ln2_mean", "ln2_var", "ln2_scale", "mlp_pre", "mlp_pre_linear", "mlp_post", "router_logits", "router_probs",
    "expert_weights", "expert_out", "mlp_out", "mlp_out_normed", "resid_post", "ln_final_out", "logits"})


def traced_cell(key: str, panels: list[Panel], sel) -> list[Panel]:
    """The score cell the Trace tab takes apart (sel.trace = ("attn_scores", i, j)), outlined in
    every score map of the Scores station: the number on the tab is that cell."""
    traced = getattr(sel, "trace", None)
    if key != "scores" or not traced or traced[0] != "attn_scores":
        return panels
    _, i, j = traced
    return [dataclasses.replace(p, outline=(i, j, 1, 1)) if p.name in SCORE_MAPS and p.outline is None
            and not p.missing and i < p.values.shape[0] and j < p.values.shape[1] else p for p in panels]


def window_words(cfg: Config, layer: int, query: int, T: int) -> str:
    """What a sliding window forbids in `layer`, for the selected query ("" for a dense layer):
    which keys are outside the window (hatched like the future keys)."""
    W = cfg.window(layer)
    if W is None:
        return ""
    outside = query - W + 1                      # keys j ≤ i − W are outside
    if outside <= 0:
        where = tr("query i = {i} sees every earlier key (the window is not full yet)").format(i=query)
    elif outside == 1:
        where = tr("for query i = {i}, key 0 is outside the window").format(i=query)
    else:
        where = tr("for query i = {i}, keys 0–{last} are outside the window").format(i=query, last=outside - 1)
    return tr("window W = {W}: query i sees keys i−{back} … i; {where} (hatched)").format(W=W, back=W - 1,
                                                                                        where=where)


def layer_kind_words(cfg: Config, layer: int) -> str:
    """What kind of layer `layer` is, where the model's layers differ ("" where they are all alike):
    Gemma 3's "local (window 512) · RoPE base 10,000" and "global · RoPE base 1,000,000"."""
    kinds = cfg.components.layers
    if len(kinds) < 2:
        return ""
    kind = kinds[min(layer, len(kinds) - 1)]
    parts = []
    if len({k.window for k in kinds}) > 1:
        parts.append(tr("local (window {W})").format(W=num(kind.window, ",")) if kind.local else tr("global"))
    if len({k.rope_base for k in kinds}) > 1 and kind.rope_base is not None:
        base = kind.rope_base
        parts.append(tr("RoPE base {base}").format(base=num(int(base), ",") if base == int(base) else num(base, ",g")))
    return " · ".join(parts)


def station_shapes(key: str, result, sel) -> str:
    """The station's sizes line at the current sizes, e.g. "[T, T] = [6, 6] = 36 scores per head"."""
    cfg, T = result.inputs.config, result.trace.T
    fields = {**cfg.to_dict(), "norm_eps": cfg.norm_eps, "n_kv_heads": cfg.n_kv_heads, "rope_theta": cfg.rope_theta}
    unembed = tr("W_Eᵀ (tied)") if cfg.tied_embeddings else tr("unembed.W_U (untied)")
    text = tr(station_view(key, cfg).shapes).format(T=T, TT=num(T * T, ","), i=sel.query, d_concat=cfg.d_concat,
                                               unembed=unembed, **fields)
    if key in ("scores", "softmax") and cfg.window(sel.layer) is not None:
        text += " · " + window_words(cfg, sel.layer, sel.query, T)
    return text


# -- the block as one picture -------------------------------------------------------------------------
@dataclass(frozen=True)
class MapNode:
    """One node of the block map: the station a click goes to, the view its thumbnail shows."""

    station: str                               # compute.stations.PAGE key
    view: str                                  # a `panel()` name
    label: str                                 # its name on the map
    stream: bool = False                       # on the residual stream (the input and the two adds)


# The residual stream x → x + attn(LN 1(x)) → + mlp(LN 2(x)): the branches leave the stream and
# come back at the adds (pre-LayerNorm GPT-2, docs/ARCHITECTURE.md).
BLOCK_MAP: tuple[MapNode, ...] = (
    MapNode("embeddings", "resid_pre", "resid_pre", stream=True),
    MapNode("layernorm", "ln1_out", "LN 1"),
    MapNode("projections", "q", "Q · K · V"),
    MapNode("scores", "attn_scores", QT_TR_NOOP("scores")),
    MapNode("softmax", "pattern", "softmax"),
    MapNode("weighted_sum", "z", "Σ p·v"),
    MapNode("heads", "attn_out", QT_TR_NOOP("heads · W_O")),
    MapNode("heads", "resid_mid", "+  resid_mid", stream=True),
    MapNode("mlp", "ln2_out", "LN 2"),
    MapNode("mlp", "mlp_out", "MLP"),
    MapNode("mlp", "resid_post", "+  resid_post", stream=True),
)


def block_map_panels(result, sel) -> list[Panel]:
    """The thumbnails of the block map, in the order of the stream; the input and the adds share
    one colour scale, so the stream's change shows."""
    panels = [dataclasses.replace(panel(node.view, result, sel), name=f"{k}:{node.view}", title=tr(node.label))
              for k, node in enumerate(BLOCK_MAP)]
    stream = tuple(p.name for p, node in zip(panels, BLOCK_MAP, strict=True) if node.stream)
    full = getattr(sel, "full_range", False)
    # No captions: a thumbnail is too narrow to name its outliers (the station does; the marks stay).
    return [dataclasses.replace(p, caption="") for p in robust_levels(share_levels(panels, stream, full), full=full)]
