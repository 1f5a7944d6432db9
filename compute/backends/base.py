"""The backend interface: every backend turns (config, weights, tokens) into the same named arrays.

A backend is registered by name in `compute.backends`; `forward` picks one, times it and wraps its
output in a `Trace`. A new backend (CUDA) only has to implement `run` and `available`.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..config import Config
from ..weights import Weights


class BackendUnavailable(RuntimeError):
    """This backend cannot run here (no GPU, driver missing, ...); the message says why."""


@dataclass
class BackendOutput:
    arrays: dict                                 # (name, layer) or name -> array (or Lazy), every Trace name
    logits_fn: Callable[[np.ndarray | slice], np.ndarray]
    timing_ms: dict[str, float] = field(default_factory=dict)
    reused_rows: int = 0                         # rows taken from the previous Trace (see Reuse)
    copied_fn: Callable[[], int] | None = None   # bytes copied device -> host so far (a device backend)


@dataclass(frozen=True)
class Reuse:
    """What a pass may take from an earlier Trace: with the causal mask a query row depends only on
    positions ≤ i, so when the tokens share their first `rows` ids with that Trace's (and config,
    weights, backend and mask rows are the same), rows < `rows` of every per-position value of
    every layer are unchanged. `forward` decides this; a backend with `supports_reuse` may then
    compute only rows ≥ `rows` (and say how many it took in BackendOutput.reused_rows)."""

    trace: object                                # compute.Trace
    rows: int


class Stopwatch:
    """Milliseconds per stage, summed over layers (`timing["qkv"]` is every layer's q/k/v). With
    `n_stages`, each lap also reports progress (compute.progress), which may raise Cancelled."""

    def __init__(self, n_stages: int | None = None, **start: float):
        self.timing: dict[str, float] = dict(start)
        self._t0 = self._last = time.perf_counter()
        self._n_stages, self._done = n_stages, 0

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timing[stage] = self.timing.get(stage, 0.0) + (now - self._last) * 1e3
        self._last = now
        if self._n_stages:
            from .. import progress

            self._done += 1
            progress.report(stage, self._done / self._n_stages)

    def fraction(self, extra: float = 0.0) -> float:
        """How far the pass is, in stages (plus `extra` of the next one)."""
        return (self._done + extra) / max(self._n_stages or 1, 1)

    def finish(self) -> dict[str, float]:
        self.timing["total"] = (time.perf_counter() - self._t0) * 1e3
        return self.timing


class Backend(ABC):
    name: str = "?"
    dtype: np.dtype = np.dtype(np.float32)
    supports_reuse: bool = False                 # run() accepts reuse=Reuse(...)
    lazy_scores: bool = False                    # the score maps are Lazy, made when read (compute.memory)

    def available(self) -> tuple[bool, str]:
        """(True, "") when it can run on this machine, else (False, the reason in words)."""
        return True, ""

    def label(self) -> str:
        return self.name

    def memory_budget(self) -> int | None:
        """Bytes a pass's Trace may take where that is not the host's RAM (a GPU's memory), or None:
        the host's budget (compute.memory) applies."""
        return None

    def warm_up(self) -> None:  # noqa: B027 - optional hook: most backends have nothing to compile
        """Compile or load whatever the first real run would otherwise wait for."""

    def warm_up_configs(self) -> tuple[Config, ...]:
        """Tiny configs for compute.forward.warm_up to run through forward (an incremental pass, the
        lazy maps) after `warm_up`; none by default."""
        return ()

    @abstractmethod
    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None) -> BackendOutput:
        """Every Trace name for `tokens` [T]. `attn_mask` [T, T] bool (True = may attend) is
        combined with the causal mask when cfg.causal; None means no extra mask. A backend with
        `supports_reuse` also takes `reuse=Reuse(...)` as a keyword."""


def allowed_pairs(T: int, causal: bool, attn_mask: np.ndarray | None, window: int | None = None) -> np.ndarray:
    """[T, T] bool: query i may attend to key j. Causal: j <= i; a window W keeps the last W
    keys, i - W < j <= i (without causal: |i - j| < W, a band); attn_mask, where given, too."""
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]                    # [T, 1], [1, T]
    allowed = (j <= i) if causal else np.ones((T, T), dtype=bool)          # [T, T]
    if window is not None:
        allowed = allowed & (i - j < window) & (j - i < window)           # [T, T] the band
    allowed = np.broadcast_to(allowed, (T, T))
    return allowed if attn_mask is None else allowed & attn_mask           # [T, T]
