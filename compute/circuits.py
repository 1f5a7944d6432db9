"""Circuits: interventions in a forward pass, and the numbers interpretability asks of a Trace.

    trace = forward(cfg, w, tokens, "cpu", interventions=[Ablate(4, 3)])        # head 4.3's z = 0
    trace = forward(cfg, w, corrupted, "cpu", interventions=[Patch("z", 4, clean, head=3)],
                    reuse=corrupted_trace)                  # layers < 4 taken, 4.. recomputed
    head_attribution(trace, token)                          # [n_layers, n_heads] direct logit attribution
    logit_lens(trace, position)                             # the top tokens after every layer
    score_parts(trace, layer, head, i, j)                   # q_i·k_j by dimension, RoPE pair and source
    patching.find_heads(cfg, w)                             # induction, previous-token, sink, duplicate scores
    patching.patching(cfg, w, clean, corrupted, answer, wrong)   # activation patching maps

Interventions (`Ablate`, `Patch`) replace one Trace value of one layer; everything the block computes
from it, and every later layer, follows. A pass with interventions takes the layers before the first
intervened one from the backend's own clean pass (or from `reuse`, a Trace of the same tokens), and
computes the layers from it on with the block's equations written once here (those of
backends/reference.py, with a hook after each name) in the backend's dtype: float64 for `reference`,
float32 for `cpu` and `cuda` (on the host: the layers an intervention changes are a handful of small
products at a prompt's length).

No Qt here (compute/ never imports it).
"""
from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import progress
from .backends.base import allowed_pairs
from .backends.reference import softmax_rows
from .config import Config
from .names import layer_names, layer_values
from .weights import Weights


class InterventionError(ValueError):
    """An intervention that does not fit the model or the pass; the message says which field and why."""


# Values with a head axis: name -> (axis of the heads, which heads: "q" = n_heads, "kv" = n_kv_heads).
HEAD_AXIS = {"q": (1, "q"), "rot_q": (1, "q"), "k": (1, "kv"), "rot_k": (1, "kv"), "v": (1, "kv"),
             "q_normed": (1, "q"), "k_normed": (1, "kv"),
             "attn_scores_raw": (0, "q"), "attn_scores_scaled": (0, "q"), "attn_scores_capped": (0, "q"),
             "attn_scores": (0, "q"),
             "pattern": (0, "q"), "z": (1, "q"), "result": (1, "q")}
# Statistics of a norm and the concatenated z are outputs only: what uses them is computed from
# another name (patch ln1_out, z instead).
NOT_PATCHABLE = ("ln1_mean", "ln1_var", "ln1_scale", "ln2_mean", "ln2_var", "ln2_scale", "z_concat")
ABLATIONS = ("zero", "mean")


def patchable_names(cfg: Config) -> tuple[str, ...]:
    """The per-layer names an intervention may replace, in block order."""
    return tuple(n for n in layer_names(cfg) if n not in NOT_PATCHABLE)


@dataclass(frozen=True)
class Ablate:
    """Knock head `head` of layer `layer` out: its z [T, d_head] replaced by zeros (`how="zero"`) or
    by its mean over the positions of this pass (`how="mean"`); its result, attn_out and every later
    layer follow."""

    layer: int
    head: int
    how: str = "zero"

    name = "z"                                   # the value it replaces (a class attribute, not a field)

    def describe(self) -> str:
        return f"ablate L{self.layer}H{self.head} ({self.how})"


@dataclass(frozen=True, eq=False)
class Patch:
    """Replace `name` of layer `layer` with the same value of the Trace `source` (prompts of equal
    length): all of it, or one head (`head`, on the value's head axis) and/or some positions
    (`positions`: query rows for the [n_heads, T, T] maps)."""

    name: str
    layer: int
    source: Any                                  # compute.Trace
    head: int | None = None
    positions: Sequence[int] | None = None

    def describe(self) -> str:
        where = f"H{self.head}" if self.head is not None else ""
        at = f" @{list(self.positions)}" if self.positions is not None else ""
        return f"patch {self.name} L{self.layer}{where}{at}"


Intervention = Ablate | Patch


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InterventionError(f"{what} must be a whole number, not {value!r}")
    return int(value)


