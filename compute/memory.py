"""How much memory a config needs, and whether this machine has it.

Validation, `forward`, `Weights.random` and the UI all ask the same function, so the refusal a
user sees before anything is allocated uses the same numbers as the one the API raises.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from .config import Config, ConfigError
from .i18n import QT_TR_NOOP, Message, Number

GIB = float(1 << 30)
# Share of the available RAM one computation may use; the rest stays for the OS, Qt and the views.
BUDGET_FRACTION = 0.8
# Working buffers beyond the Trace itself (per-block temporaries, numba's per-thread buffers). Measured:
# the real SmolLM2-135M at T=1024 on the cpu backend peaks at 1.01x its Trace's arrays above the resident
# memory before the pass (benchmarks/memory_estimate.py); 1.15 leaves room for other machines' allocators.
WORKSPACE_FACTOR = 1.15
# The score maps the cpu and cuda backends hand over as Lazy values, made from q and k when a view reads them.
LAZY_SCORES = ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores")
# A cpu pass whose intermediates would take more than this keeps a checkpointed Trace (checkpoint_threshold).
CHECKPOINT_GIB = 4.0


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes needed by one forward pass: weights, the arrays the pass allocates for its Trace
    (`trace`), the lazy score maps the views make of one layer (`views`), and logits."""

    weights: int
    trace: int
    logits: int
    itemsize: int
    views: int = 0

    @property
    def total(self) -> int:
        return self.weights + self.trace + self.views + self.logits

    @property
    def compute(self) -> int:
        """What a forward pass allocates when the weights already exist (and what its views add)."""
        return int((self.trace + self.views + self.logits) * WORKSPACE_FACTOR)

    @staticmethod
    def gib(n_bytes: int) -> float:
        return n_bytes / GIB

    def describe(self) -> str:
        return (f"weights {fmt_bytes(self.weights)} + intermediates {fmt_bytes(self.trace)}"
                f" + logits {fmt_bytes(self.logits)} = {fmt_bytes(self.total)}")


def fmt_bytes(n: float) -> str:
    return str(bytes_message(n))


def bytes_message(n: float) -> Message:
    """fmt_bytes as a Message: "1.5 MiB" in English, with the reader's decimal comma in a window."""
    if n >= GIB:
        return Message("{n} GiB", n=Number(n / GIB, ".2f"))
    if n >= 1 << 20:
        return Message("{n} MiB", n=Number(n / (1 << 20), ".1f"))
    if n >= 1 << 10:
        return Message("{n} KiB", n=Number(n / (1 << 10), ".1f"))
    return Message("{n} B", n=str(int(n)))


def weight_count(cfg: Config, n_layers: int | None = None) -> int:
    """Number of parameters (compute.names.weight_shapes of cfg), for `n_layers` blocks."""
    from .names import block_weight_shapes, weight_shapes

    L = cfg.n_layers if n_layers is None else n_layers
    per_block = sum(math.prod(s) for s in block_weight_shapes(cfg).values())
    outside = sum(math.prod(s) for n, s in weight_shapes(cfg.replace(n_layers=1)).items()
                  if not n.startswith("blocks."))            # embeddings, final norm, unembedding
    return outside + L * per_block


def trace_count(cfg: Config, T: int, n_layers: int | None = None) -> int:
    """Number of values in a Trace of T tokens (every name of every layer, logits excluded)."""
    from .names import global_names, layer_names, trace_shape

    L = cfg.n_layers if n_layers is None else n_layers
    per_layer = sum(math.prod(trace_shape(n, cfg, T)) for n in layer_names(cfg))
    whole = sum(math.prod(trace_shape(n, cfg, T)) for n in global_names(cfg) if n != "logits")
    return whole + L * per_layer


