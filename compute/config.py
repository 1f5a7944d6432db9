"""The model's shape: a frozen, validated `Config` (GPT-2 and the LLaMA family), the presets, and
token validation.

Every impossible value raises `ConfigError`, whose message names the field, the value and the
limit it broke, so the UI and the CLI can show it as it is.
"""
from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .i18n import QT_TR_NOOP, Message
from .models.components import MLP_KINDS, NORM_KINDS, POSITION_KINDS, Components, SwiGLU, components_of

# Generous hard ceilings: they keep products of sizes far from integer overflow. Whether a size
# fits this machine is the memory budget's question (compute.memory), asked where T is known.
LIMITS: dict[str, int] = {
    "d_model": 1 << 16,
    "n_heads": 1 << 12,
    "d_head": 1 << 16,
    "n_ctx": 1 << 20,
    "d_vocab": 1 << 22,
    "n_layers": 1 << 10,
    "d_mlp": 1 << 20,
}
MAX_EXPERTS = 1024                      # Qwen3-MoE has 128, DeepSeek-V3 256
SIZE_FIELDS = ("d_model", "n_heads", "d_head", "n_ctx", "d_vocab", "n_layers", "d_mlp")
FLAG_FIELDS = ("causal", "scale_scores")
# The model-family fields (docs/ARCHITECTURE.md, "Model families"). Their defaults give GPT-2, and `to_dict` leaves a
# field out while it has its default, so a GPT-2 config's dict is the same as before they existed.
# Each string names a component (compute/models/components.py); `Config.components` makes them once.
NORMS = tuple(NORM_KINDS)
POSITIONS = tuple(POSITION_KINDS)
MLPS = tuple(MLP_KINDS)
FAMILY_DEFAULTS: dict[str, Any] = {
    "norm": "layernorm", "norm_eps": 1e-5, "positions": "learned", "rope_theta": 10000.0,
    "rotary_dim": None, "n_kv_heads": None, "mlp": "gelu", "tied_embeddings": True,
    "attn_bias": True, "mlp_bias": True, "windows": None, "qk_norm": False,
    "n_experts": 0, "experts_per_token": 0, "norm_topk": True,
    "parallel": False,
    "pre_norms": True, "post_norms": False, "rope_theta_local": None, "scale_embed": False,
    "query_pre_attn_scalar": None, "qk_norm_scope": "head", "attn_softcap": None, "final_softcap": None,
}
QK_NORM_SCOPES = ("head", "all")


class ConfigError(ValueError):
    """An impossible configuration or input; `field`, `value` and `limit` say which and why.

    `reason` is English text, or a `Message` (a template marked for translation and its values,
    compute/i18n.py) that the window shows in its language; `str()` is English either way."""

    def __init__(self, field: str, value: Any, reason: str | Message, limit: Any = None):
        self.field = field
        self.value = value
        self.limit = limit
        self.message = reason if isinstance(reason, Message) else None
        self.reason = str(reason)
        self.shown_value = _short_repr(value)
        super().__init__(f"{field}={self.shown_value}: {self.reason}")


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_size(name: str, value: Any, limit: int | None = None) -> int:
    """An integer size >= 1 and <= its ceiling, or ConfigError."""
    limit = LIMITS[name] if limit is None else limit
    # bool is an int subclass, and True as a size is always a mistake.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ConfigError(name, value, Message(QT_TR_NOOP("must be a whole number (got {type})"),
                                               type=type(value).__name__))
    value = int(value)
    if value < 1:
        raise ConfigError(name, value, Message(QT_TR_NOOP("must be at least 1")), limit=1)
    if value > limit:
        raise ConfigError(name, value, Message(QT_TR_NOOP("is above the limit of {limit}"), limit=limit), limit=limit)
    return value


def _as_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in choices:
        return value
    raise ConfigError(name, value, Message(QT_TR_NOOP("must be one of {choices}"),
                                           choices=", ".join(repr(c) for c in choices)))