def check_interventions(cfg: Config, T: int, interventions: Any) -> tuple[Intervention, ...]:
    """The interventions as a tuple, each checked against the model and a pass of T tokens; the
    first that does not fit is an InterventionError naming it and saying why."""
    if isinstance(interventions, (Ablate, Patch)):
        interventions = [interventions]
    try:
        items = tuple(interventions)
    except TypeError:
        raise InterventionError(f"interventions must be a list of Ablate or Patch, not {interventions!r}") from None
    names = patchable_names(cfg)
    for iv in items:
        if not isinstance(iv, (Ablate, Patch)):
            raise InterventionError(f"an intervention must be compute.Ablate or compute.Patch, not {iv!r}")
        layer = _whole(iv.layer, f"{type(iv).__name__}.layer")
        if not 0 <= layer < cfg.n_layers:
            raise InterventionError(f"layer {iv.layer} does not exist; this model has layers 0..{cfg.n_layers - 1}")
        if isinstance(iv, Ablate):
            head = _whole(iv.head, "Ablate.head")
            if not 0 <= head < cfg.n_heads:
                raise InterventionError(f"head {iv.head} does not exist; layer {layer} has heads 0..{cfg.n_heads - 1}")
            if iv.how not in ABLATIONS:
                raise InterventionError(f"Ablate.how must be 'zero' or 'mean', not {iv.how!r}")
            continue
        if iv.name not in names:
            if iv.name in NOT_PATCHABLE:
                why = "it is an output only (patch ln1_out, ln2_out or z instead)"
            elif iv.name in layer_names(cfg):
                why = "it cannot be patched"
            else:
                why = "this model has no such per-layer value"
            raise InterventionError(f"cannot patch {iv.name!r}: {why}; patchable: {', '.join(names)}")
        source = iv.source
        if not hasattr(source, "cfg") or not hasattr(source, "stored"):
            raise InterventionError(f"Patch.source must be a Trace, not {type(source).__name__}")
        if not source.cfg.same_shapes(cfg):
            raise InterventionError("Patch.source is a Trace of another model shape; patch between passes of one model")
        if source.T != T:
            raise InterventionError(f"Patch.source has {source.T} tokens, this pass {T}: patching needs prompts "
                                    "of equal length")
        if not source.has(iv.name, layer):
            raise InterventionError(f"Patch.source has no {iv.name!r} of layer {layer} (a partial Trace)")
        if iv.head is not None:
            if iv.name not in HEAD_AXIS:
                raise InterventionError(f"{iv.name!r} has no head axis; leave head=None")
            head = _whole(iv.head, "Patch.head")
            n = cfg.n_heads if HEAD_AXIS[iv.name][1] == "q" else cfg.n_kv_heads
            if not 0 <= head < n:
                kind = "K/V heads" if HEAD_AXIS[iv.name][1] == "kv" else "heads"
                raise InterventionError(f"head {iv.head} does not exist; {iv.name!r} has {kind} 0..{n - 1}")
        if iv.positions is not None:
            try:
                pos = [_whole(p, "a position") for p in iv.positions]
            except TypeError:
                raise InterventionError(f"Patch.positions must be a list of positions, not {iv.positions!r}") from None
            bad = [p for p in pos if not -T <= p < T]
            if bad:
                raise InterventionError(f"positions {bad} are outside 0..{T - 1}")
    return items


def replaced(value: np.ndarray, iv: Intervention, dtype) -> np.ndarray:
    """`value` (one Trace name of one layer) with the intervention applied: a new array."""
    new = np.array(value, dtype=dtype, copy=True)
    if isinstance(iv, Ablate):
        h = iv.head
        new[:, h] = 0.0 if iv.how == "zero" else value[:, h].mean(axis=0)       # [T, d_head]
        return new
    src = np.asarray(iv.source[iv.name, iv.layer], dtype=dtype)                  # the same shape
    index: list[Any] = [slice(None)] * new.ndim
    pos_axis = 1 if iv.name in HEAD_AXIS and HEAD_AXIS[iv.name][0] == 0 else 0
    if iv.positions is not None:
        index[pos_axis] = np.asarray(list(iv.positions), dtype=np.int64)
    if iv.head is not None:
        index[HEAD_AXIS[iv.name][0]] = int(iv.head)
    new[tuple(index)] = src[tuple(index)]
    return new


def first_layer(interventions: Sequence[Intervention]) -> int:
    return min(int(iv.layer) for iv in interventions)


def base_usable(base: Any, cfg: Config, weights: Weights, ids: np.ndarray, mask: np.ndarray | None,
                backend: str, first: int) -> bool:
    """Whether `base` (a Trace) has exactly the layers < `first` this pass needs: same config, weights,
    backend, tokens and mask, complete, and any interventions of its own at layers >= `first`."""
    if (not hasattr(base, "stored") or not base.complete or base.cfg != cfg or base.weights_uid != weights.uid
            or base.backend != backend or base.T != len(ids) or not np.array_equal(base.tokens, ids)):
        return False
    if (base.attn_mask is None) != (mask is None) or (mask is not None and not np.array_equal(base.attn_mask, mask)):
        return False
    return all(int(iv.layer) >= first for iv in getattr(base, "interventions", ()))


@dataclass
class Stepped:
    arrays: dict
    logits_fn: Callable
    timing_ms: dict = field(default_factory=dict)
    reused_layers: int = 0


def run_intervened(cfg: Config, weights: Weights, ids: np.ndarray, mask: np.ndarray | None, backend,
                   interventions: tuple[Intervention, ...], base: Any = None, clean: Callable | None = None) -> Stepped:
    """The arrays of a pass with `interventions`: layers before the first intervened one from `base`
    (a usable Trace) or from `clean()` (the backend's own pass, a Trace), the rest computed here in
    the backend's dtype."""
    t0 = time.perf_counter()
    first = first_layer(interventions)
    dtype = np.dtype(backend.dtype)
    arrays: dict = {"tokens": ids}
    reused = 0
    if first > 0:
        if base is None:
            base = clean()
        else:
            reused = first
        for key in ("embed", "pos_embed"):
            if base.has(key):
                arrays[key] = base.stored(key)
        for layer in range(first):
            for name in layer_names(cfg):
                arrays[(name, layer)] = base.stored((name, layer))
        resid = np.asarray(base["resid_pre", first], dtype=dtype)                # [T, d_model]
    else:
        embed = weights["embed.W_E"][ids].astype(dtype) * dtype.type(cfg.components.embed_scale)   # [T, d_model]
        arrays["embed"] = embed
        resid = embed
        if cfg.components.positions.embeds:
            pos_embed = weights["pos_embed.W_pos"][:len(ids)]                    # [T, d_model] (a view)
            arrays["pos_embed"] = pos_embed
            resid = embed + pos_embed.astype(dtype)                              # [T, d_model]
    t1 = time.perf_counter()
    edits: dict[tuple[str, int], list[Intervention]] = {}
    for iv in interventions:
        edits.setdefault((iv.name, int(iv.layer)), []).append(iv)
    with _one_blas_thread():
        values, resid = layers_from(cfg, weights, dtype, resid, first, mask, edits)
    arrays.update(values)
    final = cfg.components.norm.reference(resid, _w(weights, "ln_final.w", dtype), _w(weights, "ln_final.b", dtype))
    ln_final_out = final["out"]
    arrays["ln_final_out"] = ln_final_out                                        # [T, d_model]
    unembed = weights["embed.W_E"].T if cfg.tied_embeddings else weights["unembed.W_U"]   # [d_model, d_vocab]

    cap = cfg.components.final_softcap                                           # Gemma 2: logits capped

    def logits_fn(rows):
        logits = ln_final_out[rows] @ unembed.astype(dtype, copy=False)          # [R, d_vocab]
        return logits if cap is None else cap.reference(logits)

    t2 = time.perf_counter()
    return Stepped(arrays, logits_fn, {"base": (t1 - t0) * 1e3, "intervened layers": (t2 - t1) * 1e3,
                                       "total": (t2 - t0) * 1e3}, reused)


