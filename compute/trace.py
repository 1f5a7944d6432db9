"""`Trace`: one immutable record of every intermediate of a forward pass, by name."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .config import Config
from .names import ALL_GLOBAL_NAMES, ALL_LAYER_NAMES, global_names, layer_names, missing_reason

Key = str | tuple[str, int]
# Single rows of logits a Trace keeps once computed (logits_rows), at most this many.
LOGIT_ROWS_KEPT = 8
# Cuts of values a Trace keeps once read (Trace.read: a hovered query's row, a head), at most this many.
READS_KEPT = 64
# Which axis `head` cuts in Trace.read (the others: rows are axis 0, or axis 1 of a [n_heads, T, T] map).
HEAD_AXIS = {"attn_scores_raw": 0, "attn_scores_scaled": 0, "attn_scores_capped": 0,
             "attn_scores": 0, "pattern": 0,
             "q": 1, "k": 1, "v": 1, "q_normed": 1, "k_normed": 1, "rot_q": 1, "rot_k": 1, "z": 1, "result": 1}


@dataclass(frozen=True)
class Lazy:
    """A Trace value made on first access: `make()` returns the array (then cached, read-only).

    Backends use it for what is cheap to make from other values but costly to keep for every layer
    (the T×T score maps from q and k), or costly to move (a GPU's buffers, copied to the host only
    when a view asks). `shape` and `dtype` say what it will be without making it."""

    make: Callable[[], np.ndarray]
    shape: tuple[int, ...]
    dtype: np.dtype = np.dtype(np.float32)
    # part(i) makes just value[i] (one head's T×T map of [n_heads, T, T]) without the whole: Trace.part
    part: Callable[[int], np.ndarray] | None = None
    # read(index) makes just value[index] (a tuple of ints and slices: a head, some rows): Trace.read
    read: Callable[[tuple], np.ndarray] | None = None
    # False: the Trace does not keep what make/part/read return (its maker keeps it, or lets it go:
    # a checkpointed layer, compute/backends/checkpoints.py)
    cached: bool = True

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True, eq=False)
class Trace:
    """Every intermediate (docs/ARCHITECTURE.md, "Names"): `trace[name, layer]` or `trace[name]`.

    Arrays are read-only. `logits` ([T, d_vocab], ten times a block's work at real vocabulary
    sizes) is computed on first access; `logits_rows(rows)` computes just the rows a view needs.
    A backend may hand over a value as a `Lazy`: it is made on first access, once, and is then
    an ordinary read-only array (the Trace stays immutable and equal to a materialised one).
    """

    cfg: Config
    tokens: np.ndarray                               # [T] int64
    backend: str                                     # "reference" | "cpu" | "cuda" ...
    backend_label: str                               # e.g. "cpu (numba, 2 threads)"
    dtype: np.dtype
    timing_ms: Mapping[str, float]                   # "total" and per-stage times
    _arrays: Mapping[Key, np.ndarray | Lazy] = field(repr=False)
    _logits_fn: Callable[[np.ndarray | slice], np.ndarray] = field(repr=False)
    notice: str | None = None                        # e.g. why CUDA fell back to CPU
    weights_uid: int | None = None
    request_id: Any = None                           # set by the app to drop stale results
    complete: bool = True                            # False: the part a backend published early
    reused_rows: int = 0                             # leading rows taken from an earlier Trace (forward reuse=)
    attn_mask: np.ndarray | None = field(default=None, repr=False)   # the extra mask it was computed with
    _copied_fn: Callable[[], int] | None = field(default=None, repr=False)   # device -> host bytes so far
    interventions: tuple = ()                        # compute.Ablate / Patch it was computed with (circuits.py)
    reused_layers: int = 0                           # leading layers taken from an earlier Trace (interventions)
    _lazy: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_layer_names", layer_names(self.cfg))
        object.__setattr__(self, "_global_names", global_names(self.cfg))
        for arr in self._arrays.values():
            if not isinstance(arr, Lazy):
                arr.setflags(write=False)
        object.__setattr__(self, "_arrays", MappingProxyType(dict(self._arrays)))
        object.__setattr__(self, "timing_ms", MappingProxyType(dict(self.timing_ms)))

    # -- lookup ------------------------------------------------------------------------------
    @property
    def T(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def n_layers(self) -> int:
        return self.cfg.n_layers

    def __getitem__(self, key: Key) -> np.ndarray:
        if isinstance(key, tuple):
            if len(key) != 2:
                raise KeyError(f"use trace[name, layer] or trace[name], not {key!r}")
            name, layer = key
            if name in ALL_GLOBAL_NAMES:
                raise KeyError(f"{name!r} is a whole-model value; use trace[{name!r}] without a layer")
            if name not in self._layer_names:
                raise KeyError(missing_reason(name, self.cfg) or _unknown(name, self.cfg))
            if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)):
                raise KeyError(f"layer must be a whole number, not {layer!r}")
            index = int(layer) + (self.n_layers if layer < 0 else 0)
            if not 0 <= index < self.n_layers:
                raise KeyError(f"layer {layer} does not exist; this model has layers 0..{self.n_layers - 1}")
            if (name, index) not in self._arrays:
                raise KeyError(f"{name!r} of layer {index} {_NOT_YET}")
            return self._value((name, index))
        name = key
        if name in ALL_LAYER_NAMES:
            raise KeyError(f"{name!r} exists in every layer; use trace[{name!r}, layer]")
        if name == "logits":
            return self._logits()
        if name not in self._global_names:
            raise KeyError(missing_reason(name, self.cfg) or _unknown(name, self.cfg))
        if name not in self._arrays:
            raise KeyError(f"{name!r} {_NOT_YET}")
        return self._value(name)

    def _value(self, key: Key) -> np.ndarray:
        value = self._arrays[key]
        if not isinstance(value, Lazy):
            return value
        if not value.cached:
            return _checked(value.make(), value.shape, key)
        with self._lock:
            if key not in self._lazy:
                made = value.make()
                if made.shape != value.shape:
                    raise RuntimeError(f"{key!r} was promised as {value.shape}, made as {made.shape}")
                made.setflags(write=False)
                self._lazy[key] = made
                for part in [k for k in self._lazy if isinstance(k, tuple) and k[0] == "part" and k[1] == key]:
                    del self._lazy[part]                         # the whole has every part now
            return self._lazy[key]

    def stored(self, key: Key) -> np.ndarray | Lazy:
        """The value as the backend handed it over, not made: an array, or a Lazy (a backend that
        reuses this Trace's rows reads them from here without making what no view asked for)."""
        return self._arrays[key]

    def part(self, name: str, layer: int, index: int) -> np.ndarray:
        """`trace[name, layer][index]` (one head of a [n_heads, T, T] map, say), read-only; a Lazy
        value that can make a part alone (a GPU copying only that head) makes just this one."""
        key = (name, layer)
        value = self._arrays.get(key) if isinstance(layer, (int, np.integer)) and layer >= 0 else None
        if not isinstance(value, Lazy) or value.part is None or key in self._lazy:
            return self[name, layer][index]
        n = value.shape[0]
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not -n <= index < n:
            return self[name, layer][index]                      # anything but one whole index: the whole
        index = int(index) % n
        if not value.cached:
            return _checked(value.part(index), value.shape[1:], (key, index))
        with self._lock:
            if key in self._lazy:
                return self._lazy[key][index]
            if ("part", key, index) not in self._lazy:
                made = value.part(index)
                if made.shape != value.shape[1:]:
                    raise RuntimeError(f"{key!r}[{index}] was promised as {value.shape[1:]}, made as {made.shape}")
                made.setflags(write=False)
                self._lazy[("part", key, index)] = made
            return self._lazy[("part", key, index)]

    def read(self, name: str, layer: int | None = None, head: int | None = None, rows: Any = None,
             cols: Any = None) -> np.ndarray:
        """What a view draws of a value, read-only: `trace[name, layer]` cut to one `head` (axis 0 of
        a [n_heads, T, T] map, axis 1 of [T, n, d_head]: HEAD_AXIS), to `rows` (an int, a slice
        or a list of positions; the query rows: axis 0, or axis 1 of a map) and, for a map, to
        `cols` (keys: an int or a slice). A value still on a device copies only that cut (kept:
        READS_KEPT), so a view of one head's row of a T×T map moves 4·T bytes, not the layer's
        maps. Whole-model names take no layer and no head."""
        if layer is not None and isinstance(layer, (int, np.integer)) and not isinstance(layer, bool) and layer < 0:
            layer = int(layer) + self.n_layers
        whole = (lambda: self[name]) if layer is None else (lambda: self[name, layer])   # noqa: E731
        key = name if layer is None else (name, int(layer) if isinstance(layer, (int, np.integer)) else layer)
        head_axis = HEAD_AXIS.get(name)
        if head is not None and head_axis is None:
            raise KeyError(f"{name!r} has no heads to choose from")
        if cols is not None and head_axis != 0:
            raise KeyError(f"{name!r} is no [n_heads, T, T] map: it has no key columns to choose")
        value = self._arrays.get(key) if key != "logits" else None
        if not isinstance(value, Lazy):
            return whole()[_cut(head_axis, head, rows, cols)]
        rows_axis = 1 if head_axis == 0 else 0
        index = _cut(head_axis, _whole_index(head, value.shape[head_axis]) if head is not None else None,
                     _rows_index(rows, value.shape[rows_axis]),
                     _rows_index(cols, value.shape[2]) if cols is not None else None)
        if value.read is None or key in self._lazy:
            return whole()[index]
        if not value.cached:
            made = value.read(index)
            made.setflags(write=False)
            return made
        part = ("part", key, index[0]) if head_axis == 0 and isinstance(index[0], int) else None
        if part in self._lazy:
            return self._lazy[part][index[1:]]
        cached = ("read", key, tuple((i.start, i.stop) if isinstance(i, slice) else
                                     tuple(i.tolist()) if isinstance(i, np.ndarray) else i for i in index))
        with self._lock:
            if cached not in self._lazy:
                made = value.read(index)
                made.setflags(write=False)
                reads = [k for k in self._lazy if isinstance(k, tuple) and k[0] == "read"]
                for old in reads[:max(0, len(reads) + 1 - READS_KEPT)]:
                    del self._lazy[old]                          # the oldest cuts go first
                self._lazy[cached] = made
            return self._lazy[cached]

    def forbidden(self, layer: int, rows: Any = None) -> np.ndarray:
        """[T, T] bool (or those rows): where the mask forbids query i key j (attn_scores is −∞
        there), from the config, the layer's window and the extra mask alone: nothing is read."""
        from .backends.base import allowed_pairs

        return ~allowed_pairs(self.T, self.cfg.causal, self.attn_mask, self.cfg.window(layer))[
            slice(None) if rows is None else rows]

    @property
    def copied_bytes(self) -> int:
        """Bytes its backend has copied device -> host for this pass so far (0 off a device)."""
        return int(self._copied_fn()) if self._copied_fn is not None else 0

    def is_ready(self, name: str, layer: int | None = None) -> bool:
        """Whether reading the value costs nothing more (it is not a Lazy still to be made)."""
        key = name if layer is None else (name, layer)
        return key in self._arrays and (not isinstance(self._arrays[key], Lazy) or key in self._lazy)

    def get(self, name: str, layer: int | None = None, default: Any = None) -> Any:
        try:
            return self[name] if layer is None else self[name, layer]
        except KeyError:
            return default

    def keys(self) -> Iterator[Key]:
        """Every key; `logits` is listed but computed only when read."""
        yield from (n for n in self._global_names if self.complete or n in self._arrays)
        for layer in range(self.n_layers):
            for name in self._layer_names:
                if self.complete or (name, layer) in self._arrays:
                    yield (name, layer)

    def has(self, name: str, layer: int | None = None) -> bool:
        """Whether the value is here (always, in a complete Trace, for a name this model has)."""
        if name not in (self._global_names if layer is None else self._layer_names):
            return False
        return self.complete or (name if layer is None else (name, layer)) in self._arrays

    @property
    def layer_names(self) -> tuple[str, ...]:
        """The per-layer names this model has (compute.names.layer_names of its config)."""
        return self._layer_names

    @property
    def global_names(self) -> tuple[str, ...]:
        return self._global_names

    @property
    def logits_ready(self) -> bool:
        return "logits" in self._lazy

    def _logits(self) -> np.ndarray:
        with self._lock:
            if "logits" not in self._lazy:
                out = self._logits_fn(slice(None))  # [T, d_vocab]
                out.setflags(write=False)
                self._lazy["logits"] = out
            return self._lazy["logits"]

    def logits_rows(self, rows: Any) -> np.ndarray:
        """logits for some positions only (ln_final_out[rows] @ W_E.T): [len(rows), d_vocab].
        A single row is kept once computed (a view asks for the query's row more than once per
        redraw; at GPT-2's vocabulary each is a 150 MB product)."""
        if "logits" in self._lazy:
            return self._lazy["logits"][rows]
        rows_arr = np.atleast_1d(np.asarray(rows, dtype=np.int64))  # [R]
        if rows_arr.size and (rows_arr.min() < -self.T or rows_arr.max() >= self.T):
            raise IndexError(f"positions {rows!r} outside 0..{self.T - 1}")
        key = ("logits row", int(rows_arr[0]) % max(self.T, 1)) if rows_arr.size == 1 else None
        if key is not None and key in self._lazy:
            return self._lazy[key]
        out = self._logits_fn(rows_arr)  # [R, d_vocab]
        out.setflags(write=False)
        if key is not None:
            with self._lock:
                if sum(1 for k in self._lazy if isinstance(k, tuple) and k[0] == "logits row") < LOGIT_ROWS_KEPT:
                    self._lazy[key] = out
        return out

    @property
    def nbytes(self) -> int:
        """Bytes held now: arrays, and the lazy values made so far."""
        held = sum(a.nbytes for a in self._arrays.values() if not isinstance(a, Lazy))
        return held + sum(a.nbytes for k, a in self._lazy.items() if k in self._arrays)

    def summary(self) -> str:
        total = self.timing_ms.get("total", float("nan"))
        return f"{self.backend_label} · {total:.1f} ms · T={self.T} · {self.dtype}"


def _checked(made: np.ndarray, shape: tuple, key: Any) -> np.ndarray:
    """A Lazy's value as promised (its shape), read-only."""
    if made.shape != shape:
        raise RuntimeError(f"{key!r} was promised as {shape}, made as {made.shape}")
    made.setflags(write=False)
    return made


def _whole_index(i: Any, n: int) -> int:
    """One position of an axis of length n (negative from the end), checked."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
        raise IndexError(f"index {i!r} outside 0..{n - 1}")
    return int(i) % n


def _rows_index(rows: Any, n: int) -> int | slice | np.ndarray:
    """`rows` of Trace.read as an int, a step-1 slice, or (positions not in one run) an array."""
    if rows is None:
        return slice(0, n)
    if isinstance(rows, slice):
        start, stop, step = rows.indices(n)
        return slice(start, max(start, stop)) if step == 1 else np.arange(start, stop, step)
    if isinstance(rows, (int, np.integer)) and not isinstance(rows, bool):
        return _whole_index(rows, n)
    picked = np.array([_whole_index(int(r), n) for r in np.atleast_1d(rows)], np.int64)   # [R]
    if picked.size and np.array_equal(picked, np.arange(picked[0], picked[0] + picked.size)):
        return slice(int(picked[0]), int(picked[0]) + picked.size)
    return picked


def _cut(head_axis: int | None, head: Any, rows: Any, cols: Any = None) -> tuple:
    """The index of Trace.read: (head, rows[, cols]) for a map, (rows, head) for [T, n, d], (rows,) else."""
    rows = slice(None) if rows is None else rows
    if head_axis is None:
        return (rows,)
    head = slice(None) if head is None else head
    if head_axis == 0:
        return (head, rows) if cols is None else (head, rows, cols)
    return (rows, head)


def _unknown(name: Any, cfg: Config) -> str:
    return (f"no intermediate named {name!r}; per-layer names: {', '.join(layer_names(cfg))}; "
            f"whole-model names: {', '.join(global_names(cfg))}")


_NOT_YET = "is not computed yet (an early, partial Trace)"


def _not_yet(rows: Any) -> np.ndarray:
    """The logits of a partial Trace (they need the last layer)."""
    raise KeyError(f"'logits' {_NOT_YET}")


def partial_trace(cfg: Config, arrays: Mapping[Key, np.ndarray], backend: str = "", backend_label: str = "",
                  dtype: Any = np.float32, weights_uid: int | None = None) -> Trace:
    """A Trace of the values a backend published early (compute.progress.publish): reading a
    name that is not there yet is a KeyError that says so; `complete` is False."""
    return Trace(cfg=cfg, tokens=arrays["tokens"], backend=backend, backend_label=backend_label,
                 dtype=np.dtype(dtype), timing_ms={}, _arrays=arrays, _logits_fn=_not_yet,
                 weights_uid=weights_uid, complete=False)

