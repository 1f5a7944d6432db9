"""Recycle the large output arrays of Traces nobody holds any more.

Each edit in the app makes a new Trace of the same shapes (at andrea-120m, T=1024: ~140 MB per
block). Fresh memory costs the kernel page-zeroing (~10 GB/s here, ~25 ms per block; in a process
that already holds a few GB, measured 2 s for the 1.5 GB a 12-layer pass asks for); a recycled
buffer does not. The pool must hold two passes' worth: while a pass computes, the Trace on screen
keeps the last one's arrays (an incremental Trace keeps them as its rows < p).

An array is handed out again only when the pool's own list is its last reference: a Trace, a view
(its .base), or any other holder keeps it out of reuse, so nothing a caller can still see is ever
overwritten.

What it keeps free is bounded by what is in use: a pass reuses the arrays of the Trace it
replaces, so free arrays beyond the bytes of the live ones are arrays of shapes that are not
coming back (another T, another d_head), and are given back, least recently used first. Without
that bound a session of varying sizes filled the pool to its cap (an andrea-120m soak grew by
~0.7 GB of stale 'result' arrays alone).
"""
from __future__ import annotations

import math
import sys
import threading

import numpy as np

# Arrays smaller than this are left to the ordinary allocator.
MIN_POOLED_BYTES = 1 << 20
# A free buffer up to this much larger than asked for is handed out (as a view of its start):
# deleting the last token asks for [H, T-1, T-1] maps, appending it again for [H, T, T].
SIZE_SLACK = 1.05


def _calibrate() -> int | None:
    """getrefcount of an array held only by a list, as seen by `_unused`; None if the
    interpreter does not count the way this relies on (the pool then stays off)."""
    probe = [np.empty(1)]
    alone = sys.getrefcount(probe[0])
    extra = probe[0]  # noqa: F841 - a second, outside reference
    held = sys.getrefcount(probe[0])
    return alone if held == alone + 1 else None


class BufferPool:
    def __init__(self, max_bytes: int, alloc=np.empty):
        self.max_bytes = max_bytes
        self._alloc = alloc                      # (shape, dtype) -> array: np.empty, or pinned host memory
        self._arrays: list[np.ndarray] = []
        self._lock = threading.Lock()
        self._alone = _calibrate()
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self._alone is not None and self.max_bytes > 0

    def _unused(self, i: int) -> bool:
        return sys.getrefcount(self._arrays[i]) == self._alone

    def empty(self, shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:
        """A writable array of this shape: recycled if one is free, else new."""
        shape, dtype = tuple(int(n) for n in shape), np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if not self.enabled or nbytes < MIN_POOLED_BYTES:
            return np.empty(shape, dtype)
        with self._lock:
            for i in range(len(self._arrays)):
                arr = self._arrays[i]
                fits = arr.dtype == dtype and nbytes <= arr.nbytes <= nbytes * SIZE_SLACK
                del arr  # drop this frame's reference before counting
                if fits and self._unused(i):
                    arr = self._arrays.pop(i)
                    self._arrays.append(arr)            # most recently used last: evicted last
                    arr.setflags(write=True)
                    self.hits += 1
                    if arr.shape == shape:
                        return arr
                    # A little larger (T - 1 rows from a buffer of T): a view of its start, which
                    # holds the buffer as its base, so it stays out of reuse while anyone holds it.
                    return arr.reshape(-1)[:math.prod(shape)].reshape(shape)
            self.misses += 1
            self._evict(self.max_bytes - nbytes)
            arr = self._alloc(shape, dtype)
            if self.held_bytes() + nbytes <= self.max_bytes:
                self._arrays.append(arr)
            self._trim()
            return arr

    def held_bytes(self) -> int:
        return sum(a.nbytes for a in self._arrays)

    def idle_bytes(self) -> int:
        with self._lock:
            return sum(self._arrays[i].nbytes for i in range(len(self._arrays)) if self._unused(i))

    def _evict(self, keep_at_most: int) -> None:
        """Forget free arrays, least recently handed out first, until the pool holds at most
        `keep_at_most` bytes."""
        i = 0
        while i < len(self._arrays) and self.held_bytes() > max(keep_at_most, 0):
            if self._unused(i):
                del self._arrays[i]
            else:
                i += 1

    def _trim(self) -> None:
        """Free arrays may stand ready for the next pass up to the bytes in use, no more."""
        free = [i for i in range(len(self._arrays)) if self._unused(i)]
        free_bytes = sum(self._arrays[i].nbytes for i in free)
        in_use = self.held_bytes() - free_bytes
        drop = set()
        for i in free:                                   # least recently used first
            if free_bytes <= in_use:
                break
            free_bytes -= self._arrays[i].nbytes
            drop.add(i)
        if drop:
            self._arrays = [a for i, a in enumerate(self._arrays) if i not in drop]

    def release(self) -> int:
        """Give every free array back to the allocator; returns the bytes released."""
        with self._lock:
            before = self.held_bytes()
            self._evict(0)
            return before - self.held_bytes()
