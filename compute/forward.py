"""`forward`: run the model on tokens with a chosen backend and return one immutable Trace."""
from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from . import circuits, memory
from .backends import (
    Backend,
    BackendUnavailable,
    backend_names,
    cuda_unsupported_here,
    get_backend,
    loaded_backends,
    nvidia_gpu_present,
)
from .backends.base import Reuse
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
    if name == "auto" and "cuda" not in loaded_backends() and not nvidia_gpu_present():
        return get_backend("cpu"), None            # no GPU: the CUDA stack (seconds to import) stays unloaded
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


# Start-up: until the cpu backend's numba kernels are compiled (in the background), small "auto"
# passes run on the reference backend (numpy), so the first paint never waits for the JIT.
_NUMPY_FIRST = threading.Event()
NUMPY_FIRST_MACS = 4e9          # a pass larger than this waits for the kernels (numpy would be slower)


def numpy_first(on: bool) -> None:
    """While on, "auto" passes of at most NUMPY_FIRST_MACS multiply-adds use the numpy reference
    backend instead of the cpu one (app/warmup.py turns it on while the kernels compile)."""
    (_NUMPY_FIRST.set if on else _NUMPY_FIRST.clear)()


def _pass_macs(cfg: Config, T: int) -> float:
    """Multiply-adds of a pass's blocks (projections, scores, pattern·v, MLP), roughly."""
    width = cfg.n_heads * cfg.d_head
    per_token = cfg.d_model * (width + 2 * cfg.n_kv_heads * cfg.d_head + width) + 3 * cfg.d_model * cfg.d_mlp
    return float(cfg.n_layers) * T * (per_token + 2 * T * width)


def forward(cfg: Config, weights: Weights, tokens: Any, backend: str = "auto", *,
            attn_mask: Any = None, check_memory: bool = True, reuse: Trace | None = None,
            interventions: Any = None) -> Trace:
    """Every intermediate of the model on `tokens` (docs/ARCHITECTURE.md section 4) as a read-only Trace.

    `attn_mask` ([T, T] bool, True = query i may attend to key j) is applied on top of the causal
    mask; rows it leaves with no key get an all-zero pattern. Impossible inputs raise ConfigError
    (bad ids, too many tokens, not enough memory) or WeightsError (weights of another shape).

    `reuse`: an earlier Trace (the one on screen). Where it allows (`reusable_rows`), a backend that
    supports it computes only the rows after the tokens' common prefix; the result is the same
    Trace a full pass gives, and `trace.reused_rows` says how many rows were taken.

    `interventions`: compute.Ablate / compute.Patch (compute/circuits.py); the layers before the first
    intervened one come from `reuse` when it is a Trace of the same tokens (`trace.reused_layers`).
    """
    memory.give_back_freed_memory()            # pages of dropped weights and Traces (cheap, see memory.py)
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
    if (backend == "auto" and _NUMPY_FIRST.is_set() and _pass_macs(cfg, T) <= NUMPY_FIRST_MACS
            and "cuda" not in loaded_backends() and not nvidia_gpu_present()):
        chosen, notice = get_backend("reference"), None   # the cpu kernels are still compiling: numpy draws it
    else:
        chosen, notice = resolve_backend(backend)
    if check_memory:
        check_budget(chosen, cfg, T)
    circuits.remember_weights(weights)
    if interventions is not None and len(edits := circuits.check_interventions(cfg, T, interventions)):
        return _intervened(cfg, weights, ids, mask, chosen, notice, edits, reuse, t0)
    rows = reusable_rows(reuse, cfg, weights, ids, mask, chosen) if reuse is not None else 0
    try:
        if rows:
            result = chosen.run(cfg, weights, ids, mask, reuse=Reuse(reuse, rows))
        else:
            result = chosen.run(cfg, weights, ids, mask)
    except (BackendUnavailable, MemoryError) as exc:
        if chosen.name != "cuda":
            raise
        notice = f"CUDA failed ({exc}); computed on the CPU instead"
        chosen = get_backend("cpu")
        if check_memory:                                                  # the host holds this one
            memory.check(cfg, T, chosen.dtype, include_weights=False, lazy_scores=chosen.lazy_scores,
                         checkpoints=getattr(chosen, "checkpointing", False))
        result = chosen.run(cfg, weights, ids, mask)
    timing = dict(result.timing_ms)
    timing["forward"] = (time.perf_counter() - t0) * 1e3
    return Trace(cfg=cfg, tokens=ids, backend=chosen.name, backend_label=chosen.label(),
                 dtype=chosen.dtype, timing_ms=timing, _arrays=result.arrays,
                 _logits_fn=result.logits_fn, notice=notice, weights_uid=weights.uid,
                 reused_rows=result.reused_rows, attn_mask=mask, _copied_fn=result.copied_fn)


