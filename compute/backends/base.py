"""The backend interface: every backend turns (config, weights, tokens) into the same named arrays.

A backend is registered by name in `compute.backends`; `forward` picks one, times it and wraps its
output in a `Trace`. A new backend (CUDA) only has to implement `run` and `available`.
"""
from __future__ import annotations

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
    arrays: dict                                 # (name, layer) or name -> array, every Trace name
    logits_fn: Callable[[np.ndarray | slice], np.ndarray]
    timing_ms: dict[str, float] = field(default_factory=dict)


class Backend(ABC):
    name: str = "?"
    dtype: np.dtype = np.dtype(np.float32)

    def available(self) -> tuple[bool, str]:
        """(True, "") when it can run on this machine, else (False, the reason in words)."""
        return True, ""

    def label(self) -> str:
        return self.name

    def warm_up(self) -> None:
        """Compile or load whatever the first real run would otherwise wait for."""

    @abstractmethod
    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None) -> BackendOutput:
        """Every Trace name for `tokens` [T]. `attn_mask` [T, T] bool (True = may attend) is
        combined with the causal mask when cfg.causal; None means no extra mask."""


def allowed_pairs(T: int, causal: bool, attn_mask: np.ndarray | None) -> np.ndarray:
    """[T, T] bool: query i may attend to key j (j <= i when causal, and where attn_mask allows)."""
    allowed = np.tril(np.ones((T, T), dtype=bool)) if causal else np.ones((T, T), dtype=bool)  # [T, T]
    return allowed if attn_mask is None else allowed & attn_mask  # [T, T]