_BLAS = []


def _one_blas_thread():
    """BLAS on this thread only while the intervened layers run: at a prompt's length its products are
    small, and OpenBLAS's pool, spinning after each, cost 3x here (as the cpu backend found)."""
    if not _BLAS:
        from threadpoolctl import ThreadpoolController

        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def _w(weights: Weights, name: str, dtype) -> np.ndarray | None:
    return weights[name].astype(dtype, copy=False) if name in weights else None


def layers_from(cfg: Config, weights: Weights, dtype, resid: np.ndarray, first: int, mask: np.ndarray | None,
                edits: dict) -> tuple[dict, np.ndarray]:
    """Layers `first`..L-1 from resid_pre of `first` [T, d_model], every value by (name, layer), each
    name's interventions (`edits[(name, layer)]`) applied right after it is computed; and the last resid_post."""
    names = layer_names(cfg)
    out: dict = {}

    def hook(name: str, layer: int, x: np.ndarray) -> np.ndarray:            # x [1, ...]
        ivs = edits.get((name, layer), ())
        return replaced(x[0], ivs[0], dtype)[None] if len(ivs) == 1 else (
            _chain(x[0], ivs, dtype)[None] if ivs else x)

    def keep(layer: int, values: dict) -> None:
        for key, value in layer_values(layer, values, names).items():
            out[key] = np.ascontiguousarray(value[0], dtype=dtype)               # drop B = 1

    resid = block_layers(cfg, weights, dtype, resid[None], first, mask, hook, keep)
    return out, resid[0]


def _chain(x: np.ndarray, ivs, dtype) -> np.ndarray:
    for iv in ivs:
        x = replaced(x, iv, dtype)
    return x


_FUSED: dict = {}


def _fused(weights: Weights, layer: int, name: str, dtype) -> np.ndarray:
    """W_Q, W_K or W_V [heads, d_model, d_head] as one [d_model, heads·d_head] matrix (kept per weights)."""
    key = (weights.uid, layer, name, np.dtype(dtype).str)
    if key not in _FUSED:
        if len(_FUSED) > 512 or any(k[0] != weights.uid for k in list(_FUSED)[:1]):
            _FUSED.clear()                                                        # one set of weights at a time
        W = weights[f"blocks.{layer}.{name}"].astype(dtype, copy=False)         # [n, d_model, dh]
        _FUSED[key] = np.ascontiguousarray(W.transpose(1, 0, 2).reshape(W.shape[1], -1))   # [d_model, n·dh]
    return _FUSED[key]