def check_budget(backend: Backend, cfg: Config, T: int, include_weights: bool = False) -> None:
    """ConfigError when a pass at T fits nowhere it could run. Its Trace lives where the backend
    keeps it: the host's RAM (its budget, compute.memory), or a GPU's memory for the cuda backend
    (`Backend.memory_budget`), whose values reach the host only as views read them; a pass the GPU
    cannot hold runs on the CPU (with a notice), so it must then fit the host."""
    device = backend.memory_budget()
    if device is not None and memory.estimate(cfg, T, backend.dtype, lazy_scores=backend.lazy_scores).compute <= device:
        return
    memory.check(cfg, T, backend.dtype, include_weights=include_weights, lazy_scores=backend.lazy_scores,
                 checkpoints=getattr(backend, "checkpointing", False))


def _intervened(cfg, weights, ids, mask, chosen, notice, edits, reuse, t0) -> Trace:
    """A pass with interventions (compute/circuits.py): the layers before the first intervened one
    from `reuse` when it fits, else from this backend's clean pass; the rest recomputed."""
    first = circuits.first_layer(edits)
    base = reuse if reuse is not None and circuits.base_usable(reuse, cfg, weights, ids, mask, chosen.name,
                                                              first) else None
    step = circuits.run_intervened(cfg, weights, ids, mask, chosen, edits, base,
                                   clean=lambda: forward(cfg, weights, ids, chosen.name, attn_mask=mask,
                                                         check_memory=False))
    timing = dict(step.timing_ms)
    timing["forward"] = (time.perf_counter() - t0) * 1e3
    return Trace(cfg=cfg, tokens=ids, backend=chosen.name, backend_label=chosen.label(), dtype=chosen.dtype,
                 timing_ms=timing, _arrays=step.arrays, _logits_fn=step.logits_fn, notice=notice,
                 weights_uid=weights.uid, attn_mask=mask, interventions=edits, reused_layers=step.reused_layers)


def reusable_rows(previous: Trace, cfg: Config, weights: Weights, ids: np.ndarray, mask: np.ndarray | None,
                  backend: Backend) -> int:
    """How many leading rows of `previous` a pass on `ids` may take unchanged (0: none; a full pass).

    Only with the causal mask (a row then depends on positions ≤ i alone), the same config (every
    field, flags included), the same weights and backend, a complete previous Trace, and the same
    extra mask on those rows; then the tokens' common prefix."""
    if (not backend.supports_reuse or not cfg.causal or not isinstance(previous, Trace) or not previous.complete
            or previous.interventions
            or previous.cfg != cfg or previous.weights_uid != weights.uid or previous.backend != backend.name):
        return 0
    old = previous.tokens
    n = min(len(old), len(ids))
    differs = np.flatnonzero(old[:n] != ids[:n])                              # positions that changed
    rows = int(differs[0]) if differs.size else n
    if (previous.attn_mask is None) != (mask is None):
        return 0
    if mask is not None:                                                    # rows < p must see the same keys
        same = np.flatnonzero((previous.attn_mask[:rows, :rows] != mask[:rows, :rows]).any(axis=1))
        rows = int(same[0]) if same.size else rows
    return rows


def warm_up(backend: str = "cpu") -> None:
    """Compile a backend's kernels ahead of the first edit (call it off the UI thread): its own
    `warm_up`, then for each of its `warm_up_configs` a pass, an incremental pass and the lazy
    score maps, through forward (the dependency goes one way: forward uses the backend)."""
    chosen = resolve_backend(backend)[0]
    chosen.warm_up()
    for cfg in chosen.warm_up_configs():
        w = Weights.random(cfg, 0)
        trace = forward(cfg, w, [0, 1, 2, 3], backend=chosen.name)
        trace = forward(cfg, w, [0, 1, 2, 3, 4], backend=chosen.name, reuse=trace)   # rows 4.. only
        for layer in range(cfg.n_layers):
            trace["attn_scores_scaled", layer], trace["attn_scores", layer]          # made from q and k
