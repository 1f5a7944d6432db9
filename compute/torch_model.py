"""The same model as `compute`, in torch, for training: parameters named exactly like `Weights`.

The module tree mirrors the weight names, so `model.state_dict()` keys are `embed.W_E`,
`blocks.0.attn.W_Q`, ... `ln_final.b` (docs/ARCHITECTURE.md, "Names") and the round trip
`TorchModel.from_weights(cfg, w).to_weights()` is a rename-free copy. The equations are those of
`backends/reference.py`, batched over a leading B axis; `torch_trace` runs them in float64 and
records every intermediate under its Trace name, which is how the tests prove this model and
`reference` compute the same thing (then training optimises the model the app shows).

torch is imported here only: `import compute` stays free of it.
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from . import circuits
from .config import Config, ConfigError
from .names import layer_values, weight_shapes
from .trace import Trace
from .weights import Weights, WeightsError

LN_EPS = 1e-5  # as backends/reference.py and GPT-2's layer_norm_epsilon


def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    """LayerNorm over the last axis, biased variance: mean [...], var [...], out [..., d]."""
    mean = x.mean(dim=-1)                                                     # [...]
    var = ((x - mean[..., None]) ** 2).mean(dim=-1)                           # [...]
    out = (x - mean[..., None]) / torch.sqrt(var[..., None] + LN_EPS) * w + b  # [..., d]
    return mean, var, out


def gelu(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's tanh approximation of GELU."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def softmax_rows(scores: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Row softmax of masked scores; a row with no allowed key is all zeros (not NaN).

    The -inf of such a row is swapped for 0 before the softmax, so neither the values nor the
    gradients ever see NaN."""
    has_key = allowed.any(dim=-1, keepdim=True)                               # [T, 1]
    safe = scores.masked_fill(~has_key, 0.0)                                  # [..., T, T]
    return torch.softmax(safe, dim=-1).masked_fill(~has_key, 0.0)             # [..., T, T]


class _Params(nn.Module):
    """A leaf of the name tree: holds parameters under their short names (W_Q, w, b, ...)."""

    def __init__(self, shapes: dict[str, tuple[int, ...]]):
        super().__init__()
        for short, shape in shapes.items():
            self.register_parameter(short, nn.Parameter(torch.zeros(shape)))