def allocated_count(cfg: Config, T: int, n_layers: int | None = None, *, lazy_scores: bool = True) -> int:
    """Number of values a pass allocates for its Trace of T tokens (logits excluded): trace_count less
    what is shared — resid_pre of a layer l > 0 is resid_post of layer l-1, layer 0's is embed when there is
    no pos_embed — and, with `lazy_scores` (the cpu and cuda backends), less z_concat (a view of z) and the
    three (soft-capped: four) score maps (Lazy, made from q and k when read)."""
    from .names import layer_names, trace_shape

    L = cfg.n_layers if n_layers is None else n_layers
    no_pos = not cfg.components.positions.embeds                            # layer 0's resid_pre is embed
    shared = max(L - 1, 0) + (1 if L and no_pos else 0)                     # resid_pre arrays that are others'
    lazy = ("z_concat", *(n for n in LAZY_SCORES if n in layer_names(cfg))) if lazy_scores else ()
    return (trace_count(cfg, T, n_layers) - shared * math.prod(trace_shape("resid_pre", cfg, T))
            - L * sum(math.prod(trace_shape(n, cfg, T)) for n in lazy))


def views_count(cfg: Config, T: int) -> int:
    """Values of the lazy score maps the views make at once: the three (soft-capped: four) maps of one layer."""
    from .names import layer_names, trace_shape

    maps = [n for n in LAZY_SCORES if n in layer_names(cfg)]                 # Gemma 2: and attn_scores_capped
    return sum(math.prod(trace_shape(n, cfg, T)) for n in maps) if cfg.n_layers else 0