def _as_positive(name: str, value: Any, below: float) -> float:
    """A finite real number in (0, below)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ConfigError(name, value, f"must be a number (got {type(value).__name__})")
    value = float(value)
    if not 0.0 < value < below:
        raise ConfigError(name, value, f"must be above 0 and below {below:g}", limit=below)
    return value


def _as_flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ConfigError(name, value, f"must be True or False (got {type(value).__name__})")


@dataclass(frozen=True, kw_only=True)
class Config:
    """Dimensions of a decoder (docs/ARCHITECTURE.md, "Names") and its model family ("Model families": the
    LLaMA family's RMSNorm, RoPE, GQA, SwiGLU, untied unembedding, windows). Defaults are the toy
    workbench, a GPT-2.

    `d_head` defaults to d_model // n_heads and `d_mlp` to 4 * d_model; both are then ordinary
    fields, so `replace(d_model=...)` keeps them unless they are given too. `n_kv_heads` defaults
    to n_heads and `rotary_dim` (RoPE only) to d_head; `windows` is None (all dense) or one entry
    per layer (a single number means every layer).
    """

    d_model: int = 8
    n_heads: int = 2
    d_head: int | None = None
    n_ctx: int = 16
    d_vocab: int = 16
    n_layers: int = 2
    d_mlp: int | None = None
    causal: bool = True
    scale_scores: bool = True
    # -- model family (docs/ARCHITECTURE.md, "Model families"); the defaults are GPT-2 --------------------------------
    norm: str = "layernorm"              # "layernorm" (mean, var, w, b) | "rmsnorm" (x / rms · w)
    norm_eps: float = 1e-5
    positions: str = "learned"           # "learned" (W_pos) | "rope" (q and k rotated)
    rope_theta: float = 10000.0
    rotary_dim: int | None = None        # RoPE only: leading dims of each head rotated (default d_head)
    n_kv_heads: int | None = None        # K/V heads (default n_heads; 1 = multi-query)
    mlp: str = "gelu"                    # "gelu" (W_in, tanh GELU, W_out) | "gelu_erf" (exact GELU) | "swiglu"
    tied_embeddings: bool = True         # unembedding = W_Eᵀ, else its own unembed.W_U
    attn_bias: bool = True               # b_Q, b_K, b_V, b_O present
    mlp_bias: bool = True                # b_in, b_out (and b_gate) present
    windows: tuple[int | None, ...] | None = None   # per layer: None = dense, W = keys i-W < j <= i
    qk_norm: bool = False                # per-head RMSNorm of q and k before RoPE (Qwen3): q_normed, k_normed
    n_experts: int = 0                   # 0: one dense MLP; E >= 2: a mixture of E expert MLPs (Mixtral)
    experts_per_token: int = 0           # with experts: the top k each token's router picks
    norm_topk: bool = True               # with experts: the k chosen weights renormalised to sum to 1
    parallel: bool = False               # x + attn(ln1(x)) + mlp(ln2(x)): ln2 reads resid_pre (GPT-NeoX)
    qk_norm_scope: str = "head"          # "head": over each head's d_head; "all": over all heads at once (OLMo 2)
    pre_norms: bool = True               # ln1, ln2 before attention and MLP (OLMo 2 has none)
    post_norms: bool = False             # RMSNorm of attn_out and mlp_out before each residual add (Gemma 2/3, OLMo 2)
    rope_theta_local: float | None = None   # RoPE base of windowed layers (Gemma 3: 10,000; global ones rope_theta)
    scale_embed: bool = False            # embed = W_E[tokens] · √d_model (Gemma)
    query_pre_attn_scalar: float | None = None   # scores · query_pre_attn_scalar^-1/2 instead of 1/√d_head (Gemma)
    attn_softcap: float | None = None    # scores capped to cap·tanh(s / cap) before the mask (Gemma 2: 50)
    final_softcap: float | None = None   # logits capped to cap·tanh(logits / cap) (Gemma 2: 30)
    name: str = field(default="custom", compare=False)

    def __init__(self, **fields: Any):
        # Written out so that an unknown keyword is a ConfigError naming it, as in replace().
        known = _FIELD_NAMES
        for key in fields:
            if key not in known:
                raise ConfigError(str(key), fields[key], "is not a Config field")
        for f in dataclasses.fields(type(self)):
            object.__setattr__(self, f.name, fields.get(f.name, f.default))
        self.__post_init__()

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: validated values are written once, here
        for fname in ("d_model", "n_heads", "n_ctx", "d_vocab", "n_layers"):
            set_(self, fname, _as_size(fname, getattr(self, fname)))
        if self.d_head is None:
            if self.d_model // self.n_heads < 1:
                raise ConfigError(
                    "d_head", None,
                    Message(QT_TR_NOOP("defaults to d_model // n_heads = {d_model} // {n_heads} = 0; "
                                       "give d_head explicitly or use fewer heads"),
                            d_model=str(self.d_model), n_heads=str(self.n_heads)), limit=1)
            set_(self, "d_head", self.d_model // self.n_heads)
        set_(self, "d_head", _as_size("d_head", self.d_head))
        if self.d_mlp is None:
            set_(self, "d_mlp", min(4 * self.d_model, LIMITS["d_mlp"]))
        set_(self, "d_mlp", _as_size("d_mlp", self.d_mlp))
        for fname in FLAG_FIELDS + ("tied_embeddings", "attn_bias", "mlp_bias", "qk_norm", "parallel", "norm_topk",
                                    "pre_norms", "post_norms", "scale_embed"):
            set_(self, fname, _as_flag(fname, getattr(self, fname)))
        if not isinstance(self.name, str):
            raise ConfigError("name", self.name, "must be text")
        self._validate_family()

    def _validate_family(self) -> None:
        """The LLaMA-family fields: each a known choice, and no impossible combination."""
        set_ = object.__setattr__
        set_(self, "norm", _as_choice("norm", self.norm, NORMS))
        set_(self, "positions", _as_choice("positions", self.positions, POSITIONS))
        set_(self, "mlp", _as_choice("mlp", self.mlp, MLPS))
        set_(self, "norm_eps", _as_positive("norm_eps", self.norm_eps, below=1.0))
        set_(self, "rope_theta", _as_positive("rope_theta", self.rope_theta, below=1e12))
        set_(self, "qk_norm_scope", _as_choice("qk_norm_scope", self.qk_norm_scope, QK_NORM_SCOPES))
        if self.rope_theta_local is not None:
            set_(self, "rope_theta_local", _as_positive("rope_theta_local", self.rope_theta_local, below=1e12))
        if self.query_pre_attn_scalar is not None:
            set_(self, "query_pre_attn_scalar", _as_positive("query_pre_attn_scalar", self.query_pre_attn_scalar,
                                                             below=1e12))
        for fname in ("attn_softcap", "final_softcap"):
            if getattr(self, fname) is not None:
                set_(self, fname, _as_positive(fname, getattr(self, fname), below=1e12))
        if self.n_kv_heads is None:
            set_(self, "n_kv_heads", self.n_heads)
        kv = _as_size("n_kv_heads", self.n_kv_heads, limit=LIMITS["n_heads"])
        set_(self, "n_kv_heads", kv)
        if kv > self.n_heads or self.n_heads % kv:
            raise ConfigError("n_kv_heads", kv, Message(QT_TR_NOOP("must divide n_heads={n_heads} (each K/V head "
                                                                   "serves n_heads / n_kv_heads query heads)"),
                                                        n_heads=str(self.n_heads)), limit=self.n_heads)
        if POSITION_KINDS[self.positions].rotates:
            if self.rotary_dim is None and self.d_head % 2:
                raise ConfigError("d_head", self.d_head, Message(QT_TR_NOOP(
                    "must be even with RoPE, which rotates pairs of dimensions (or rotate fewer: an even "
                    "rotary_dim < d_head)")))
            rot = self.d_head if self.rotary_dim is None else _as_size("rotary_dim", self.rotary_dim,
                                                                       limit=LIMITS["d_head"])
            if rot % 2:
                raise ConfigError("rotary_dim", rot, Message(QT_TR_NOOP("must be even: RoPE rotates pairs of "
                                                                        "dimensions")))
            if rot > self.d_head:
                raise ConfigError("rotary_dim", rot, Message(QT_TR_NOOP("must be at most d_head={d_head}"),
                                                             d_head=str(self.d_head)), limit=self.d_head)
            set_(self, "rotary_dim", rot)
        elif self.rotary_dim is not None:
            raise ConfigError("rotary_dim", self.rotary_dim, "applies to RoPE only; this config has "
                              "positions='learned' (set positions='rope', or rotary_dim=None)")
        set_(self, "windows", self._checked_windows(self.windows))
        self._validate_experts()

    def _validate_experts(self) -> None:
        """A mixture of experts: none (0, 0), or E >= 2 gated experts of which each token takes k."""
        set_ = object.__setattr__
        for fname in ("n_experts", "experts_per_token"):
            value = getattr(self, fname)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
                raise ConfigError(fname, value, "must be a whole number >= 0 (0: a dense MLP)")
            set_(self, fname, int(value))
        E, k = self.n_experts, self.experts_per_token
        if E == 0:
            if k:
                raise ConfigError("experts_per_token", k, "applies to a mixture of experts only (n_experts=0)")
            return
        if E < 2 or E > MAX_EXPERTS:
            raise ConfigError("n_experts", E, f"must be 0 (dense) or 2 to {MAX_EXPERTS:,} experts", limit=MAX_EXPERTS)
        if not 1 <= k <= E:
            raise ConfigError("experts_per_token", k, Message(QT_TR_NOOP(
                "must be 1 to n_experts={n_experts}: each token's router picks that many experts"),
                n_experts=str(E)), limit=E)
        if MLP_KINDS[self.mlp] is not SwiGLU:                # the experts are SwiGLU MLPs
            raise ConfigError("mlp", self.mlp, "a mixture of experts here is one of SwiGLU experts; set mlp='swiglu'")
        for fname in ("post_norms", "parallel"):             # no such model: Mixtral, Qwen3-MoE, OLMoE have neither
            if getattr(self, fname):
                raise ConfigError(fname, True, "is not supported with a mixture of experts (n_experts > 0)")

    def _checked_windows(self, windows: Any) -> tuple[int | None, ...] | None:
        """None (every layer dense), or one entry per layer: None or a window W >= 1. A single
        whole number means that window in every layer. All-dense is stored as None."""
        if windows is None:
            return None
        if isinstance(windows, numbers.Integral) and not isinstance(windows, (bool, np.bool_)):
            windows = (windows,) * self.n_layers
        if isinstance(windows, (str, bytes)) or not isinstance(windows, (list, tuple)):
            raise ConfigError("windows", windows, "must be None, a whole number, or one entry per layer "
                              "(None = dense causal attention, W = the last W keys)")
        if len(windows) != self.n_layers:
            raise ConfigError("windows", windows, f"has {len(windows)} entries but n_layers={self.n_layers}; "
                              "give one per layer", limit=self.n_layers)
        out = []
        for layer, w in enumerate(windows):
            if w is None:
                out.append(None)
                continue
            if isinstance(w, (bool, np.bool_)) or not isinstance(w, numbers.Integral):
                raise ConfigError(f"windows[{layer}]", w, "must be None (dense) or a whole number of keys")
            if w < 1:
                raise ConfigError(f"windows[{layer}]", w, "must be at least 1 (a query sees itself)", limit=1)
            if w > LIMITS["n_ctx"]:
                raise ConfigError(f"windows[{layer}]", w, f"is above the limit of {LIMITS['n_ctx']:,}",
                                  limit=LIMITS["n_ctx"])
            out.append(int(w))
        return None if all(w is None for w in out) else tuple(out)

    @cached_property
    def components(self) -> Components:
        """The model's parts, chosen once from the family fields (compute/models/components.py):
        ask them (`cfg.components.norm.stats`, `.positions.rotates`, `.mlp.gated`) rather than
        comparing the strings."""
        return components_of(self)

    # -- derived sizes -----------------------------------------------------------------------
    @property
    def d_concat(self) -> int:
        """Width of the concatenated heads, n_heads * d_head (W_O maps it back to d_model)."""
        return self.n_heads * self.d_head

    @property
    def n_groups(self) -> int:
        """Query heads per K/V head: query head h reads K/V head h // n_groups."""
        return self.n_heads // self.n_kv_heads

    @property
    def d_kv(self) -> int:
        """Width of one position's keys (or values) over all K/V heads, n_kv_heads * d_head."""
        return self.n_kv_heads * self.d_head

    def window(self, layer: int) -> int | None:
        """The attention window of a layer: None = dense causal, W = query i sees keys i-W < j <= i."""
        return None if self.windows is None else self.windows[layer]

    def replace(self, **changes: Any) -> Config:
        """A new Config with `changes` applied, validated again (ConfigError on a bad value).

        Fields that follow others keep following: multi-head attention (n_kv_heads == n_heads)
        stays so when n_heads changes, a RoPE over the whole head (rotary_dim == d_head) stays so
        when d_head changes, and per-layer windows repeat their pattern over a new n_layers
        (Mistral's one window everywhere, GPT-3's dense/banded alternation)."""
        unknown = sorted(set(changes) - _FIELD_NAMES)
        if unknown:
            raise ConfigError(unknown[0], changes[unknown[0]], "is not a Config field")
        if "n_heads" in changes and "n_kv_heads" not in changes and self.n_kv_heads == self.n_heads:
            changes["n_kv_heads"] = None
        if "rotary_dim" not in changes and self.components.positions.rotates:
            new = changes.get("positions", self.positions)
            kind = POSITION_KINDS.get(new) if isinstance(new, str) else None
            if kind is None or not kind.rotates:
                changes["rotary_dim"] = None
            elif "d_head" in changes and self.rotary_dim == self.d_head:
                changes["rotary_dim"] = None
        if "n_layers" in changes and "windows" not in changes and self.windows is not None:
            n = changes["n_layers"]
            if isinstance(n, numbers.Integral) and not isinstance(n, (bool, np.bool_)) and 0 < n <= LIMITS["n_layers"]:
                changes["windows"] = tuple(self.windows[i % len(self.windows)] for i in range(int(n)))
        changes.setdefault("name", "custom")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field; a model-family field only where it differs from its default, so a GPT-2
        config gives the same dict as before those fields existed (saved sessions, exports)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in FAMILY_DEFAULTS}
        implied = {"n_kv_heads": self.n_heads, "rotary_dim": self.d_head if self.components.positions.rotates else None}
        for fname, default in FAMILY_DEFAULTS.items():
            value = getattr(self, fname)
            if value != implied.get(fname, default):
                out[fname] = list(value) if fname == "windows" else value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Config:
        """Build from a mapping (e.g. a JSON file); unknown keys and bad values give ConfigError."""
        if not isinstance(data, dict):
            raise ConfigError("config", data, "must be a mapping of field names to values")
        for key in data:
            if key not in _FIELD_NAMES:
                raise ConfigError(str(key), data[key], "is not a Config field")
        return cls(**data)

    def shape_key(self) -> tuple:
        """Everything that decides which weights exist and their shapes (see compute.names)."""
        return (self.d_model, self.n_heads, self.d_head, self.d_vocab, self.n_layers, self.d_mlp,
                self.n_kv_heads, self.norm, self.positions, self.mlp, self.tied_embeddings,
                self.attn_bias, self.mlp_bias, self.n_ctx if self.components.positions.embeds else None,
                self.qk_norm, self.qk_norm_scope if self.qk_norm else None, self.pre_norms, self.post_norms,
                self.n_experts)

    def same_shapes(self, other: Config) -> bool:
        """True when weights made for `other` fit this config: same sizes and the same family
        fields that add or reshape weights (the flags, eps, theta and windows change no shape;
        n_ctx matters only for learned positions)."""
        return self.shape_key() == other.shape_key()

    def shape_differences(self, other: Config) -> list[str]:
        """'field: other's vs ours' for each field that makes `other`'s weights not fit this config."""
        fields = ("d_model", "n_heads", "d_head", "n_ctx", "d_vocab", "n_layers", "d_mlp", "n_kv_heads",
                  "norm", "positions", "mlp", "tied_embeddings", "attn_bias", "mlp_bias", "qk_norm", "qk_norm_scope",
                  "pre_norms", "post_norms", "n_experts")
        return [f"{f}: weights {getattr(other, f)} vs config {getattr(self, f)}" for f in fields
                if getattr(self, f) != getattr(other, f)
                and (f != "n_ctx" or self.components.positions.embeds or other.components.positions.embeds)]

    @property
    def family(self) -> str:
        """'gpt2' when every family field has its GPT-2 value, else 'llama' (RMSNorm, RoPE, ...)."""
        return "gpt2" if set(self.to_dict()) <= _BASE_FIELDS else "llama"

    def describe(self) -> str:
        text = (f"d_model={self.d_model}, n_heads={self.n_heads}, d_head={self.d_head}, "
                f"n_ctx={self.n_ctx}, d_vocab={self.d_vocab}, n_layers={self.n_layers}, "
                f"d_mlp={self.d_mlp}, causal={self.causal}, scale_scores={self.scale_scores}")
        extra = {k: v for k, v in self.to_dict().items() if k in FAMILY_DEFAULTS}
        if "windows" in extra:
            extra["windows"] = _describe_windows(self.windows)
        return text + "".join(f", {k}={v}" for k, v in extra.items())

    # -- inputs ------------------------------------------------------------------------------
    def validate_tokens(self, tokens: Any) -> np.ndarray:
        """Token ids as a read-only int64 array [T], or ConfigError naming the bad id or length."""
        if isinstance(tokens, (str, bytes)):
            raise ConfigError("tokens", tokens,
                              "must be a list of token ids; turn text into ids with a tokenizer first")
        fast = self._plain_ids(tokens)
        if fast is not None:
            return fast
        try:
            items = list(tokens)
        except TypeError:
            raise ConfigError("tokens", tokens, "must be a sequence of token ids") from None
        ids = []
        for pos, tok in enumerate(items):
            if isinstance(tok, (bool, np.bool_)) or not isinstance(tok, numbers.Integral):
                raise ConfigError(f"tokens[{pos}]", tok, "must be a whole-number token id")
            tok = int(tok)
            if not 0 <= tok < self.d_vocab:
                raise ConfigError(f"tokens[{pos}]", tok,
                                  Message(QT_TR_NOOP("is outside the vocabulary 0..{last} (d_vocab={d_vocab})"),
                                          last=str(self.d_vocab - 1), d_vocab=str(self.d_vocab)),
                                  limit=self.d_vocab - 1)
            ids.append(tok)
        if len(ids) > self.n_ctx:
            raise ConfigError("tokens", f"{len(ids)} tokens",
                              Message(QT_TR_NOOP("n_ctx={n_ctx} is too small for T={T}; use at most {n_ctx} "
                                                 "tokens or a larger n_ctx"), n_ctx=str(self.n_ctx), T=str(len(ids))),
                              limit=self.n_ctx)
        arr = np.asarray(ids, dtype=np.int64).reshape(-1)  # [T]
        arr.setflags(write=False)
        return arr

    def _plain_ids(self, tokens: Any) -> np.ndarray | None:
        """The common case checked in bulk (the loop above costs ~1 ms at T=1024): a 1-D integer
        array, or a list/tuple of plain ints, all in range and within n_ctx. None otherwise, and
        the loop then finds and names the problem."""
        if isinstance(tokens, np.ndarray):
            if tokens.ndim != 1 or tokens.dtype.kind not in "iu":
                return None
            arr = tokens.astype(np.int64)          # [T] (a copy; a uint64 past int64 wraps negative: refused below)
        elif isinstance(tokens, (list, tuple)) and all(type(t) is int for t in tokens):
            try:
                arr = np.fromiter(tokens, np.int64, len(tokens))           # [T]
            except OverflowError:
                return None
        else:
            return None
        if len(arr) > self.n_ctx or (arr.size and (arr.min() < 0 or arr.max() >= self.d_vocab)):
            return None
        arr.setflags(write=False)
        return arr


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Config))
_BASE_FIELDS = _FIELD_NAMES - set(FAMILY_DEFAULTS)