def norm_batched(cfg: Config, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> dict:
    """The config's norm over the last axis of x [..., d]: {"mean", "var", "out"} or {"scale", "out"}."""
    return cfg.components.norm.reference(x, w, b)                                 # [..., d] and its stats


def block_layers(cfg: Config, weights: Weights, dtype, resid: np.ndarray, first: int, mask: np.ndarray | None,
                 hook: Callable, keep: Callable | None = None, first_row: int = 0,
                 past: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = None,
                 last: int | None = None) -> np.ndarray:
    """Layers `first`..L-1 on a batch of passes, resid [B, T, d_model] (resid_pre of `first`): the block's
    equations with `hook(name, layer, x [B, ...]) -> x` after each name, `keep(layer, locals)` at each
    layer's end (None: nothing kept). Returns the last resid_post [B, T, d_model].

    With `first_row` p > 0 (causal, no extra mask) resid holds rows p..T-1 only, [B, T - p, d_model]: rows
    before p are the same in every pass of the batch, so only their keys and values are needed, and
    `past(layer)` gives them (the score's key and v, [p, n_kv_heads, d_head] each); every name the hooks
    see then has rows p..T-1 only (the incremental pass of section 6, for a batch). `last`: stop before
    that layer (its resid_pre is returned)."""
    B, R, dm = resid.shape
    T = first_row + R                                                            # positions; rows first_row..T-1
    H, KV, dh = cfg.n_heads, cfg.n_kv_heads, cfg.d_head
    c = cfg.components
    scale = dtype.type(c.attention.scale)                                        # 1/√d_head (Gemma: 1/√q_p_a_s)
    kv_of = np.arange(H) // cfg.n_groups                                         # [H] K/V head of each query head
    for layer in range(first, cfg.n_layers if last is None else last):
        if c.positions.rotates:
            rope = c.rotary(layer)                                               # the layer's base (Gemma 3)
            cos, sin = (a.astype(dtype) for a in rope.angles(R, first_row))      # [R, r/2] rows p..T-1
        progress.report(f"layer {layer}", (layer + 1 - first) / max(cfg.n_layers - first, 1))

        def W(name: str, layer=layer) -> np.ndarray | None:
            return _w(weights, f"blocks.{layer}.{name}", dtype)

        def plus(x: np.ndarray, b: np.ndarray | None) -> np.ndarray:
            return x if b is None else x + b

        def proj(x: np.ndarray, name: str, n: int, layer=layer) -> np.ndarray:
            y = x.reshape(B * R, dm) @ _fused(weights, layer, name, dtype)        # [B·R, n·dh]
            return y.reshape(B, R, n, dh)                                         # [B, R, n, dh]

        def h(name: str, x: np.ndarray, layer=layer) -> np.ndarray:
            return hook(name, layer, x)

        allowed = allowed_pairs(T, cfg.causal, mask, cfg.window(layer))[first_row:]   # [R, T]
        resid_pre = h("resid_pre", resid)                                        # [B, T, d_model]
        if c.pre_norm:
            n1 = norm_batched(cfg, resid_pre, W("ln1.w"), W("ln1.b"))
            ln1_mean, ln1_var, ln1_scale = n1.get("mean"), n1.get("var"), n1.get("scale")   # [B, T] each
            ln1_out = h("ln1_out", n1["out"])                                    # [B, T, d_model]
        else:
            ln1_out = resid_pre                                                  # OLMo 2: no norm before
        q = h("q", plus(proj(ln1_out, "attn.W_Q", H), W("attn.b_Q")))            # [B, T, H, dh]
        k = h("k", plus(proj(ln1_out, "attn.W_K", KV), W("attn.b_K")))           # [B, T, KV, dh]
        v = h("v", plus(proj(ln1_out, "attn.W_V", KV), W("attn.b_V")))           # [B, T, KV, dh]
        q_pos, k_pos = q, k
        if c.attention.qk_norm is not None:                                      # per head (OLMo 2: all heads)
            q_pos = q_normed = h("q_normed", c.attention.qk_norm_reference(q, W("attn.q_norm.w")))
            k_pos = k_normed = h("k_normed", c.attention.qk_norm_reference(k, W("attn.k_norm.w")))
        if c.positions.rotates:
            rot_q = h("rot_q", rope.rotate(q_pos, cos, sin))                     # [B, T, H, dh]
            rot_k = h("rot_k", rope.rotate(k_pos, cos, sin))                     # [B, T, KV, dh]
            q_pos, k_pos = rot_q, rot_k
        k_all, v_all = k_pos, v                                                  # [B, R, KV, dh] (+ the earlier rows')
        if first_row:
            k_past, v_past = (np.broadcast_to(a.astype(dtype, copy=False), (B,) + a.shape) for a in past(layer))
            k_all, v_all = np.concatenate([k_past, k_pos], 1), np.concatenate([v_past, v], 1)   # [B, T, KV, dh]
        k_h, v_h = k_all[:, :, kv_of], v_all[:, :, kv_of]                        # [B, T, H, dh] each head's K, V
        attn_scores_raw = h("attn_scores_raw", q_pos.transpose(0, 2, 1, 3) @ k_h.transpose(0, 2, 3, 1))  # [B, H, T, T]
        attn_scores_scaled = h("attn_scores_scaled", attn_scores_raw * scale)   # [B, H, T, T]
        capped = attn_scores_scaled
        if c.attention.softcap is not None:                                      # Gemma 2: before the mask
            attn_scores_capped = capped = h("attn_scores_capped", c.attention.softcap.reference(attn_scores_scaled))
        attn_scores = h("attn_scores", np.where(allowed, capped, dtype.type(-np.inf)))   # [B, H, T, T]
        pattern = h("pattern", softmax_rows(attn_scores))                        # [B, H, T, T]
        z = h("z", (pattern @ v_h.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3))  # [B, T, H, dh]  sum_j p_ij v_j
        z_concat = z.reshape(B, R, H * dh)                                       # [B, R, H*dh]
        result = h("result", np.matmul(z.transpose(0, 2, 1, 3), W("attn.W_O")).transpose(0, 2, 1, 3))  # [B,T,H,d]
        attn_out = h("attn_out", plus(result.sum(axis=2), W("attn.b_O")))        # [B, T, d_model]
        if c.post_norm is not None:                                              # Gemma 2/3, OLMo 2
            attn_out_normed = h("attn_out_normed", c.post_norm.reference(attn_out, W("ln1_post.w"))["out"])
            resid_mid = h("resid_mid", resid_pre + attn_out_normed)              # [B, T, d_model]
        else:
            resid_mid = h("resid_mid", resid_pre + attn_out)                     # [B, T, d_model]
        mlp_in = c.mlp_reads(resid_pre, resid_mid)                               # parallel: resid_pre
        if c.pre_norm:
            n2 = norm_batched(cfg, mlp_in, W("ln2.w"), W("ln2.b"))
            ln2_mean, ln2_var, ln2_scale = n2.get("mean"), n2.get("var"), n2.get("scale")   # [B, T] each
            ln2_out = h("ln2_out", n2["out"])                                    # [B, T, d_model]
        else:
            ln2_out = mlp_in                                                     # OLMo 2: no norm before
        if c.experts is not None:                                                # a mixture of experts, row by row
            x2 = ln2_out.reshape(B * T, dm)                                      # [B·T, d_model]
            router_logits = h("router_logits", (x2 @ W("moe.W_router")).reshape(B, T, -1))   # [B, T, E]
            router_probs = h("router_probs", softmax_rows(router_logits))        # [B, T, E]
            g, chosen = c.experts.choose(router_probs.reshape(B * T, -1))        # [B·T, E], [B·T, k]
            expert_weights = h("expert_weights", g.reshape(B, T, -1))            # [B, T, E]
            e_out = c.experts.run(x2, chosen, W("moe.W_gate"), W("moe.W_in"), W("moe.W_out"))   # [B·T, k, d_model]
            expert_out = h("expert_out", e_out.reshape(B, T, -1, dm))            # [B, T, k, d_model]
            mixed = c.experts.mix(expert_weights.reshape(B * T, -1), chosen, expert_out.reshape(B * T, -1, dm))
            mlp_out = h("mlp_out", mixed.reshape(B, T, dm))                      # [B, T, d_model]
        else:
            if c.mlp.gated:
                mlp_pre = h("mlp_pre", plus(ln2_out @ W("mlp.W_gate"), W("mlp.b_gate")))          # [B, T, d_mlp]
                mlp_pre_linear = h("mlp_pre_linear", plus(ln2_out @ W("mlp.W_in"), W("mlp.b_in")))  # [B, T, d_mlp]
            else:
                mlp_pre = h("mlp_pre", plus(ln2_out @ W("mlp.W_in"), W("mlp.b_in")))  # [B, T, d_mlp]
                mlp_pre_linear = None
            mlp_post = h("mlp_post", c.mlp.activation(mlp_pre, mlp_pre_linear))  # [B, T, d_mlp]
            mlp_out = h("mlp_out", plus(mlp_post @ W("mlp.W_out"), W("mlp.b_out")))  # [B, T, d_model]
        if c.post_norm is not None:
            mlp_out_normed = h("mlp_out_normed", c.post_norm.reference(mlp_out, W("ln2_post.w"))["out"])
            resid_post = h("resid_post", resid_mid + mlp_out_normed)             # [B, T, d_model]
        else:
            resid_post = h("resid_post", resid_mid + mlp_out)                    # [B, T, d_model]
        resid = resid_post
        if keep is not None:
            keep(layer, locals())
    return resid


def batched_metric(cfg: Config, weights: Weights, dtype, resid: np.ndarray, base: np.ndarray, first: int,
                   mask: np.ndarray | None, hook: Callable, direction: np.ndarray, first_row: int = 0,
                   past: Callable | None = None) -> np.ndarray:
    """For B passes (resid_pre of `first`: `base` [T, d_model] for each, changed by `hook`), the last
    position's ln_final_out · `direction` [d_model] (a logit difference: W_U[:, a] − W_U[:, b]). [B].
    `first_row`, `past`: as block_layers (resid then holds rows first_row..T-1)."""
    with _one_blas_thread():
        x = block_layers(cfg, weights, dtype, resid, first, mask, hook, first_row=first_row, past=past)   # [B, R, d]
    return final_metric(cfg, weights, dtype, x, direction)


def final_metric(cfg: Config, weights: Weights, dtype, x: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """The last position's ln_final_out · `direction` of B passes' last resid_post x [B, R, d_model]. [B]."""
    last = norm_batched(cfg, x[:, -1], _w(weights, "ln_final.w", dtype), _w(weights, "ln_final.b", dtype))["out"]
    return last.astype(np.float64) @ direction                                    # [B]


# -- weights a Trace was computed with (the readouts below need the final norm and the unembedding) ------
_known_weights: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def remember_weights(weights: Weights) -> None:
    """forward() notes the weights of each pass (weakly), so head_attribution(trace, token) finds them."""
    try:
        _known_weights[weights.uid] = weights
    except TypeError:                                                             # not weak-referenceable
        pass


def weights_of(trace: Any, weights: Weights | None = None) -> Weights:
    if weights is not None:
        if weights.uid != trace.weights_uid:
            raise InterventionError("these weights are not the ones the Trace was computed with")
        return weights
    found = _known_weights.get(trace.weights_uid) if trace.weights_uid is not None else None
    if found is None:
        raise InterventionError("the weights of this Trace are no longer in memory; pass weights=")
    return found


def _position(trace: Any, position: Any) -> int:
    p = _whole(position, "position")
    if not -trace.T <= p < trace.T:
        raise InterventionError(f"position {position} is outside 0..{trace.T - 1}")
    return p % trace.T


def _token(cfg: Config, token: Any) -> int:
    t = _whole(token, "token")
    if not 0 <= t < cfg.d_vocab:
        raise InterventionError(f"token {token} is outside the vocabulary 0..{cfg.d_vocab - 1}")
    return t


def unembed_column(cfg: Config, weights: Weights, token: int) -> np.ndarray:
    """W_U[:, token] [d_model] in float64 (W_Eᵀ when tied)."""
    if cfg.tied_embeddings:
        return weights["embed.W_E"][token].astype(np.float64)                   # [d_model]
    return weights["unembed.W_U"][:, token].astype(np.float64)                   # [d_model]


def final_norm_frozen(cfg: Config, weights: Weights, x_final: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The final norm at one position with its scale frozen (as TransformerLens does): a linear map
    of a residual part c [..., d_model], so the parts of the stream add up to ln_final_out − b.
    LayerNorm: (c − mean(c)) / sqrt(var(x) + eps) · w; RMSNorm: c / sqrt(mean(x²) + eps) · w."""
    x = x_final.astype(np.float64)                                                # [d_model]
    w = weights["ln_final.w"].astype(np.float64)                                  # [d_model]
    return cfg.components.norm.frozen(x, w)                                       # c [..., d_model] -> [..., d_model]


@dataclass(frozen=True)
class Attribution:
    """Direct logit attribution of one token's logit at one position."""

    token: int
    position: int
    heads: np.ndarray                 # [n_layers, n_heads] each head's result through the frozen norm and W_U
    mlps: np.ndarray                  # [n_layers] each MLP's mlp_out
    embed: float                      # the embedding (and learned positions)
    biases: float                     # every b_O and the final norm's bias
    logit: float                      # the model's logit (from the Trace; Gemma 2: before its final soft-cap)

    @property
    def rest(self) -> float:
        return self.embed + self.biases

    @property
    def total(self) -> float:
        return float(self.heads.sum() + self.mlps.sum() + self.rest)


def logit_attribution(trace: Any, token: int, position: int = -1, weights: Weights | None = None) -> Attribution:
    """Every head's, every MLP's and the rest's share of `token`'s logit at `position`; they sum to it."""
    cfg = trace.cfg
    w = weights_of(trace, weights)
    t, i = _token(cfg, token), _position(trace, position)
    u = unembed_column(cfg, w, t)                                                 # [d_model]
    L = cfg.n_layers
    f = final_norm_frozen(cfg, w, trace.read("resid_post", L - 1, rows=i))
    writes = [layer_writes(trace, layer, i, w) for layer in range(L)]             # what each layer adds
    heads = np.stack([f(heads_) @ u for heads_, _, _ in writes])                  # [L, H]
    mlps = np.array([f(mlp) @ u for _, mlp, _ in writes])                         # [L]
    embed_part = trace.read("embed", rows=i).astype(np.float64)                             # [d_model]
    if cfg.components.positions.embeds:
        embed_part = embed_part + trace.read("pos_embed", rows=i)
    embed = float(f(embed_part) @ u)
    b_O = sum((bias for _, _, bias in writes), np.zeros(cfg.d_model))             # [d_model]
    b_final = w["ln_final.b"].astype(np.float64) if "ln_final.b" in w else np.zeros(cfg.d_model)
    biases = float(f(b_O) @ u + b_final @ u)
    if cfg.components.final_softcap is None:
        logit = float(trace.logits_rows([i])[0, t])
    else:                                  # the shares add up linearly; the soft-cap (Gemma 2) comes after
        logit = float(trace.read("ln_final_out", rows=i).astype(np.float64) @ u)
    return Attribution(t, i, heads, mlps, embed, biases, logit)


def head_attribution(trace: Any, token: int, position: int = -1, weights: Weights | None = None) -> np.ndarray:
    """[n_layers, n_heads]: each head's direct contribution to `token`'s logit at `position` (the last
    by default), through the final norm with its scale frozen. logit_attribution has the MLPs and the rest."""
    return logit_attribution(trace, token, position, weights).heads


@dataclass(frozen=True)
class LensRow:
    layer: int                        # after this layer (-1: the embedding)
    tokens: np.ndarray                # [k] the top token ids, best first
    probs: np.ndarray                 # [k] their probabilities
    logits: np.ndarray                # [k]


def lens_logits(trace: Any, position: int = -1, weights: Weights | None = None) -> np.ndarray:
    """[n_layers + 1, d_vocab]: the logits the residual stream at `position` would give after the
    embedding (row 0) and after each layer (row l + 1): through the final norm (its own scale at each
    layer), the unembedding (and Gemma 2's final soft-cap). The last row is the model's logits."""
    cfg = trace.cfg
    w = weights_of(trace, weights)
    i = _position(trace, position)
    rows = [trace.read("resid_pre", 0, rows=i)] + [trace.read("resid_post", layer, rows=i)
                                                  for layer in range(cfg.n_layers)]
    x = np.stack(rows).astype(np.float32)                                         # [L+1, d_model]
    b = w["ln_final.b"] if "ln_final.b" in w else None
    out = cfg.components.norm.reference(x, w["ln_final.w"], b)["out"]            # [L+1, d_model]
    unembed = w["embed.W_E"].T if cfg.tied_embeddings else w["unembed.W_U"]       # [d_model, d_vocab]
    logits = out.astype(np.float32) @ unembed                                     # [L+1, d_vocab]
    cap = cfg.components.final_softcap
    return logits if cap is None else cap.apply(logits)


def logit_lens(trace: Any, position: int = -1, k: int = 5, weights: Weights | None = None) -> list[LensRow]:
    """The top `k` tokens after the embedding and after every layer at `position`."""
    k = _whole(k, "k")
    if k < 1:
        raise InterventionError(f"k must be at least 1, not {k}")
    logits = lens_logits(trace, position, weights).astype(np.float64)            # [L+1, d_vocab]
    k = min(k, logits.shape[1])
    rows = []
    for r, row in enumerate(logits):
        top = np.argsort(-row, kind="stable")[:k]                                 # [k]
        e = np.exp(row - row.max())                                               # [d_vocab]
        rows.append(LensRow(r - 1, top, (e / e.sum())[top], row[top]))
    return rows


# -- the score taken apart ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreParts:
    """q_i·k_j of one head (raw, before the 1/sqrt(d_head) scale) taken apart three ways."""

    layer: int
    head: int
    query: int
    key: int
    score: float                      # attn_scores_raw[h, i, j] of the Trace
    by_dim: np.ndarray                # [d_head] q_i[d]·k_j[d] (rotated q and k with RoPE)
    by_pair: np.ndarray | None        # [rotary_dim / 2] pairs (d, d + r/2) with RoPE; None without
    sources: tuple[str, ...]          # "embed", "L0H3", "MLP0", ..., "bias"
    by_key_source: np.ndarray         # [n_sources] q_i · (the part of k_j each source wrote)
    by_query_source: np.ndarray       # [n_sources] (the part of q_i each source wrote) · k_j
    matrix: np.ndarray                # [n_sources, n_sources] q part s · k part t (rows: query sources)
    scale: float                      # what the scores are multiplied by: 1/√d_head, 1/√query_pre_attn_scalar, or 1


def layer_writes(trace: Any, layer: int, position: int, weights: Weights):
    """What `layer` adds to the residual stream at `position`, split: each head's result [H, d_model],
    the MLP's output [d_model], the b_O bias [d_model]. With norms after attention and the MLP (Gemma,
    OLMo 2) the attention part is attn_out_normed, linear in the heads with its norm's scale frozen
    at this position, and the MLP's is mlp_out_normed."""
    cfg = trace.cfg
    p = f"blocks.{layer}."
    heads = trace.read("result", layer, rows=position).astype(np.float64)                   # [H, d_model]
    bias = weights[p + "attn.b_O"].astype(np.float64) if p + "attn.b_O" in weights else np.zeros(cfg.d_model)
    post = cfg.components.post_norm
    if post is None:
        return heads, trace.read("mlp_out", layer, rows=position).astype(np.float64), bias
    frozen = post.frozen(trace.read("attn_out", layer, rows=position).astype(np.float64),
                         weights[p + "ln1_post.w"].astype(np.float64))                   # c -> c / σ · w
    return frozen(heads), trace.read("mlp_out_normed", layer, rows=position).astype(np.float64), frozen(bias)


def residual_parts(trace: Any, layer: int, position: int, weights: Weights) -> tuple[tuple[str, ...], np.ndarray]:
    """resid_pre of `layer` at `position` split by who wrote it: the embedding (with learned positions),
    each earlier head's result, each earlier MLP's mlp_out, and the b_O biases. [n_sources, d_model]; the
    rows add up to resid_pre."""
    cfg = trace.cfg
    names, parts = ["embed"], []
    e = trace.read("embed", rows=position).astype(np.float64)
    if cfg.components.positions.embeds:
        e = e + trace.read("pos_embed", rows=position)
    parts.append(e)
    bias = np.zeros(cfg.d_model)
    for src in range(layer):
        result, mlp, b_O = layer_writes(trace, src, position, weights)                      # [H, d], [d], [d]
        for h in range(cfg.n_heads):
            names.append(f"L{src}H{h}")
            parts.append(result[h])
        names.append(f"MLP{src}")
        parts.append(mlp)
        bias = bias + b_O
    names.append("bias")
    parts.append(bias)
    return tuple(names), np.stack(parts)                                          # [S, d_model]


def _project(cfg: Config, weights: Weights, trace: Any, layer: int, position: int, parts: np.ndarray,
             which: str, head: int) -> np.ndarray:
    """Each residual part's share of q (which="Q", query head `head`) or k ("K", its K/V head) at
    `position`: the norm with its scale frozen, the projection, RoPE (a rotation: linear); the norm's
    bias and b_Q / b_K go to the last part ("bias"). [S, d_head]."""
    x = trace.read("resid_pre", layer, rows=position).astype(np.float64)                    # [d_model]
    p = f"blocks.{layer}."
    c = cfg.components
    if c.pre_norm:
        w = weights[p + "ln1.w"].astype(np.float64)
        normed = c.norm.frozen(x, w)(parts)                                        # [S, d_model]
        if p + "ln1.b" in weights:
            normed[-1] = normed[-1] + weights[p + "ln1.b"]
    else:
        normed = np.array(parts, dtype=np.float64)                                 # OLMo 2: no norm before
    g = head if which == "Q" else head // cfg.n_groups
    out = np.einsum("sd,nde->sne", normed, weights[p + f"attn.W_{which}"].astype(np.float64))   # [S, n, d_head]
    if p + f"attn.b_{which}" in weights:
        out[-1] = out[-1] + weights[p + f"attn.b_{which}"]
    qkn = c.attention.qk_norm
    if qkn is not None:                                   # its scale frozen at this q (or k): linear in the parts
        w_norm = weights[p + ("attn.q_norm.w" if which == "Q" else "attn.k_norm.w")].astype(np.float64)
        if c.attention.qk_norm_all_heads:                 # OLMo 2: one scale over every head's q (k)
            flat = out.reshape(len(out), -1)                                       # [S, n·d_head]
            out = qkn.frozen(flat.sum(axis=0), w_norm)(flat).reshape(out.shape)    # [S, n, d_head]
        else:
            out = out[:, g:g + 1]
            out = qkn.frozen(out.sum(axis=0)[0], w_norm)(out)                      # [S, 1, d_head]
            g = 0
    out = out[:, g]                                                                # [S, d_head]
    pos = c.rotary(layer) if c.positions.rotates else c.positions
    if pos.rotates:
        cos, sin = pos.angles(1, start=position)                                   # [1, r/2] this position's
        out = pos.rotate(out[None], cos, sin)[0]                                   # [S, d_head]
    return out


def score_parts(trace: Any, layer: int, head: int, query: int, key: int, weights: Weights | None = None) -> ScoreParts:
    """q_i·k_j of head `head` of `layer` as a sum over dimensions, over RoPE frequency pairs, and by
    source: the residual stream that built q_i and k_j split into the embedding, each earlier head's
    output, each earlier MLP and the biases. Every split sums to attn_scores_raw[head, query, key]."""
    cfg = trace.cfg
    w = weights_of(trace, weights)
    layer = _whole(layer, "layer")
    if not 0 <= layer < cfg.n_layers:
        raise InterventionError(f"layer {layer} does not exist; this model has layers 0..{cfg.n_layers - 1}")
    head = _whole(head, "head")
    if not 0 <= head < cfg.n_heads:
        raise InterventionError(f"head {head} does not exist; layer {layer} has heads 0..{cfg.n_heads - 1}")
    i, j = _position(trace, query), _position(trace, key)
    rope_on = cfg.components.positions.rotates
    q_name, k_name = cfg.components.score_inputs                                  # rot_q, rot_k with RoPE
    q_vec = trace.read(q_name, layer, head=head, rows=i).astype(np.float64)       # [d_head]
    kv = head // cfg.n_groups                                                     # its K/V head
    k_vec = trace.read(k_name, layer, head=kv, rows=j).astype(np.float64)         # [d_head]
    by_dim = q_vec * k_vec                                                        # [d_head]
    by_pair = None
    if rope_on:
        half = cfg.rotary_dim // 2
        by_pair = by_dim[:half] + by_dim[half:2 * half]                           # [r/2] pairs (d, d + r/2)
    names, q_parts_res = residual_parts(trace, layer, i, w)                       # [S, d_model]
    _, k_parts_res = residual_parts(trace, layer, j, w)
    q_parts = _project(cfg, w, trace, layer, i, q_parts_res, "Q", head)           # [S, d_head]
    k_parts = _project(cfg, w, trace, layer, j, k_parts_res, "K", head)           # [S, d_head]
    matrix = q_parts @ k_parts.T                                                  # [S, S]
    scale = cfg.components.attention.scale                                        # 1/√d_head (Gemma: its scalar)
    return ScoreParts(layer, head, i, j, float(trace.read("attn_scores_raw", layer, head=head, rows=i, cols=j)),
                      by_dim, by_pair,
                      names, k_parts @ q_vec, q_parts @ k_vec, matrix, scale)


# -- the head finder ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HeadScores:
    """Per head [n_layers, n_heads], on a random sequence repeated: `tokens` = [bos] + r + r."""

    tokens: np.ndarray                # [1 + 2n]
    n: int                            # length of the repeated part
    induction: np.ndarray             # mean weight of a second-half query on the token after its earlier copy
    previous: np.ndarray              # mean weight on the previous position
    sink: np.ndarray                  # mean weight on position 0
    duplicate: np.ndarray             # mean weight of a second-half query on its earlier copy

    def best(self, kind: str) -> tuple[int, int]:
        """(layer, head) with the highest score of `kind`."""
        scores = getattr(self, kind)
        layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return int(layer), int(head)


def repeated_tokens(cfg: Config, n: int = 20, seed: int = 0, low: int = 0, bos: int | None = None) -> np.ndarray:
    """[bos] + r + r: r of n random ids in low..d_vocab-1 (distinct, where the vocabulary allows)."""
    n = _whole(n, "n")
    if n < 2 or 2 * n + 1 > cfg.n_ctx:
        raise InterventionError(f"the repeated part needs 2 ≤ n ≤ {(cfg.n_ctx - 1) // 2} tokens (n_ctx {cfg.n_ctx})")
    rng = np.random.default_rng(seed)
    span = cfg.d_vocab - low
    if span < 2:
        raise InterventionError("the vocabulary is too small for a random sequence")
    r = low + rng.choice(span, size=n, replace=span < n)                          # [n]
    first = [low if bos is None else bos]
    return np.array(first + list(r) + list(r), dtype=np.int64)                   # [1 + 2n]


def head_scores(trace: Any, n: int) -> HeadScores:
    """The four scores of every head from a Trace of `repeated_tokens` (1 + 2n tokens)."""
    cfg, T = trace.cfg, trace.T
    if T != 1 + 2 * n:
        raise InterventionError(f"head_scores needs a Trace of 1 + 2n = {1 + 2 * n} tokens, not {T}")
    second = np.arange(1 + n, T)                                                  # [n] queries of the repeat
    L, H = cfg.n_layers, cfg.n_heads
    out = {k: np.zeros((L, H)) for k in ("induction", "previous", "sink", "duplicate")}
    rows = np.arange(1, T)                                                        # [T-1]
    for layer in range(L):
        pat = trace["pattern", layer].astype(np.float64)                          # [H, T, T]
        out["induction"][layer] = pat[:, second, second - n + 1].mean(axis=1)     # [H] the token after the copy
        out["duplicate"][layer] = pat[:, second, second - n].mean(axis=1)         # [H] the copy itself
        out["previous"][layer] = pat[:, rows, rows - 1].mean(axis=1)              # [H]
        out["sink"][layer] = pat[:, rows, 0].mean(axis=1)                         # [H] (row 0 sees only itself)
    return HeadScores(trace.tokens, n, **out)


# -- activation patching --------------------------------------------------------------------------------
@dataclass(frozen=True)
class PatchMetric:
    """The logit difference logit(answer) − logit(wrong) at the last position."""

    answer: int
    wrong: int

    def __call__(self, trace: Any) -> float:
        row = trace.logits_rows([trace.T - 1])[0]                                 # [d_vocab]
        return float(row[self.answer]) - float(row[self.wrong])


@dataclass(frozen=True)
class PatchingRun:
    """How much of the clean metric each patch of a clean value into the corrupted pass restores:
    (metric(patched) − metric(corrupted)) / (metric(clean) − metric(corrupted)); 1 = all, 0 = none."""

    clean_tokens: np.ndarray
    corrupted_tokens: np.ndarray
    metric: PatchMetric
    clean_metric: float
    corrupted_metric: float
    heads: np.ndarray                 # [n_layers, n_heads] patching each head's z (NaN: not done)
    positions: np.ndarray             # [n_layers, T] patching resid_pre at one position (NaN: not done)
    seconds: float = 0.0

    def restored(self, value: float) -> float:
        gap = self.clean_metric - self.corrupted_metric
        return (value - self.corrupted_metric) / gap if gap != 0 else float("nan")