def checkpoint_threshold() -> int:
    """Bytes of intermediates above which a backend that can (cpu: `checkpointing`) keeps only each
    layer's input and output and makes the rest again when read (compute/backends/checkpoints.py):
    CHECKPOINT_GIB, or a quarter of the budget when that is less. QKV_LAB_CHECKPOINT_GIB overrides (tests)."""
    text = os.environ.get("QKV_LAB_CHECKPOINT_GIB")
    try:
        if text:
            return int(float(text) * GIB)
    except ValueError:
        pass
    return min(int(CHECKPOINT_GIB * GIB), budget_bytes() // 4)


def checkpointed(cfg: Config, T: int, dtype: np.dtype | type = np.float32) -> bool:
    """Whether a pass of T tokens keeps a checkpointed Trace: its full intermediates exceed the threshold."""
    if not T or not cfg.n_layers:
        return False
    full = estimate(cfg, T, dtype)
    return full.trace + full.views > checkpoint_threshold()


def checkpointed_counts(cfg: Config, T: int, n_layers: int | None = None) -> tuple[int, int]:
    """Values (allocated by the pass, made by the views) of a checkpointed pass of T tokens: the whole-model
    values, each layer's resid_post (and layer 0's input), the KeyCache's keys and values, one layer's other
    values while it is computed; the views: one layer made again and one head of each of its four maps."""
    from .names import trace_shape

    L = cfg.n_layers if n_layers is None else n_layers
    row = math.prod(trace_shape("resid_pre", cfg, T))                       # T × d_model
    kv = 2 * T * cfg.n_kv_heads * cfg.d_head                                # one layer's cached k and v
    layer = (allocated_count(cfg, T, 1) - allocated_count(cfg, T, 0)
             - math.prod(trace_shape("pattern", cfg, T)))                   # a layer without its maps
    kept = allocated_count(cfg, T, 0) + (L + 1) * row + L * kv
    return kept + (layer if L else 0), (layer + 4 * T * T) if L else 0


def block_bytes(cfg: Config, T: int, itemsize: int = 4) -> int:
    """Weights and intermediates of one block at T tokens: what running a single block needs."""
    weights = (weight_count(cfg, 1) - weight_count(cfg, 0)) * 4
    return weights + (trace_count(cfg, T, 1) - trace_count(cfg, T, 0)) * itemsize


def estimate(cfg: Config, T: int, dtype: np.dtype | type = np.float32,
             n_layers: int | None = None, *, lazy_scores: bool = True, checkpoints: bool = False) -> MemoryEstimate:
    """What a pass of T tokens needs. `lazy_scores`: the backend makes the score maps when they are
    read (cpu, cuda: `Backend.lazy_scores`); the reference backend stores them (False). `checkpoints`:
    the backend keeps a checkpointed Trace when the full one is over the threshold (cpu: `checkpointing`)."""
    itemsize = np.dtype(dtype).itemsize
    if checkpoints and checkpointed(cfg, T, dtype):
        trace, views = checkpointed_counts(cfg, T, n_layers)
        return MemoryEstimate(weights=weight_count(cfg, n_layers) * 4, trace=trace * itemsize,
                              logits=T * cfg.d_vocab * itemsize, itemsize=itemsize, views=views * itemsize)
    return MemoryEstimate(
        weights=weight_count(cfg, n_layers) * 4,  # weights are stored float32 whatever the backend
        trace=allocated_count(cfg, T, n_layers, lazy_scores=lazy_scores) * itemsize,
        logits=T * cfg.d_vocab * itemsize,
        itemsize=itemsize,
        views=views_count(cfg, T) * itemsize if lazy_scores and T else 0,
    )


_estimate = estimate


def available_bytes() -> int:
    """RAM the OS can give without swapping (MemAvailable), or physical RAM if that is unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _override() -> int | None:
    text = os.environ.get("QKV_LAB_MEMORY_BUDGET_GIB")
    try:
        return int(float(text) * GIB) if text else None
    except ValueError:
        return None


def budget_bytes() -> int:
    """The memory one computation may use. QKV_LAB_MEMORY_BUDGET_GIB overrides (tests, servers)."""
    override = _override()
    return override if override is not None else int(available_bytes() * BUDGET_FRACTION)


def budget_source() -> str:
    return str(budget_message())


def budget_message() -> Message:
    """Where the memory budget comes from, for messages (budget_source: the same in English)."""
    if _override() is not None:
        return Message(QT_TR_NOOP("set by QKV_LAB_MEMORY_BUDGET_GIB"))
    return Message(QT_TR_NOOP("{percent}% of available RAM"), percent=str(int(BUDGET_FRACTION * 100)))


# Callables that free cached memory (e.g. recycled buffers) and return the bytes freed; check()
# calls them before refusing, so a cache never causes a refusal.
_reclaimers: list = []


def register_reclaimer(fn) -> None:
    _reclaimers.append(fn)


def _largest_fit(lo: int, hi: int, fits) -> int:
    """Largest n in [lo, hi] with fits(n), assuming monotone; lo - 1 when none fits."""
    if hi < lo or not fits(lo):
        return lo - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def check(cfg: Config, T: int, dtype: np.dtype | type = np.float32, *,
          include_weights: bool, budget: int | None = None, lazy_scores: bool = True,
          source: Message | None = None, checkpoints: bool = False) -> MemoryEstimate:
    """The estimate, or ConfigError with it in GiB and the layers/tokens that would fit. `budget`
    (with `source`, where it comes from): another budget than the host's, a GPU's memory say.
    `lazy_scores`, `checkpoints`: what the backend does (estimate)."""
    fixed_budget = budget is not None
    budget = budget_bytes() if budget is None else budget

    def estimate(cfg: Config, T: int, dtype, n_layers: int | None = None) -> MemoryEstimate:
        return _estimate(cfg, T, dtype, n_layers, lazy_scores=lazy_scores, checkpoints=checkpoints)

    est = estimate(cfg, T, dtype)

    def need(e: MemoryEstimate) -> int:
        return e.compute + (e.weights if include_weights else 0)

    if need(est) <= budget:
        return est
    if not fixed_budget and sum(reclaim() for reclaim in _reclaimers) > 0:
        budget = budget_bytes()
        if need(est) <= budget:
            return est
    layers_ok = _largest_fit(1, cfg.n_layers - 1, lambda n: need(estimate(cfg, T, dtype, n)) <= budget)
    tokens_ok = _largest_fit(1, max(T - 1, 0), lambda t: need(estimate(cfg, t, dtype)) <= budget)
    hints = []
    if layers_ok >= 1:
        hints.append(Message(QT_TR_NOOP("n_layers={n} fits"), n=str(layers_ok)))
    if tokens_ok >= 1:
        hints.append(Message(QT_TR_NOOP("T={T} tokens fit"), T=str(tokens_ok)))
    if not hints:
        one = Number(need(estimate(cfg, min(T, 1), dtype, 1)) / GIB, ".2f")
        hints.append(Message(QT_TR_NOOP("even 1 layer and 1 token needs {gib} GiB: use smaller dimensions or a "
                                        "machine with more memory"), gib=one) if T else
                     Message(QT_TR_NOOP("even 1 layer needs {gib} GiB: use smaller dimensions or a machine with "
                                        "more memory"), gib=one))
    weights_dominate = include_weights and est.weights >= est.compute
    field = "n_layers" if (T == 0 or weights_dominate or layers_ok >= 1) else "tokens"
    value = cfg.n_layers if field == "n_layers" else f"{T} tokens"
    sizes = (f"{np.dtype(dtype).name}, " + (f"T={T}, " if T else "")
             + f"{cfg.n_layers} layer{'s' if cfg.n_layers != 1 else ''}")
    source = (source or Message(QT_TR_NOOP("given"))) if fixed_budget else budget_message()
    reason = Message(QT_TR_NOOP("needs an estimated {need} GiB ({sizes}), over the memory budget of {budget} GiB "
                                "({source}); {hints}"), need=Number(need(est) / GIB, ".2f"), sizes=sizes,
                     budget=Number(budget / GIB, ".2f"), source=source, hints=tuple(hints))
    raise ConfigError(field, value, reason, limit=budget)


def over_budget(n_bytes: int) -> int | None:
    """None if `n_bytes` fit the memory budget (after caches give back what they hold), else the
    budget. For allocations that are not a forward pass, such as reading a weights file."""
    budget = budget_bytes()
    if n_bytes <= budget:
        return None
    if sum(reclaim() for reclaim in _reclaimers) > 0:
        budget = budget_bytes()
        if n_bytes <= budget:
            return None
    return budget


# -- giving freed memory back ----------------------------------------------------------------------------
# glibc keeps the pages of freed heap blocks: after a large free it raises its mmap threshold (up
# to 32 MB), so the next weights (9 MB matrices) and intermediates come from the heap, and when
# they are dropped their pages stay resident. A session that changes seeds and sizes then holds
# ~1 GB at andrea-120m that nothing uses (an 800-action soak: 2.7 GB resident, 1.6 GB after a
# trim). malloc_trim hands those pages back; it runs when the heap holds more than TRIM_FREE
# freed bytes (mallinfo2, ~40 us to ask), or, where that cannot be asked, once resident memory
# has grown by TRIM_STEP since the last trim.
TRIM_FREE = 64 << 20
TRIM_STEP = 256 << 20
_trim: dict = {"rss": 0, "libc": None}


def resident_bytes() -> int:
    """This process's resident memory (Linux); 0 where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0


def _libc():
    if _trim["libc"] is None:
        _trim["libc"] = False
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            libc.malloc_trim                                  # noqa: B018 - glibc only
            _trim["libc"] = libc
            try:
                fields = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                          "fordblks", "keepcost")
                info = type("mallinfo2", (ctypes.Structure,), {"_fields_": [(f, ctypes.c_size_t) for f in fields]})
                libc.mallinfo2.restype = info                 # glibc >= 2.33
            except AttributeError:
                pass
        except (OSError, AttributeError):                     # not glibc: nothing to do
            pass
    return _trim["libc"] or None


def _malloc_trim():
    libc = _libc()
    return libc.malloc_trim if libc is not None else None


def freed_heap_bytes() -> int | None:
    """Bytes the C heap holds freed (all arenas), or None where that cannot be asked."""
    libc = _libc()
    try:
        return int(libc.mallinfo2().fordblks) if libc is not None else None
    except (AttributeError, OSError):               # an older glibc: no mallinfo2
        return None


def give_back_freed_memory(force: bool = False) -> bool:
    """Return freed heap pages to the OS when there are enough of them (or always, with force).
    True if it trimmed. A no-op where glibc is absent."""
    trim = _malloc_trim()
    if trim is None:
        return False
    if not force:
        free = freed_heap_bytes()
        if free is not None:
            if free < TRIM_FREE:
                return False
        elif resident_bytes() - _trim["rss"] < TRIM_STEP:
            return False
    trim(0)
    _trim["rss"] = resident_bytes()
    return True