def _describe_windows(windows: tuple[int | None, ...]) -> str:
    """'4096 everywhere' or the first few entries, e.g. '(None, 256, None, 256, ...)'."""
    if len(set(windows)) == 1:
        return f"{windows[0]} in every layer"
    shown = ", ".join(str(w) for w in windows[:4])
    return f"({shown}{', ...' if len(windows) > 4 else ''})"


PRESETS: dict[str, Config] = {
    # The lab's number workbench: small enough to print every number in its cell.
    "toy": Config(d_model=8, n_heads=2, d_head=4, n_ctx=16, d_vocab=16, n_layers=2, name="toy"),
    # The course model; its layer count and vocabulary are assumed equal to GPT-2 small's.
    "andrea-120m": Config(d_model=768, n_heads=12, d_head=64, n_ctx=1024, d_vocab=50257,
                          n_layers=12, name="andrea-120m"),
    "gpt2-small": Config(d_model=768, n_heads=12, d_head=64, n_ctx=1024, d_vocab=50257,
                         n_layers=12, name="gpt2-small"),
    # Dimensions only: the full model cannot be held in memory, so run it one block at a time
    # (PRESETS["gpt3-175b"].replace(n_layers=1)).
    "gpt3-175b": Config(d_model=12288, n_heads=96, d_head=128, n_ctx=2048, d_vocab=50257,
                        n_layers=96, name="gpt3-175b"),
    # GPT-3 as its paper describes the layers: dense and locally banded attention alternating
    # (even layers dense, odd layers a band of the last 256 keys; see PRESET_NOTES for the width).
    "gpt3-175b-banded": Config(d_model=12288, n_heads=96, d_head=128, n_ctx=2048, d_vocab=50257,
                               n_layers=96, windows=(None, 256) * 48, name="gpt3-175b-banded"),
    # The LLaMA family (docs/ARCHITECTURE.md, "Model families"). SmolLM2-135M as its GGUF/config.json give it.
    "smollm2-135m": Config(d_model=576, n_heads=9, n_kv_heads=3, d_head=64, d_mlp=1536, n_ctx=8192,
                           d_vocab=49152, n_layers=30, norm="rmsnorm", norm_eps=1e-5, positions="rope",
                           rope_theta=1e5, mlp="swiglu", tied_embeddings=True, attn_bias=False,
                           mlp_bias=False, name="smollm2-135m"),
    # Gemma 3 270M as its GGUF gives it: 5 local layers (window 512, RoPE base 10,000) to 1 global (1,000,000).
    "gemma3-270m": Config(d_model=640, n_heads=4, n_kv_heads=1, d_head=256, d_mlp=2048, n_ctx=32768,
                          d_vocab=262144, n_layers=18, norm="rmsnorm", norm_eps=1e-6, positions="rope",
                          rope_theta=1e6, rope_theta_local=1e4, windows=tuple(None if (i + 1) % 6 == 0 else 512
                                                                              for i in range(18)),
                          mlp="geglu", tied_embeddings=True, attn_bias=False, mlp_bias=False, qk_norm=True,
                          post_norms=True, scale_embed=True, query_pre_attn_scalar=256.0, name="gemma3-270m"),
    # Dimensions only (like gpt3-175b): one block at a time.
    "llama-3-8b": Config(d_model=4096, n_heads=32, n_kv_heads=8, d_head=128, d_mlp=14336, n_ctx=8192,
                         d_vocab=128256, n_layers=32, norm="rmsnorm", norm_eps=1e-5, positions="rope",
                         rope_theta=5e5, mlp="swiglu", tied_embeddings=False, attn_bias=False,
                         mlp_bias=False, name="llama-3-8b"),
    "mistral-7b": Config(d_model=4096, n_heads=32, n_kv_heads=8, d_head=128, d_mlp=14336, n_ctx=32768,
                         d_vocab=32000, n_layers=32, norm="rmsnorm", norm_eps=1e-5, positions="rope",
                         rope_theta=1e4, mlp="swiglu", tied_embeddings=False, attn_bias=False,
                         mlp_bias=False, windows=4096, name="mistral-7b"),
}
# Presets whose weights cannot be held in memory: they are run one block at a time
# (PRESETS[name].replace(n_layers=1); windows repeat their per-layer pattern).
ONE_BLOCK_PRESETS: tuple[str, ...] = ("gpt3-175b", "gpt3-175b-banded", "llama-3-8b", "mistral-7b")