class Block(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        dm, H, dh, mlp = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_mlp
        self.ln1 = _Params({"w": (dm,), "b": (dm,)})
        self.attn = _Params({"W_Q": (H, dm, dh), "W_K": (H, dm, dh), "W_V": (H, dm, dh),
                             "b_Q": (H, dh), "b_K": (H, dh), "b_V": (H, dh),
                             "W_O": (H, dh, dm), "b_O": (dm,)})
        self.ln2 = _Params({"w": (dm,), "b": (dm,)})
        self.mlp = _Params({"W_in": (dm, mlp), "b_in": (mlp,), "W_out": (mlp, dm), "b_out": (dm,)})


class TorchModel(nn.Module):
    """GPT-2-style decoder with TransformerLens parameter names; `forward(tokens [B, T])` -> logits."""

    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.embed = _Params({"W_E": (cfg.d_vocab, cfg.d_model)})
        self.pos_embed = _Params({"W_pos": (cfg.n_ctx, cfg.d_model)})
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_final = _Params({"w": (cfg.d_model,), "b": (cfg.d_model,)})
        # Registration order differs from weight_shapes only in grouping; names must be identical.
        assert set(self.state_dict()) == set(weight_shapes(cfg)), "parameter names drifted from Weights"

    # -- weights in and out ------------------------------------------------------------------
    @classmethod
    def from_weights(cls, cfg: Config, weights: Weights, dtype: torch.dtype = torch.float32) -> TorchModel:
        """A model holding a copy of `weights` (which must fit `cfg`)."""
        if not isinstance(weights, Weights):
            raise TypeError(f"from_weights needs Weights, got {type(weights).__name__}")
        if not weights.cfg.same_shapes(cfg):
            raise WeightsError(f"the weights ({weights.cfg.describe()}) do not fit this config "
                               f"({cfg.describe()})")
        model = cls(cfg).to(dtype)
        with torch.no_grad():
            for name, param in model.named_parameters():
                param.copy_(torch.from_numpy(np.array(weights[name])))
        return model

    def to_weights(self) -> Weights:
        """The current parameters as validated float32 Weights (a NaN from a diverged run is a
        WeightsError naming the tensor, not a silent bad model)."""
        with torch.no_grad():
            arrays = {name: p.detach().to("cpu", torch.float32).numpy().copy()
                      for name, p in self.named_parameters()}
        ordered = {name: arrays[name] for name in weight_shapes(self.cfg)}   # canonical order
        return Weights.from_dict(self.cfg, ordered, source="torch model")

    # -- the model -----------------------------------------------------------------------------
    def forward(self, tokens: torch.Tensor, attn_mask: torch.Tensor | None = None,
                cache: dict | None = None, edit=None) -> torch.Tensor:
        """logits [B, T, d_vocab] for token ids [B, T]. With `cache` (a dict), every intermediate
        is stored under its Trace name, batched: (name, layer) -> [B, ...]. `edit(name, layer, x)`,
        where given, may replace each value right after it is computed (interventions: circuits.py)."""
        cfg = self.cfg
        B, T = tokens.shape
        H, dh = cfg.n_heads, cfg.d_head
        allowed = torch.ones(T, T, dtype=torch.bool, device=tokens.device)          # [T, T]
        if cfg.causal:
            allowed = torch.tril(allowed)                                            # [T, T] j <= i
        if attn_mask is not None:
            allowed = allowed & attn_mask                                            # [T, T]
        scale = 1.0 / math.sqrt(dh) if cfg.scale_scores else 1.0
        keep = cache is not None

        embed = self.embed.W_E[tokens]                                              # [B, T, d_model]
        pos_embed = self.pos_embed.W_pos[:T]                                        # [T, d_model]
        resid = embed + pos_embed                                                   # [B, T, d_model]
        if keep:
            cache["embed"], cache["pos_embed"] = embed, pos_embed.expand(B, T, -1)

        for layer, blk in enumerate(self.blocks):
            a = blk.attn
            h = (lambda name, x, layer=layer: edit(name, layer, x)) if edit else (lambda name, x: x)
            resid_pre = h("resid_pre", resid)                                      # [B, T, d_model]
            ln1_mean, ln1_var, ln1_out = layer_norm(resid_pre, blk.ln1.w, blk.ln1.b)  # [B,T], [B,T], [B,T,d]
            ln1_out = h("ln1_out", ln1_out)
            q = h("q", torch.einsum("btd,hde->bthe", ln1_out, a.W_Q) + a.b_Q)       # [B, T, H, dh]
            k = h("k", torch.einsum("btd,hde->bthe", ln1_out, a.W_K) + a.b_K)       # [B, T, H, dh]
            v = h("v", torch.einsum("btd,hde->bthe", ln1_out, a.W_V) + a.b_V)       # [B, T, H, dh]
            attn_scores_raw = h("attn_scores_raw", torch.einsum("bihe,bjhe->bhij", q, k))   # [B, H, T, T] q_i . k_j
            attn_scores_scaled = h("attn_scores_scaled", attn_scores_raw * scale)  # [B, H, T, T]
            attn_scores = h("attn_scores", attn_scores_scaled.masked_fill(~allowed, float("-inf")))  # [B, H, T, T]
            pattern = h("pattern", softmax_rows(attn_scores, allowed))              # [B, H, T, T]
            z = h("z", torch.einsum("bhij,bjhe->bihe", pattern, v))                 # [B, T, H, dh] sum_j p_ij v_j
            z_concat = z.reshape(B, T, H * dh)                                      # [B, T, H*dh]
            result = h("result", torch.einsum("bthe,hed->bthd", z, a.W_O))          # [B, T, H, d_model]
            attn_out = h("attn_out", result.sum(dim=2) + a.b_O)                     # [B, T, d_model]
            resid_mid = h("resid_mid", resid_pre + attn_out)                        # [B, T, d_model]
            ln2_mean, ln2_var, ln2_out = layer_norm(resid_mid, blk.ln2.w, blk.ln2.b)  # [B,T], [B,T], [B,T,d]
            ln2_out = h("ln2_out", ln2_out)
            mlp_pre = h("mlp_pre", ln2_out @ blk.mlp.W_in + blk.mlp.b_in)           # [B, T, d_mlp]
            mlp_post = h("mlp_post", gelu(mlp_pre))                                 # [B, T, d_mlp]
            mlp_out = h("mlp_out", mlp_post @ blk.mlp.W_out + blk.mlp.b_out)        # [B, T, d_model]
            resid_post = h("resid_post", resid_mid + mlp_out)                       # [B, T, d_model]
            resid = resid_post
            if keep:
                cache.update(layer_values(layer, locals()))

        _, _, ln_final_out = layer_norm(resid, self.ln_final.w, self.ln_final.b)  # [B, T, d_model]
        logits = ln_final_out @ self.embed.W_E.T                                    # [B, T, d_vocab] (tied)
        if keep:
            cache["ln_final_out"], cache["logits"] = ln_final_out, logits
        return logits


def torch_trace(cfg: Config, weights: Weights, tokens: Any, attn_mask: Any = None,
                dtype: torch.dtype = torch.float64, interventions: Any = None) -> Trace:
    """Run the torch model on one sequence and wrap every intermediate in a Trace
    (backend "torch"), so it can be compared name by name with the `reference` backend.
    `interventions` (compute.Ablate / Patch) replace values as in `forward`."""
    t0 = time.perf_counter()
    ids = cfg.validate_tokens(tokens)                                               # [T]
    T = len(ids)
    mask = None
    if attn_mask is not None:
        mask = torch.as_tensor(np.asarray(attn_mask, dtype=bool))                   # [T, T]
        if tuple(mask.shape) != (T, T):
            raise ConfigError("attn_mask", f"shape {tuple(mask.shape)}", f"must have shape (T, T) = ({T}, {T})")
    model = TorchModel.from_weights(cfg, weights, dtype)
    cache: dict = {}
    edits = circuits.check_interventions(cfg, T, interventions) if interventions is not None else ()
    np_dtype = np.dtype(str(dtype).removeprefix("torch."))

    def edit(name: str, layer: int, x: torch.Tensor) -> torch.Tensor:
        for iv in edits:
            if iv.name == name and iv.layer == layer:
                x = torch.from_numpy(circuits.replaced(x[0].numpy(), iv, np_dtype))[None]
        return x

    with torch.no_grad():
        model(torch.as_tensor(np.array(ids)).reshape(1, T), mask, cache, edit if edits else None)
    arrays = {key: value[0].detach().numpy().copy() for key, value in cache.items()}  # drop B = 1
    logits = arrays.pop("logits")                                                   # [T, d_vocab]
    arrays["tokens"] = ids
    return Trace(cfg=cfg, tokens=ids, backend="torch", backend_label=f"torch {torch.__version__} ({dtype})",
                 dtype=np.dtype(str(dtype).removeprefix("torch.")),
                 timing_ms={"total": (time.perf_counter() - t0) * 1e3}, _arrays=arrays,
                 _logits_fn=lambda rows: logits[rows], weights_uid=weights.uid, interventions=edits)
