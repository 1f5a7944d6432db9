"""Per-position values made of row ranges of earlier arrays: how an incremental pass shares rows.

With the causal mask, a pass whose tokens share their first p ids with an earlier Trace's gets
rows < p of every per-position value unchanged (compute.forward.reusable_rows). Those rows are
not copied: the new Trace's value is a `Lazy` whose `source` is a `RowParts` — the earlier
value's rows [0, p) (a read-only view of its array, or of its own parts) followed by the rows
this pass computed. Nothing is written into an array a Trace has handed out, so every Trace stays
immutable; the rows are put side by side only when a view reads the value (one copy, then cached
by the Trace). A value whose rows all come from one array is that array's view (no Lazy at all:
deleting the last token shares everything).

Rows run along axis 0 of [T, ...] values and along axis 1 of the [H, T, T] maps; a map's part
made at an earlier T has fewer key columns: the missing keys j ≥ that T are all after the part's
queries, so causally masked, and get `fill` (0 for `pattern`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ..trace import Lazy

# A value made of more parts than this is compacted when the next pass extends it: its later
# parts (usually rows appended one edit at a time) are joined into one array.
MAX_PARTS = 8


class Once:
    """`make()` run once, on first call, then its result returned (thread-safe). Lazy values that
    depend on each other (the score maps on q and k) share their inputs' Once."""

    def __init__(self, make: Callable[[], np.ndarray] | None = None):
        self._make = make
        self._value: np.ndarray | None = None
        self._lock = threading.Lock()

    def _produce(self) -> np.ndarray:
        return self._make()

    def __call__(self) -> np.ndarray:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    value = self._produce()
                    value.setflags(write=False)
                    self._value = value
                    self._make = None                   # drop what it was made from
        return self._value

    @property
    def done(self) -> bool:
        return self._value is not None


class RowParts(Once):
    """The rows of one value: read-only arrays one after the other along `axis` (0: [T, ...];
    1: [H, T, T]). Called, it puts them side by side (once); until then `parts` are views of the
    arrays they came from, and after, the one made array is the only part (the rest is let go)."""

    def __init__(self, parts: tuple[np.ndarray, ...], axis: int = 0, fill: float = 0.0, new=np.empty,
                 cols: int | None = None):
        super().__init__()           # no bound method of itself kept: no reference cycle, so a dropped
        self._parts, self.axis, self.fill, self._new, self._cols = parts, axis, fill, new, cols  # Trace frees at once

    def _produce(self) -> np.ndarray:
        return assemble(self._parts, self.axis, self.fill, self._new, self._cols)

    @property
    def parts(self) -> tuple[np.ndarray, ...]:
        return (self._value,) if self._value is not None else self._parts

    def __call__(self) -> np.ndarray:
        value = super().__call__()
        self._parts = None
        return value

    def freeze(self) -> None:
        """Make every part read-only (a backend calls it once its pass has written them)."""
        for a in self.parts:
            a.setflags(write=False)

    def cut(self, p: int) -> tuple[np.ndarray, ...]:
        """The parts of rows [0, p) (views; no copy)."""
        out, start = [], 0
        for a in self.parts:
            n = a.shape[self.axis]
            if start >= p:
                break
            take = min(n, p - start)
            out.append(a if take == n else _rows(a, self.axis, 0, take))
            start += n
        return tuple(out)


def _rows(a: np.ndarray, axis: int, r0: int, r1: int) -> np.ndarray:
    return a[r0:r1] if axis == 0 else a[:, r0:r1]


def value_shape(parts: tuple[np.ndarray, ...], axis: int, cols: int | None = None) -> tuple[int, ...]:
    """The shape of the value the parts make: T rows (and, for a map, T key columns, or `cols`)."""
    T = sum(a.shape[axis] for a in parts)
    first = parts[0].shape
    return (T,) + first[1:] if axis == 0 else (first[0], T, T if cols is None else cols)


def assemble(parts: tuple[np.ndarray, ...], axis: int, fill: float, new=np.empty,
             cols: int | None = None) -> np.ndarray:
    """The parts side by side in one new array (`new(shape, dtype)` allocates it, e.g. a BufferPool's)."""
    shape = value_shape(parts, axis, cols)
    out = new(shape, parts[0].dtype)                                       # [T, ...] or [H, T, T]
    start = 0
    for a in parts:
        n = a.shape[axis]
        if axis == 0:
            out[start:start + n] = a                                        # [n, ...]
        else:
            cols = min(a.shape[2], shape[2])
            out[:, start:start + n, :cols] = a[:, :, :cols]                 # [H, n, cols]
            out[:, start:start + n, cols:] = fill                           # keys after the part: masked
        start += n
    return out


def rows_value(parts: tuple[np.ndarray, ...], axis: int = 0, fill: float = 0.0, new=np.empty):
    """The value of the rows `parts` (in order): the array itself when one part holds every row
    and key, else a Lazy whose `make` is a RowParts (the next pass cuts it without making it).
    More than MAX_PARTS parts: all but the first are joined now (they are the rows of recent edits)."""
    parts = tuple(a for a in parts if a.shape[axis]) or parts[:1]
    if axis == 1:                                       # a map's keys are its rows: no more columns than T
        T = sum(a.shape[1] for a in parts)
        parts = tuple(a[:, :, :T] if a.shape[2] > T else a for a in parts)
    if len(parts) > MAX_PARTS:
        cols = sum(a.shape[axis] for a in parts) if axis == 1 else None   # a map's tail keeps every key
        tail = RowParts(parts[1:], axis, fill, cols=cols)()
        parts = (parts[0], tail)
    if len(parts) == 1 and (axis == 0 or parts[0].shape[1] == parts[0].shape[2]):
        return parts[0]                                 # one array holds every row (and key)
    return Lazy(RowParts(parts, axis, fill, new), value_shape(parts, axis), parts[0].dtype)


def leading_rows(trace, key, p: int, axis: int = 0) -> tuple[np.ndarray, ...]:
    """Rows [0, p) of a Trace value, as parts to build on, without making it: an array's view, a
    RowParts' cut, or (another kind of Lazy: the value made through the Trace) the made array's view."""
    value = trace.stored(key)
    if isinstance(value, np.ndarray):
        return (_rows(value, axis, 0, p),)
    if isinstance(value, Lazy) and isinstance(value.make, RowParts) and value.make.axis == axis:
        return value.make.cut(p)
    return (_rows(trace[key], axis, 0, p),)