PRESET_NOTES: dict[str, str] = {
    "toy": QT_TR_NOOP('2 blocks, 2 heads, width 8, vocabulary 16: small enough to read every number.'),
    "andrea-120m": QT_TR_NOOP('The course model: d_model 768, 12 heads of 64, T up to 1024. Layers (12) and '
                              'vocabulary (50,257) assumed equal to GPT-2 small.'),
    "gpt2-small": QT_TR_NOOP("GPT-2 small's dimensions: 12 blocks, 12 heads of 64, width 768, context 1024."),
    "gpt3-175b": QT_TR_NOOP("GPT-3 175B's dimensions: 96 blocks of 96 heads of 128, width 12,288, context 2,048. "
                            'Dimensions only, random weights, one block at a time.'),
    "gpt3-175b-banded": QT_TR_NOOP('GPT-3 175B with the attention its paper describes: "alternating dense and '
                                   'locally banded sparse attention patterns in the layers". The paper gives no '
                                   "band width; 256 keys is assumed, the local window of GPT-Neo, EleutherAI's open "
                                   "replication of GPT-3's layout (its layers alternate global and local attention "
                                   'with window 256). Even layers dense, odd layers banded. Dimensions only, one '
                                   'block at a time (n_layers=1 is a dense layer; n_layers=2 shows both kinds).'),
    "smollm2-135m": QT_TR_NOOP("SmolLM2-135M's dimensions: 30 blocks, 9 query heads sharing 3 K/V heads (GQA) of "
                               '64, width 576, SwiGLU MLP of 1,536, RMSNorm, RoPE (theta 100,000), tied embeddings, '
                               'vocabulary 49,152, context 8,192 (its config.json and GGUF say 8,192). Random '
                               "weights; the real ones are 'SmolLM2-135M (real weights)'."),
    "gemma3-270m": QT_TR_NOOP("Gemma 3 270M's dimensions: 18 blocks, 4 query heads sharing 1 K/V head (MQA) of 256 "
                              "(q is 1,024 wide, d_model 640), QK-norm, RMSNorm before and after attention and the "
                              "MLP, GeGLU MLP of 2,048, embeddings × √640, scores × 1/√256; 5 local layers (window "
                              "512, RoPE base 10,000) to 1 global (base 1,000,000); vocabulary 262,144. Random "
                              "weights; the real ones are 'Gemma 3 270M (real weights)'."),
    "llama-3-8b": QT_TR_NOOP("Llama-3-8B's dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, width "
                             '4,096, SwiGLU MLP of 14,336, RMSNorm, RoPE (theta 500,000), untied unembedding, '
                             'vocabulary 128,256, context 8,192. Dimensions only, random weights, one block at a '
                             'time.'),
    "mistral-7b": QT_TR_NOOP("Mistral-7B (v0.1)'s dimensions: 32 blocks, 32 query heads sharing 8 K/V heads of 128, "
                             'width 4,096, SwiGLU MLP of 14,336, RoPE (theta 10,000), vocabulary 32,000, context '
                             '32,768 with a sliding window of 4,096 keys in every layer. Dimensions only, one block '
                             'at a time.'),
}
