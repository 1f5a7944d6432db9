"""The parts a model family is made of, chosen once per Config (`cfg.components`).

A Config keeps its model-family fields as plain strings and numbers (`norm="rmsnorm"`,
`positions="rope"`, `mlp="swiglu"`, ...: sessions, weights files and the API keep their meaning);
`Config.components` turns them into the objects below, once, and everything else — the backends,
the loaders, compute.names, compute.memory, the source map, the instruments, the views and the
notes — asks those objects (`norm.stats`, `positions.rotates`, `mlp.gated`, ...) instead of
comparing the strings. The house rule (tests/test_house_rules.py) keeps it so: no
`cfg.norm == "..."` outside this module.

    Components
      norm        LayerNorm(eps) | RMSNorm(eps)         stats, has_bias, weight_names(), formula, reference()
      positions   Learned() | Rotary(rotary_dim, base)  embeds, rotates, partial, angles(), rotate()
      attention   Attention(n_heads, n_kv_heads, ...)   kind (mha | gqa | mqa), n_groups, scale, qk_norm, macs()
      mlp         GeluMLP(bias) | ExactGeluMLP(bias) | SwiGLU(bias) | GeGLU(bias)   gated, exact, products, formula
      layers      (LayerKind(index, window, rope_base), ...)  local, window, rope_base
      experts     Experts(E, k, normalise) | None       a mixture of experts in place of the MLP: choose(), macs()
      parallel    False | True                          mlp_input: what ln2 reads (resid_mid, or resid_pre)
      pre_norm    bool: ln1, ln2 before attention and MLP (OLMo 2: none)
      post_norm   RMSNorm | None: of attn_out and mlp_out before each residual add (Gemma 2/3, OLMo 2)
      embed_scale 1.0, or √d_model (Gemma): embed = W_E[tokens] · embed_scale
      rope_inputs, score_inputs, cached_key, rotary(layer), tags, has(tag)
    mistakes(cfg)   the classic ways to load this model wrong (A/B's and Predict's "load it wrong"),
                    only those whose part the model has: each a Mistake (Config fields, weights)

Room for the next families (each is a component or a field of one, plus its names in
compute/names.py; nothing else needs to learn about it):
  - QK-norm (Qwen3, Gemma 3, OLMo 2) is here: `Attention.qk_norm` (an RMSNorm | None) of q and k
    before RoPE, per head over d_head (`qk_norm_scope` "head": weights `blocks.l.attn.q_norm.w`,
    `k_norm.w` [d_head]) or over all heads at once (OLMo 2, "all": [n_heads·d_head], [n_kv_heads·d_head]);
    intermediates `q_normed` [T, n_heads, d_head] and `k_normed` [T, n_kv_heads, d_head]; RoPE then
    turns those (`rope_inputs`).
  - norms after attention and after the MLP (Gemma 2/3, OLMo 2) are here: `post_norm`, weights
    `ln1_post.w`, `ln2_post.w` [d_model], intermediates `attn_out_normed`, `mlp_out_normed` [T, d_model];
    the residual adds the normed output. OLMo 2 has them without the norms before (`pre_norm` False).
  - embedding scale (Gemma) is here: `embed_scale` = √d_model multiplies W_E[tokens].
  - per-layer kind (Gemma 3's 5 local : 1 global) is here: `LayerKind.rope_base` (10,000 local,
    1,000,000 global) beside its `window`; `rotary(layer)` is that layer's RoPE.
  - query_pre_attn_scalar (Gemma) is here: `Attention.scale` = 1/√query_pre_attn_scalar.
  - GeGLU (Gemma) is here: a gated MLP like SwiGLU whose gate is the tanh GELU.
  - soft-capping (Gemma 2) is here: `Attention.softcap` (a SoftCap | None) gives `attn_scores_capped` =
    cap · tanh(attn_scores_scaled / cap) before the mask; `Components.final_softcap` caps the logits.
  - partial rotary (Phi, GPT-NeoX): `Rotary.rotary_dim < d_head` is here (`partial`).
  - parallel attention + MLP (GPT-J, Pythia) is here: `x + attn(ln1(x)) + mlp(ln2(x))`,
    `Components.parallel`; ln2 reads `mlp_input` (resid_pre), resid_post = resid_mid + mlp_out still.
  - the exact (erf) GELU (Pythia's hidden_act "gelu") is here: `ExactGeluMLP`, `mlp.exact`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..i18n import QT_TR_NOOP
from . import functions as F


# -- norms -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Norm:
    """A per-token norm of the residual stream with a learned scale w (and maybe a bias b)."""

    eps: float = 1e-5
    key: ClassVar[str] = ""
    title: ClassVar[str] = ""
    stats: ClassVar[tuple[str, ...]] = ()         # per-token statistics kept in the Trace
    has_bias: ClassVar[bool] = False
    formula: ClassVar[str] = ""

    def stat_names(self, prefix: str) -> tuple[str, ...]:
        """The Trace names of the statistics of norm `prefix` ("ln1", "ln2"): ln1_mean, ln1_var."""
        return tuple(f"{prefix}_{s}" for s in self.stats)

    def weight_names(self, prefix: str) -> tuple[str, ...]:
        """Short weight names of norm `prefix`: ln1.w (and ln1.b)."""
        return (f"{prefix}.w", f"{prefix}.b") if self.has_bias else (f"{prefix}.w",)

    def reference(self, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> dict:
        """The norm of x [..., d] in float64: its stats by name and "out"."""
        raise NotImplementedError

    def frozen(self, x: np.ndarray, w: np.ndarray):
        """The norm at one position x [d] with its statistics frozen: a linear map of parts of x."""
        raise NotImplementedError


@dataclass(frozen=True)
class LayerNorm(Norm):
    """(x − mean) / √(var + ε) · w + b, per token (GPT-2)."""

    key: ClassVar[str] = "layernorm"
    title: ClassVar[str] = "LayerNorm"
    stats: ClassVar[tuple[str, ...]] = ("mean", "var")
    has_bias: ClassVar[bool] = True
    formula: ClassVar[str] = "(x − mean) / √(var + ε) · w + b"

    def reference(self, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> dict:
        """The norm of x [..., d] in float64: {"mean", "var", "out"}."""
        mean, var, out = F.layer_norm(x, w, b, self.eps)
        return {"mean": mean, "var": var, "out": out}

    def frozen(self, x: np.ndarray, w: np.ndarray):
        """The norm at one position x [d] with its statistics frozen (TransformerLens's way): a
        linear map of a part c [..., d] of that residual, without the bias."""
        sigma = np.sqrt(x.var() + self.eps)                                 # scalar, frozen
        return lambda c: (c - c.mean(axis=-1, keepdims=True)) / sigma * w   # [..., d]


@dataclass(frozen=True)
class RMSNorm(Norm):
    """x / √(mean(x²) + ε) · w, per token: no mean subtracted, no bias (the LLaMA family)."""

    key: ClassVar[str] = "rmsnorm"
    title: ClassVar[str] = "RMSNorm"
    stats: ClassVar[tuple[str, ...]] = ("scale",)
    has_bias: ClassVar[bool] = False
    formula: ClassVar[str] = "x / √(mean(x²) + ε) · w"

    def reference(self, x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> dict:
        """The norm of x [..., d] in float64: {"scale", "out"}."""
        scale, out = F.rms_norm(x, w, self.eps)
        return {"scale": scale, "out": out}

    def frozen(self, x: np.ndarray, w: np.ndarray):
        scale = np.sqrt((x ** 2).mean() + self.eps)                         # scalar, frozen
        return lambda c: c / scale * w                                      # [..., d]


# -- positions ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Learned:
    """A learned position embedding W_pos added to the token embedding (GPT-2)."""

    key: ClassVar[str] = "learned"
    embeds: ClassVar[bool] = True          # pos_embed.W_pos exists; resid_pre 0 = embed + pos_embed
    rotates: ClassVar[bool] = False        # q and k are used as they are
    partial: ClassVar[bool] = False


@dataclass(frozen=True)
class Rotary:
    """RoPE: each pair (i, i + r/2) of the first `rotary_dim` dims of q and k turned by position ·
    base^(−2i / r) (HF's rotate_half); no position embedding."""

    rotary_dim: int
    base: float = 10000.0
    d_head: int | None = None              # the head width, for `partial`
    key: ClassVar[str] = "rope"
    embeds: ClassVar[bool] = False
    rotates: ClassVar[bool] = True

    @property
    def partial(self) -> bool:
        """Whether only the leading rotary_dim < d_head dims turn (Phi, GPT-NeoX)."""
        return self.d_head is not None and self.rotary_dim < self.d_head

    def angles(self, T: int, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """cos, sin [T, rotary_dim / 2] in float64 for positions start..start+T-1."""
        return F.rope_angles(T, self.rotary_dim, self.base, start)

    def rotate(self, x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        """x [..., T, heads, d_head] rotated by the angles of its positions."""
        return F.rope(x, cos, sin)


# -- attention ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SoftCap:
    """cap · tanh(x / cap): x as it is near 0, smoothly bounded to (−cap, cap) (Gemma 2: the attention
    scores with cap 50, after the scale and before the mask; the final logits with cap 30)."""

    cap: float

    @property
    def formula(self) -> str:
        """What a header says the scores (logits) go through."""
        return f"{self.cap:g}·tanh(s/{self.cap:g})"

    def reference(self, x: np.ndarray) -> np.ndarray:
        """cap · tanh(x / cap) in x's precision (float64 for the reference); -inf stays -inf."""
        return self.cap * np.tanh(x / self.cap)

    def apply(self, x: np.ndarray) -> np.ndarray:
        """cap · tanh(x / cap) in place on a float array (the cpu and cuda backends' float32 logits)."""
        cap = x.dtype.type(self.cap)
        np.divide(x, cap, out=x)
        np.tanh(x, out=x)
        np.multiply(x, cap, out=x)
        return x


@dataclass(frozen=True)
class Attention:
    """Multi-head attention with n_kv_heads K/V heads shared by consecutive query heads (GQA;
    n_kv_heads = 1 is multi-query), biases or not, scores scaled by 1/√d_head or not, and maybe a
    QK-norm: a per-head RMSNorm of q and k (weights attn.q_norm.w, attn.k_norm.w [d_head]) before
    RoPE, giving q_normed [T, n_heads, d_head] and k_normed [T, n_kv_heads, d_head] (Qwen3)."""

    n_heads: int
    n_kv_heads: int
    d_head: int
    has_bias: bool = True
    scaled: bool = True
    causal: bool = True
    qk_norm: RMSNorm | None = None
    qk_norm_scope: str = "head"            # "head": over each head's d_head; "all": over all heads (OLMo 2)
    query_pre_attn_scalar: float | None = None   # Gemma: scores · its^-1/2 instead of 1/√d_head
    softcap: SoftCap | None = None          # Gemma 2: attn_scores_capped = cap·tanh(scaled / cap) before the mask

    @property
    def cap(self) -> float:
        """The soft-cap of the scores for a kernel: 0.0 means none."""
        return 0.0 if self.softcap is None else float(self.softcap.cap)

    @property
    def n_groups(self) -> int:
        """Query heads per K/V head: query head h reads K/V head h // n_groups."""
        return self.n_heads // self.n_kv_heads

    @property
    def shares_kv(self) -> bool:
        return self.n_kv_heads < self.n_heads

    @property
    def kind(self) -> str:
        """"mha" (every query head its own K/V), "gqa" (groups share), "mqa" (one K/V head)."""
        return "mha" if not self.shares_kv else "mqa" if self.n_kv_heads == 1 else "gqa"

    @property
    def scale(self) -> float:
        """What the raw scores are multiplied by: 1/√d_head (Gemma: 1/√query_pre_attn_scalar), or 1
        with scaling off."""
        if not self.scaled:
            return 1.0
        return 1.0 / math.sqrt(self.query_pre_attn_scalar or self.d_head)

    @property
    def scale_root(self) -> str:
        """What scaling divides the scores by, whether it is on or not: "√d_head" (Gemma: √ of its
        query_pre_attn_scalar, e.g. "√256")."""
        return f"√{self.query_pre_attn_scalar:g}" if self.query_pre_attn_scalar is not None else "√d_head"

    @property
    def scale_formula(self) -> str:
        """What the header says the scores are scaled by."""
        if not self.scaled:
            return "1"
        if self.query_pre_attn_scalar is not None:
            return f"1/√query_pre_attn_scalar = 1/√{self.query_pre_attn_scalar:g}"
        return f"1/√d_head = 1/√{self.d_head}"

    @property
    def qk_norm_all_heads(self) -> bool:
        """Whether the QK-norm normalizes all heads' q (and k) together (OLMo 2), not each head."""
        return self.qk_norm is not None and self.qk_norm_scope == "all"

    def qk_norm_reference(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The QK-norm of x [..., T, heads, d_head] in float64: per head, or over all heads at once
        (w [heads·d_head]) — the same shape back."""
        if not self.qk_norm_all_heads:
            return self.qk_norm.reference(x, w)["out"]                       # [..., T, heads, dh]
        flat = x.reshape(*x.shape[:-2], -1)                                  # [..., T, heads·dh]
        return self.qk_norm.reference(flat, w)["out"].reshape(x.shape)       # [..., T, heads, dh]

    def qk_norm_weight_names(self) -> tuple[str, ...]:
        """Short weight names of the QK-norm (none without one)."""
        return ("attn.q_norm.w", "attn.k_norm.w") if self.qk_norm is not None else ()

    def macs(self, d_model: int, n_new: int, keys: int) -> int:
        """Multiply-adds of n_new query rows that together score `keys` keys: the q/k/v rows, q·k,
        pattern @ v and W_O."""
        H, KV, dh = self.n_heads, self.n_kv_heads, self.d_head
        return (n_new * d_model * (H + 2 * KV) * dh   # q rows, and k, v rows of the n_kv_heads heads
                + H * keys * dh                       # scores q_i . k_j for the keys each row sees
                + H * keys * dh                       # pattern @ v
                + n_new * H * dh * d_model)           # W_O


# -- MLPs --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MLP:
    """The block's MLP on ln2_out: mlp_pre (and, gated, mlp_pre_linear) → mlp_post → W_out."""

    has_bias: bool = True
    key: ClassVar[str] = ""
    tag: ClassVar[str] = ""                # the TAGS condition views name (the key, or its family's)
    gated: ClassVar[bool] = False          # a second, linear branch (mlp_pre_linear) and W_gate
    exact: ClassVar[bool] = False          # GELU by erf, not GPT-2's tanh approximation
    products: ClassVar[int] = 2            # matrix products per row: W_in, W_out (and W_gate)
    formula: ClassVar[str] = ""

    def weight_names(self) -> tuple[str, ...]:
        """Short weight names in canonical order (blocks.l. + name)."""
        names = (("mlp.W_gate", "mlp.b_gate") if self.gated else ()) + ("mlp.W_in", "mlp.b_in", "mlp.W_out",
                                                                          "mlp.b_out")
        return tuple(n for n in names if self.has_bias or ".b_" not in n)

    def activation(self, mlp_pre: np.ndarray, mlp_pre_linear: np.ndarray | None = None) -> np.ndarray:
        """mlp_post from the branch(es), float64."""
        raise NotImplementedError

    def macs(self, d_model: int, d_mlp: int, n: int) -> int:
        """Multiply-adds of n rows through the MLP's products."""
        return self.products * n * d_model * d_mlp


@dataclass(frozen=True)
class GeluMLP(MLP):
    """mlp_post = GELU(x W_in + b_in), mlp_out = mlp_post W_out + b_out (GPT-2's tanh GELU)."""

    key: ClassVar[str] = "gelu"
    tag: ClassVar[str] = "gelu"
    formula: ClassVar[str] = "GELU(x·W_in + b_in)·W_out + b_out"

    def activation(self, mlp_pre: np.ndarray, mlp_pre_linear: np.ndarray | None = None) -> np.ndarray:
        return F.gelu(mlp_pre)


@dataclass(frozen=True)
class ExactGeluMLP(GeluMLP):
    """GeluMLP with the exact GELU, x·Φ(x) = ½x(1 + erf(x/√2)) (GPT-NeoX / Pythia's hidden_act "gelu");
    the views show it as a GELU MLP."""

    key: ClassVar[str] = "gelu_erf"
    exact: ClassVar[bool] = True
    formula: ClassVar[str] = "GELU_erf(x·W_in + b_in)·W_out + b_out"

    def activation(self, mlp_pre: np.ndarray, mlp_pre_linear: np.ndarray | None = None) -> np.ndarray:
        return F.gelu_erf(mlp_pre)


@dataclass(frozen=True)
class GeGLU(MLP):
    """mlp_post = GELU(x W_gate) ⊙ (x W_in), then W_out, with the tanh GELU (Gemma)."""

    key: ClassVar[str] = "geglu"
    tag: ClassVar[str] = "geglu"
    gated: ClassVar[bool] = True
    products: ClassVar[int] = 3            # W_gate, W_in, W_out
    formula: ClassVar[str] = "(GELU(x·W_gate) ⊙ x·W_in)·W_out"

    def activation(self, mlp_pre: np.ndarray, mlp_pre_linear: np.ndarray | None = None) -> np.ndarray:
        return F.gelu(mlp_pre) * mlp_pre_linear


@dataclass(frozen=True)
class SwiGLU(MLP):
    """mlp_post = SiLU(x W_gate) ⊙ (x W_in), then W_out (the LLaMA family)."""

    key: ClassVar[str] = "swiglu"
    tag: ClassVar[str] = "swiglu"
    gated: ClassVar[bool] = True
    products: ClassVar[int] = 3            # W_gate, W_in, W_out
    formula: ClassVar[str] = "(SiLU(x·W_gate) ⊙ x·W_in)·W_out"

    def activation(self, mlp_pre: np.ndarray, mlp_pre_linear: np.ndarray | None = None) -> np.ndarray:
        return F.silu(mlp_pre) * mlp_pre_linear


@dataclass(frozen=True)
class Experts:
    """A mixture of experts in place of the one MLP (Mixtral, Qwen3-MoE, OLMoE): a router scores
    each token against E experts, the token goes through its top k, and mlp_out is their sum
    weighted by the router:

        router_logits  = ln2_out · W_router                     [T, E]
        router_probs   = softmax(router_logits)                 [T, E]
        chosen         = the k largest router_probs per row     [T, k]   (largest first)
        expert_weights = router_probs on the chosen, else 0     [T, E]   (÷ their sum when normalised)
        expert_out[t, s] = (SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e],  x = ln2_out[t], e = chosen[t, s]
        mlp_out[t]     = Σ_s expert_weights[t, chosen[t, s]] · expert_out[t, s]

    Each expert is a SwiGLU MLP of width d_mlp; weights moe.W_router [d_model, E], moe.W_gate and
    moe.W_in [E, d_model, d_mlp], moe.W_out [E, d_mlp, d_model]."""

    n_experts: int
    top_k: int
    normalise: bool = True

    formula: ClassVar[str] = "Σ_top-k g_e·(SiLU(x·W_gate[e]) ⊙ x·W_in[e])·W_out[e],  g = softmax(x·W_router)"

    def weight_names(self) -> tuple[str, ...]:
        return ("moe.W_router", "moe.W_gate", "moe.W_in", "moe.W_out")

    def choose(self, router_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(expert_weights [T, E], chosen [T, k]) from router_probs [T, E]: the k largest per row,
        largest first (ties: the lower expert, as torch.topk on a CPU)."""
        chosen = np.argsort(-router_probs, axis=-1, kind="stable")[:, :self.top_k]        # [T, k]
        picked = np.take_along_axis(router_probs, chosen, axis=-1)                         # [T, k]
        if self.normalise:
            picked = picked / picked.sum(axis=-1, keepdims=True)                           # [T, k] sums to 1
        expert_weights = np.zeros_like(router_probs)                                       # [T, E]
        np.put_along_axis(expert_weights, chosen, picked, axis=-1)
        return expert_weights, chosen

    def run(self, x: np.ndarray, chosen: np.ndarray, W_gate: np.ndarray, W_in: np.ndarray,
            W_out: np.ndarray) -> np.ndarray:
        """expert_out [T, k, d_model]: row t through each of its chosen experts, in x's precision
        (float64 for the reference, float32 for the cpu backend). One expert at a time, on the rows
        that chose it, so no [T, k, d_model, d_mlp] gather of weights is ever made."""
        out = np.zeros((*chosen.shape, x.shape[1]), x.dtype)                              # [T, k, d_model]
        for e in np.unique(chosen):
            t, s = np.nonzero(chosen == e)                                                 # rows (and slots) of e
            rows = x[t]                                                                    # [n_e, d_model]
            gate = rows @ W_gate[e].astype(x.dtype, copy=False)                            # [n_e, d_mlp]
            up = rows @ W_in[e].astype(x.dtype, copy=False)                                # [n_e, d_mlp]
            out[t, s] = (F.silu(gate) * up) @ W_out[e].astype(x.dtype, copy=False)         # [n_e, d_model]
        return out

    @staticmethod
    def mix(expert_weights: np.ndarray, chosen: np.ndarray, expert_out: np.ndarray) -> np.ndarray:
        """mlp_out [T, d_model] = Σ_s g[t, chosen[t, s]] · expert_out[t, s]."""
        g = np.take_along_axis(expert_weights, chosen, axis=-1)                            # [T, k]
        return np.einsum("tk,tkd->td", g, expert_out)                                      # [T, d_model]

    def macs(self, d_model: int, d_mlp: int, n: int) -> int:
        """The router and the k chosen experts' three products per row."""
        return n * d_model * self.n_experts + self.top_k * 3 * n * d_model * d_mlp


# -- layers ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LayerKind:
    """What differs between one layer and the next: its attention window (None = dense causal,
    W = query i sees keys i−W < j ≤ i) and its RoPE base (Gemma 3: 10,000 local, 1,000,000 global;
    None without RoPE)."""

    index: int
    window: int | None = None
    rope_base: float | None = None

    @property
    def local(self) -> bool:
        return self.window is not None


# -- the choice, once --------------------------------------------------------------------------------
# The Config strings each component answers to (compute.config validates against these keys).
NORM_KINDS: dict[str, type[Norm]] = {"layernorm": LayerNorm, "rmsnorm": RMSNorm}
POSITION_KINDS: dict[str, type] = {"learned": Learned, "rope": Rotary}
MLP_KINDS: dict[str, type[MLP]] = {"gelu": GeluMLP, "gelu_erf": ExactGeluMLP, "swiglu": SwiGLU, "geglu": GeGLU}
# The conditions a view may name (widgets.views Slot `when=`, StationView `family=`).
TAGS: tuple[str, ...] = ("layernorm", "rmsnorm", "learned", "rope", "gelu", "swiglu", "gqa", "nobias", "qknorm",
                         "moe", "parallel", "geglu", "postnorm", "softcap")


@dataclass(frozen=True)
class Components:
    """The parts of one Config's model (`cfg.components`)."""

    norm: Norm
    positions: Learned | Rotary
    attention: Attention
    mlp: MLP
    layers: tuple[LayerKind, ...]
    tied_embeddings: bool = True
    pre_norm: bool = True
    post_norm: RMSNorm | None = None
    embed_scale: float = 1.0
    experts: Experts | None = None         # a mixture of experts in place of the dense MLP
    parallel: bool = False                 # attention and MLP both read resid_pre (GPT-J, GPT-NeoX)
    final_softcap: SoftCap | None = None   # Gemma 2: logits = cap·tanh(ln_final_out·W_U / cap)

    @property
    def mlp_input(self) -> str:
        """The Trace name ln2 normalises: resid_mid, or resid_pre when attention and MLP run in
        parallel (resid_post = resid_pre + attn_out + mlp_out = resid_mid + mlp_out either way)."""
        return "resid_pre" if self.parallel else "resid_mid"

    def mlp_reads(self, resid_pre, resid_mid):
        """Of a layer's resid_pre and resid_mid (any arrays), the one ln2 normalises."""
        return resid_pre if self.parallel else resid_mid

    def layer(self, index: int) -> LayerKind:
        return self.layers[index]

    def rotary(self, index: int) -> Rotary:
        """Layer `index`'s RoPE: the model's, with that layer's base (Gemma 3: local or global)."""
        base = self.layers[index].rope_base
        return self.positions if base is None or base == self.positions.base else \
            Rotary(self.positions.rotary_dim, base, self.positions.d_head)

    @property
    def rope_inputs(self) -> tuple[str, str]:
        """The Trace names RoPE turns (and, without RoPE, the scores use): (q_normed, k_normed) with
        a QK-norm, else (q, k)."""
        return ("q_normed", "k_normed") if self.attention.qk_norm is not None else ("q", "k")

    @property
    def score_inputs(self) -> tuple[str, str]:
        """The Trace names the scores are made from: (rot_q, rot_k) with RoPE, else rope_inputs."""
        return ("rot_q", "rot_k") if self.positions.rotates else self.rope_inputs

    @property
    def cached_key(self) -> str:
        """The key a KV cache keeps (after RoPE: a cached key is never rotated again)."""
        return self.score_inputs[1]

    @property
    def tags(self) -> frozenset[str]:
        """The TAGS this model meets: its norm's, positions' and MLP's keys, gqa, nobias."""
        on = {self.norm.key, self.positions.key, self.mlp.tag}
        if self.attention.shares_kv:
            on.add("gqa")
        if not self.attention.has_bias:
            on.add("nobias")
        if self.attention.qk_norm is not None:
            on.add("qknorm")
        if self.experts is not None:
            on.add("moe")
        if self.parallel:
            on.add("parallel")
        if self.post_norm is not None:
            on.add("postnorm")
        if self.attention.softcap is not None:
            on.add("softcap")
        return frozenset(on)

    def has(self, tag: str) -> bool:
        """Whether this model meets a TAGS condition ("" always does); an unknown tag is a KeyError."""
        if tag and tag not in TAGS:
            raise KeyError(f"no component condition {tag!r}; known: {', '.join(TAGS)}")
        return not tag or tag in self.tags

    def block_macs(self, d_model: int, d_mlp: int, n_new: int, keys: int) -> int:
        """Multiply-adds of one block for n_new rows scoring `keys` keys in all."""
        mlp = self.mlp if self.experts is None else self.experts
        return self.attention.macs(d_model, n_new, keys) + mlp.macs(d_model, d_mlp, n_new)


# -- loading it wrong ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mistake:
    """One classic way an engine or a converter gets this model wrong (lmdeploy PR 3772, TensorRT-LLM
    PR 3247, TransformerLens PRs 1149 and 719): the Config fields it sets, the block weights whose d_head
    axis it permutes and those it drops; nothing else changes."""

    key: str
    title: str                                  # marked for translation (compute.i18n)
    fields: tuple[tuple[str, Any], ...] = ()    # (Config field, its wrong value)
    permuted: tuple[str, ...] = ()              # short block weight names, last axis (d_head) permuted
    perm: tuple[int, ...] = ()                  # new[..., j] = old[..., perm[j]]
    dropped: tuple[str, ...] = ()               # short block weight names the wrong model lacks

    def weights(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The weights (full names -> arrays) as the wrong loader gives them."""
        out = {}
        for name, a in arrays.items():
            short = name.split(".", 2)[2] if name.startswith("blocks.") else name
            if short not in self.dropped:
                out[name] = a[..., list(self.perm)] if short in self.permuted else a
        return out


def _pair_perms(r: int, d_head: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Over a head's first r dims: `interleaved` puts dims (2i, 2i+1) where half-split RoPE turns
    (i, i + r/2), `inverse` undoes it (HF's permute for Meta's interleaved weights, applied once too
    often). Dims from r on stay."""
    rest = tuple(range(r, d_head))
    interleaved = tuple(range(0, r, 2)) + tuple(range(1, r, 2)) + rest
    inverse = tuple(int(j) for j in np.argsort(interleaved[:r])) + rest
    return interleaved, inverse


def mistakes(cfg: Any) -> tuple[Mistake, ...]:
    """The mistakes this model can be loaded with, only for parts it has: RoPE's pairing, the QK-norm,
    the windows, Gemma 3's per-layer RoPE base and its √d_model embedding scale, Gemma 2's soft-capping,
    the parallel block, the exact GELU."""
    c = cfg.components
    out: list[Mistake] = []
    if c.positions.rotates:
        interleaved, inverse = _pair_perms(c.positions.rotary_dim, c.attention.d_head)
        qk = (("attn.W_Q", "attn.W_K") + (("attn.b_Q", "attn.b_K") if c.attention.has_bias else ())
              + c.attention.qk_norm_weight_names())                   # everything on q's and k's d_head axis
        out.append(Mistake("rope_interleaved", QT_TR_NOOP("RoPE pairs interleaved (2i, 2i+1), not "
                                                          "half-split"), permuted=qk, perm=interleaved))
        out.append(Mistake("rope_half_split", QT_TR_NOOP("RoPE pairs half-split on interleaved "
                                                         "rows"), permuted=qk, perm=inverse))
    if c.attention.qk_norm is not None:
        out.append(Mistake("qk_norm_off", QT_TR_NOOP("QK-norm left out"), (("qk_norm", False),),
                           dropped=c.attention.qk_norm_weight_names()))
    local = [k.window for k in c.layers if k.local]
    if local:
        out.append(Mistake("windows_off", QT_TR_NOOP("windows ignored: every layer global"), (("windows", None),)))
        if len(local) < len(c.layers):
            everywhere = tuple(k.window if k.local else local[0] for k in c.layers)
            out.append(Mistake("windows_everywhere", QT_TR_NOOP("a window in every layer: no global layer"),
                               (("windows", everywhere),)))
    bases = {k.rope_base for k in c.layers if k.rope_base is not None}
    if len(bases) > 1:                                               # Gemma 3: 10,000 local, 1,000,000 global
        out.append(Mistake("one_rope_base", QT_TR_NOOP("one RoPE base for every layer"),
                           (("rope_theta_local", None),)))
    if c.embed_scale != 1.0:
        out.append(Mistake("embed_unscaled", QT_TR_NOOP("embedding scale √d_model left out"),
                           (("scale_embed", False),)))
    if c.attention.softcap is not None or c.final_softcap is not None:
        out.append(Mistake("softcap_off", QT_TR_NOOP("soft-capping left out (scores and logits uncapped)"),
                           (("attn_softcap", None), ("final_softcap", None))))
    if c.parallel:
        out.append(Mistake("sequential", QT_TR_NOOP("attention, MLP in sequence, not in "
                                                    "parallel"), (("parallel", False),)))
    if c.mlp.exact:
        out.append(Mistake("gelu_tanh", QT_TR_NOOP("tanh GELU instead of the exact erf GELU"), (("mlp", "gelu"),)))
    return tuple(out)


def components_of(cfg: Any) -> Components:
    """The components a validated Config names (compute.config calls this once per Config)."""
    rotates = POSITION_KINDS[cfg.positions].rotates
    positions = Rotary(cfg.rotary_dim, cfg.rope_theta, cfg.d_head) if rotates else Learned()

    def rope_base(layer: int) -> float | None:
        """The layer's RoPE base: rope_theta_local on a windowed layer when the model has one."""
        if not rotates:
            return None
        local = cfg.window(layer) is not None and cfg.rope_theta_local is not None
        return cfg.rope_theta_local if local else cfg.rope_theta

    return Components(
        norm=NORM_KINDS[cfg.norm](cfg.norm_eps),
        positions=positions,
        attention=Attention(cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.attn_bias, cfg.scale_scores, cfg.causal,
                            RMSNorm(cfg.norm_eps) if cfg.qk_norm else None, cfg.qk_norm_scope,
                            cfg.query_pre_attn_scalar,
                            SoftCap(cfg.attn_softcap) if cfg.attn_softcap is not None else None),
        mlp=MLP_KINDS[cfg.mlp](cfg.mlp_bias),
        layers=tuple(LayerKind(i, cfg.window(i), rope_base(i)) for i in range(cfg.n_layers)),
        tied_embeddings=cfg.tied_embeddings, parallel=cfg.parallel,
        experts=Experts(cfg.n_experts, cfg.experts_per_token, cfg.norm_topk) if cfg.n_experts else None,
        pre_norm=cfg.pre_norms,
        post_norm=RMSNorm(cfg.norm_eps) if cfg.post_norms else None,
        embed_scale=math.sqrt(cfg.d_model) if cfg.scale_embed else 1.0,
        final_softcap=SoftCap(cfg.final_softcap) if cfg.final_softcap is not None else None)


__all__ = ["MLP", "MLP_KINDS", "NORM_KINDS", "POSITION_KINDS", "TAGS", "Attention", "Components", "ExactGeluMLP",
           "Experts", "GeGLU", "GeluMLP", "LayerKind", "LayerNorm", "Learned", "Mistake", "Norm", "RMSNorm", "Rotary",
           "SoftCap", "SwiGLU", "components_of", "mistakes"]
