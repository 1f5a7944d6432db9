"""`forward`: run the model on tokens with a chosen backend and return one immutable Trace."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import memory
from .backends import Backend, BackendUnavailable, backend_names, cuda_unsupported_here, get_backend
from .config import Config, ConfigError
from .trace import Trace
from .weights import Weights, WeightsError


def resolve_backend(name: str) -> tuple[Backend, str | None]:
    """The backend to run for a requested name, and a notice when it is not the one asked for.

    "auto" takes CUDA only on a real GPU (the CUDA simulator says "available" but is no GPU),
    otherwise the CPU. An explicit "cuda" that cannot run here falls back to the CPU too.
    """
    known = backend_names()
    if name not in known:
        raise ConfigError("backend", name, f"must be one of {', '.join(known)}")
    if name in ("auto", "cuda"):
        try:
            cuda = get_backend("cuda")
            ok, why = cuda.available()
            if ok and (name == "cuda" or getattr(cuda, "on_real_gpu", lambda: False)()):
                return cuda, None
        except BackendUnavailable as exc:
            why = str(exc)
        if name == "auto":
            return get_backend("cpu"), None
        elsewhere = cuda_unsupported_here()            # macOS, Windows: no CUDA packages installed there
        return get_backend("cpu"), (f"{elsewhere}: computed on the CPU" if elsewhere else
                                    f"CUDA is not available ({why}); computed on the CPU instead")
    return get_backend(name), None


def forward(cfg: Config, weights: Weights, tokens: Any, backend: str = "auto", *,
            attn_mask: Any = None, check_memory: bool = True) -> Trace:
    """Every intermediate of the model on `tokens` (DESIGN.md section 3) as a read-only Trace.

    `attn_mask` ([T, T] bool, True = query i may attend to key j) is applied on top of the causal
    mask; rows it leaves with no key get an all-zero pattern. Impossible inputs raise ConfigError
    (bad ids, too many tokens, not enough memory) or WeightsError (weights of another shape).
    """
    t0 = time.perf_counter()
    if not isinstance(cfg, Config):
        raise TypeError(f"forward needs a Config, got {type(cfg).__name__}")
    if not isinstance(weights, Weights):
        raise TypeError(f"forward needs Weights, got {type(weights).__name__}")
    if not weights.cfg.same_shapes(cfg):
        diffs = cfg.shape_differences(weights.cfg)
        raise WeightsError(f"the weights do not fit this config ({'; '.join(diffs)}); "
                           "make new ones with Weights.random(cfg, seed)")
    ids = cfg.validate_tokens(tokens)                                       # [T]
    T = len(ids)
    mask = None
    if attn_mask is not None:
        mask = np.asarray(attn_mask)
        if mask.shape != (T, T):
            raise ConfigError("attn_mask", f"shape {mask.shape}", f"must have shape (T, T) = ({T}, {T})")
        if mask.dtype != np.bool_:
            raise ConfigError("attn_mask", f"dtype {mask.dtype}", "must be boolean (True = may attend)")
        mask = np.ascontiguousarray(mask)                                   # [T, T]
    chosen, notice = resolve_backend(backend)
    if check_memory:
        memory.check(cfg, T, chosen.dtype, include_weights=False)
    try:
        result = chosen.run(cfg, weights, ids, mask)
    except (BackendUnavailable, MemoryError) as exc:
        if chosen.name != "cuda":
            raise
        notice = f"CUDA failed ({exc}); computed on the CPU instead"
        chosen = get_backend("cpu")
        result = chosen.run(cfg, weights, ids, mask)
    timing = dict(result.timing_ms)
    timing["forward"] = (time.perf_counter() - t0) * 1e3
    return Trace(cfg=cfg, tokens=ids, backend=chosen.name, backend_label=chosen.label(),
                 dtype=chosen.dtype, timing_ms=timing, _arrays=result.arrays,
                 _logits_fn=result.logits_fn, notice=notice, weights_uid=weights.uid)


def warm_up(backend: str = "cpu") -> None:
    """Compile a backend's kernels ahead of the first edit (call it off the UI thread)."""
    resolve_backend(backend)[0].warm_up()
