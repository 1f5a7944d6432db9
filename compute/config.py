"""The model's shape: a frozen, validated `Config`, the presets, and token validation.

Every impossible value raises `ConfigError`, whose message names the field, the value and the
limit it broke, so the UI and the CLI can show it as it is.
"""
from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
SIZE_FIELDS = ("d_model", "n_heads", "d_head", "n_ctx", "d_vocab", "n_layers", "d_mlp")
FLAG_FIELDS = ("causal", "scale_scores")


class ConfigError(ValueError):
    """An impossible configuration or input; `field`, `value` and `limit` say which and why."""

    def __init__(self, field: str, value: Any, reason: str, limit: Any = None):
        self.field = field
        self.value = value
        self.limit = limit
        self.reason = reason
        super().__init__(f"{field}={_short_repr(value)}: {reason}")


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_size(name: str, value: Any) -> int:
    """An integer size >= 1 and <= its ceiling, or ConfigError."""
    # bool is an int subclass, and True as a size is always a mistake.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ConfigError(name, value, f"must be a whole number (got {type(value).__name__})")
    value = int(value)
    if value < 1:
        raise ConfigError(name, value, "must be at least 1", limit=1)
    if value > LIMITS[name]:
        raise ConfigError(name, value, f"is above the limit of {LIMITS[name]:,}", limit=LIMITS[name])
    return value


def _as_flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ConfigError(name, value, f"must be True or False (got {type(value).__name__})")


@dataclass(frozen=True, kw_only=True)
class Config:
    """Dimensions of a GPT-2-style decoder (DESIGN.md section 2). Defaults are the toy workbench.

    `d_head` defaults to d_model // n_heads and `d_mlp` to 4 * d_model; both are then ordinary
    fields, so `replace(d_model=...)` keeps them unless they are given too.
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
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: validated values are written once, here
        for fname in ("d_model", "n_heads", "n_ctx", "d_vocab", "n_layers"):
            set_(self, fname, _as_size(fname, getattr(self, fname)))
        if self.d_head is None:
            if self.d_model // self.n_heads < 1:
                raise ConfigError(
                    "d_head", None,
                    f"defaults to d_model // n_heads = {self.d_model} // {self.n_heads} = 0; "
                    "give d_head explicitly or use fewer heads", limit=1)
            set_(self, "d_head", self.d_model // self.n_heads)
        set_(self, "d_head", _as_size("d_head", self.d_head))
        if self.d_mlp is None:
            set_(self, "d_mlp", min(4 * self.d_model, LIMITS["d_mlp"]))
        set_(self, "d_mlp", _as_size("d_mlp", self.d_mlp))
        for fname in FLAG_FIELDS:
            set_(self, fname, _as_flag(fname, getattr(self, fname)))
        if not isinstance(self.name, str):
            raise ConfigError("name", self.name, "must be text")

    # -- derived sizes -----------------------------------------------------------------------
    @property
    def d_concat(self) -> int:
        """Width of the concatenated heads, n_heads * d_head (W_O maps it back to d_model)."""
        return self.n_heads * self.d_head

    def replace(self, **changes: Any) -> Config:
        """A new Config with `changes` applied, validated again (ConfigError on a bad value)."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ConfigError(unknown[0], changes[unknown[0]], "is not a Config field")
        changes.setdefault("name", "custom")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Any) -> Config:
        """Build from a mapping (e.g. a JSON file); unknown keys and bad values give ConfigError."""
        if not isinstance(data, dict):
            raise ConfigError("config", data, "must be a mapping of field names to values")
        known = {f.name for f in dataclasses.fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(str(key), data[key], "is not a Config field")
        return cls(**data)

    def same_shapes(self, other: Config) -> bool:
        """True when weights made for `other` fit this config (the flags change no shape)."""
        return all(getattr(self, f) == getattr(other, f) for f in SIZE_FIELDS)

    def describe(self) -> str:
        return (f"d_model={self.d_model}, n_heads={self.n_heads}, d_head={self.d_head}, "
                f"n_ctx={self.n_ctx}, d_vocab={self.d_vocab}, n_layers={self.n_layers}, "
                f"d_mlp={self.d_mlp}, causal={self.causal}, scale_scores={self.scale_scores}")

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
                                  f"is outside the vocabulary 0..{self.d_vocab - 1} (d_vocab={self.d_vocab})",
                                  limit=self.d_vocab - 1)
            ids.append(tok)
        if len(ids) > self.n_ctx:
            raise ConfigError("tokens", f"{len(ids)} tokens",
                              f"n_ctx={self.n_ctx} is too small for T={len(ids)}; "
                              f"use at most {self.n_ctx} tokens or a larger n_ctx", limit=self.n_ctx)
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
}

PRESET_NOTES: dict[str, str] = {
    "toy": "2 blocks, 2 heads, width 8, vocabulary 16: small enough to read every number.",
    "andrea-120m": "The course model: d_model 768, 12 heads of 64, T up to 1024. "
                   "Layers (12) and vocabulary (50,257) assumed equal to GPT-2 small.",
    "gpt2-small": "GPT-2 small's dimensions: 12 blocks, 12 heads of 64, width 768, context 1024.",
    "gpt3-175b": "GPT-3 175B's dimensions: 96 blocks of 96 heads of 128, width 12,288, context 2,048. "
                 "Dimensions only, random weights, one block at a time.",
}
