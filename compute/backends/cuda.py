"""`cuda`: every stage of the block on the GPU, the intermediates left there until a view asks.

Residency. A pass computes every layer into device buffers of its own (`_DeviceRun`) and returns
its Trace with `Lazy` values: reading `trace[name, layer]` copies that one array to the host
(into pinned memory, on a copy stream of its own, waiting only for the stage that made it), once;
`trace.part(name, layer, h)` copies one head of a [n_heads, T, T] map (4 MB of the 50 MB at
andrea-120m, T=1024), and `trace.read(name, layer, head=, rows=, cols=)` any cut a view draws (a
strided one, such as a head of [T, n, d], packed on the device first: `fetch_index`). Every copy is
counted (`copied_bytes`, Trace.copied_bytes). Exports asking for every name get every name. The copy is made once per
run and shared by every Trace of it (the early partial Trace and the final one get the same
arrays).

Lifetime. A run's buffers belong to it while its Trace (or any Lazy of it) lives: a new pass
never writes a buffer a Trace on screen may still read. They come from a `DevicePool` that hands a
buffer out again only when nothing but the pool holds it, so a dropped Trace's memory is reused
by the next pass of the same size without cudaMalloc. Buffers are flat and sized for T rounded up
(`bucket_rows`), each value the start of one, so the next T's pass fits in them too: typing a token
allocates nothing after the first append. Bounded: when a new pass does not fit in
the GPU's free memory (plus the pool's free buffers), the oldest live runs are spilled (every
value not yet copied goes to the host, then their device buffers are free) before the pass is
refused as out of GPU memory.

Products. Two paths, the same Trace: `numba` (the tiled kernels of cuda_kernels/products.py)
and `cublas` (compute/backends/cuda_blas.py: torch's cuBLAS on the same device buffers, no
copies; float32, never TF32). Either way numba kernels do the norms, RoPE, scale + mask +
softmax, GELU/SwiGLU and the heads' sum. `auto` (the default; QKV_CUDA_GEMM=numba|cublas
chooses) takes cuBLAS when torch has CUDA here.

Incremental passes (forward(..., reuse=trace), as on the cpu backend): when the tokens share their
first p ids with a cuda Trace's, the new run's buffers get that Trace's rows < p of every
per-position value by a device-to-device copy (q, k, v and their rotations included: the keys
< p are the earlier ones; on the cuBLAS path one batched copy for every buffer, on the numba
path one copy per buffer), or from its host
copies where that run was spilled; every row-wise
stage (norms, the q/k/v product, RoPE, z's share through W_O, the heads' sum, the MLP, the
residuals, the final norm) runs on rows >= p only. The [H, T, T] maps and z are made for rows
>= p only too (on the cuBLAS path the causal mask, the window and the extra mask given as one
explicit [n, T] mask; on the numba path its kernels launched on the rows p.. with `first_row=p`,
masking by position), and rows < p of a head's maps (the new keys' columns included) are made
from the run's own q and k when a view reads that head (`make_map_rows`, as the cpu backend's
lazy maps): an appended token costs the device ~4 % of a full pass at T = 24 on either path
(counted in tests/cuda_kernels/test_reuse.py; 62-70 % before on the numba path). The result is a
normal Trace of one run. Deleting the last token recomputes the last row (a kernel has at least one row).

Early results: the layers are enqueued at once; then, layer by layer, as its attention half is
done on the GPU, `compute.progress.publish` hands it out (as the cpu backend does).

Any CUDA failure (no driver, compiler or launch error, out of memory) is raised as
BackendUnavailable, which `forward` turns into a CPU run with a notice. Under numba's simulator
(NUMBA_ENABLE_CUDASIM=1) the backend runs, slowly, and calls itself "CUDA (simulated)"; "auto"
never picks it (`on_real_gpu`).
"""
from __future__ import annotations

import importlib.util
import math
import os
import sys
import threading
import weakref
from collections import Counter
from contextlib import nullcontext
from functools import partial

import numpy as np
from numba import cuda

from cuda_kernels import SIMULATOR
from cuda_kernels import elementwise as EW
from cuda_kernels import experts as X
from cuda_kernels import products as P
from cuda_kernels import rows as R

from .. import memory, progress
from ..config import Config
from ..i18n import QT_TR_NOOP, Message
from ..install import pip_command
from ..models.components import GeGLU, RMSNorm
from ..models.functions import rope_angles
from ..names import attention_names, global_names, layer_names, mlp_names, trace_shape
from ..trace import Lazy
from ..weights import Weights
from . import nvidia_gpu_present
from .base import Backend, BackendOutput, BackendUnavailable, Reuse, Stopwatch, allowed_pairs
from .pool import BufferPool

INSTALL = pip_command("install -r requirements-gpu.txt")
NO_GPU = Message(QT_TR_NOOP("no NVIDIA GPU here: the cpu backend computes everything"))
# requirements-gpu.txt installs CUDA 13 (numba-cuda[cu13], torch 2.13's CUDA build): a driver for it.
NEEDS_CUDA, NEEDS_DRIVER = (13, 0), 580
GEMM_PATHS = ("auto", "numba", "cublas")
# Per-layer results with a device buffer of their own (z_concat is z's memory, resid_pre is the
# previous layer's resid_post); which of them a model has: buffered_names.
_BUFFERED = ("ln1_mean", "ln1_var", "ln1_scale", "ln1_out", "q", "k", "v", "q_normed", "k_normed", "rot_q", "rot_k",
             "attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern", "z", "result",
             "attn_out",
             "attn_out_normed", "resid_mid", "ln2_mean", "ln2_var", "ln2_scale", "ln2_out", "router_logits",
             "router_probs", "expert_weights", "expert_out", "mlp_pre", "mlp_pre_linear", "mlp_post", "mlp_out",
             "mlp_out_normed", "resid_post")
_HEAD_MAPS = ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern")   # [H, T, T]


def _soft_cap(cfg: Config, maps, stream) -> bool:
    """Gemma 2: attn_scores_capped = cap·tanh(scaled / cap), and the allowed masked scores capped the same,
    on the rows `maps(name)` gives ([H, n, T] views); False (nothing launched) for a model without a cap."""
    att = cfg.components.attention
    if att.softcap is None:
        return False
    R.launch_soft_cap_scores(maps("attn_scores_scaled"), att.cap, maps("attn_scores_capped"), maps("attn_scores"),
                             stream=stream)                                 # [H, n, T] x2
    return True


def buffered_names(cfg: Config) -> tuple[str, ...]:
    present = set(layer_names(cfg))
    return tuple(n for n in _BUFFERED if n in present)


def cuda_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean "CUDA cannot do this here" rather than a wrong input."""
    from numba.core.errors import NumbaError  # compiler errors (no NVVM, ...)
    from numba.cuda.cudadrv import driver, error

    names = ("CudaSupportError", "CudaDriverError", "CudaRuntimeError", "CudaAPIError",
             "NvvmError", "NvvmSupportError", "LinkerError", "DeadMemoryError")
    found = {getattr(mod, n) for mod in (error, driver) for n in names if hasattr(mod, n)}
    return (NumbaError, MemoryError, *sorted(found, key=lambda c: c.__name__))


def driver_cuda_version() -> tuple[int, int] | None:
    """The CUDA version the installed NVIDIA driver supports, e.g. (12, 4); None if unknown."""
    try:
        from numba.cuda.cudadrv import driver

        version = driver.driver.get_version()
        return int(version[0]), int(version[1])
    except Exception:  # noqa: BLE001 - no driver, or one numba cannot ask: other checks say why
        return None


def driver_too_old(version: tuple[int, int] | None = None) -> str | None:
    """Why CUDA cannot run when the driver is older than CUDA 13 needs (no pip command fixes that)."""
    version = driver_cuda_version() if version is None else version
    if version is None or tuple(version) >= NEEDS_CUDA:
        return None
    return Message(QT_TR_NOOP("the NVIDIA driver supports CUDA {version}, and CUDA {needs} needs driver {driver} or "
                              "newer: update the NVIDIA driver (installing packages does not help)"),
                   version=f"{version[0]}.{version[1]}", needs=NEEDS_CUDA[0], driver=NEEDS_DRIVER)


def describe_failure(exc: BaseException) -> str:
    """A one-line reason for the notice: 'out of GPU memory (...)' or 'CudaAPIError: ...'."""
    text = " ".join(str(exc).split())[:300]
    if "OUT_OF_MEMORY" in text.upper().replace(" ", "_") or isinstance(exc, MemoryError):
        return f"out of GPU memory ({text})"
    return f"{type(exc).__name__}: {text}"


# -- device memory ------------------------------------------------------------------------------------
class _Buf:
    """One flat device buffer of the pool (a pass sees its start as each value's shape)."""

    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d


def _alone_count() -> int | None:
    """getrefcount of an object held only by a list, as `DevicePool` counts it (None: off)."""
    probe = [_Buf(None)]
    alone = sys.getrefcount(probe[0])
    extra = probe[0]  # noqa: F841 - a second reference
    return alone if sys.getrefcount(probe[0]) == alone + 1 else None


def bucket_rows(T: int, n_ctx: int) -> int:
    """The T a pass's buffers are made for: T rounded up in steps of 8, or of T's power of two / 8
    (at most 12.5 % more rows), never past n_ctx. Typing a token then finds the buffers of the pass
    before last free and big enough: no cudaMalloc (and no cuMemFree, which synchronises) per key."""
    step = max(8, 1 << max(0, T.bit_length() - 4))
    return max(T, min(n_ctx, -(-T // step) * step))


class DevicePool:
    """Flat float32 device buffers by size (elements). A buffer is handed out again only when the
    pool's own list is its last reference: a live run (and so a Trace on screen) keeps its buffers
    out of reuse. Where the interpreter does not count references the way this relies on
    (`_alone_count` is None) the pool keeps nothing: every buffer is the run's alone and goes back to
    the driver with it (as the host pool switches itself off), instead of being held for ever."""

    def __init__(self) -> None:
        self._bufs: dict[int, list[_Buf]] = {}
        self._lock = threading.Lock()
        self._alone = _alone_count()
        self.hits = self.misses = 0                  # misses: cudaMalloc calls (what a test counts)

    @property
    def enabled(self) -> bool:
        return self._alone is not None

    def _free(self, bufs: list[_Buf], i: int) -> bool:
        return self._alone is not None and sys.getrefcount(bufs[i]) == self._alone

    def take(self, size: int, count: int) -> list[_Buf]:
        """`count` buffers of `size` elements: free ones first, then new ones (cudaMalloc)."""
        size = int(size)
        with self._lock:
            bufs = self._bufs.setdefault(size, []) if self.enabled else []
            got = self._scan(bufs, count)
            self.hits += len(got)
            while len(got) < count:
                buf = _Buf(cuda.device_array(size, np.float32))
                if self.enabled:
                    bufs.append(buf)
                got.append(buf)
                self.misses += 1
            if not bufs:
                self._bufs.pop(size, None)
            return got

    def _scan(self, bufs: list[_Buf], count: int) -> list[_Buf]:
        got = []
        for i in range(len(bufs)):
            if len(got) == count:
                break
            if self._free(bufs, i):
                got.append(bufs[i])
        return got

    def trim(self, keep: Counter | None = None) -> None:
        """Give free buffers back to the driver, all but `keep[size]` of each size."""
        keep = keep or Counter()
        with self._lock:
            for size, bufs in list(self._bufs.items()):
                spare = keep.get(size, 0)
                i = 0
                while i < len(bufs):
                    if self._free(bufs, i):
                        if spare > 0:
                            spare -= 1
                        else:
                            del bufs[i]
                            continue
                    i += 1
                if not bufs:
                    del self._bufs[size]

    def held_bytes(self) -> int:
        with self._lock:
            return sum(4 * size * len(b) for size, b in self._bufs.items())

    def free_bytes(self) -> int:
        with self._lock:
            return sum(4 * size for size, bufs in self._bufs.items()
                       for i in range(len(bufs)) if self._free(bufs, i))


class _Slot:
    """One device buffer of a run seen as a value's shape and, once copied, its host copy (keys
    that share memory share the slot: resid_pre of layer l + 1 is resid_post of layer l)."""

    __slots__ = ("buf", "d", "t", "shape", "ready", "host", "parts")

    def __init__(self, buf: _Buf, shape, ready=None):
        self.buf, self.shape, self.ready = buf, tuple(shape), ready
        self.d = buf.d[:math.prod(self.shape)].reshape(self.shape)    # the buffer's start as [shape]
        self.t = None                                                 # its torch view (cuBLAS path)
        self.host: np.ndarray | None = None
        self.parts: dict[int, np.ndarray] = {}


class _DeviceRun:
    """Every device buffer of one pass, kept while its Trace lives; copies to the host on demand."""

    def __init__(self, backend: CudaBackend, cfg: Config, T: int):
        self.backend, self.cfg, self.T = backend, cfg, T
        self.slots: dict = {}                            # key -> _Slot
        self._lock = threading.Lock()
        self.spilled = False
        self.copied_bytes = 0                            # what crossed the bus so far (device -> host)
        self._views: dict = {}                           # (key, shape) -> reshaped host copy (z_concat)
        # An incremental pass makes the [H, T, T] maps for rows >= p only; rows < p
        # of a head are made from this run's q and k when a view reads that head (as the cpu backend's
        # lazy maps): layer -> p, and layer -> the heads made so far.
        self.attn_mask: np.ndarray | None = None
        self.mask_d = None                               # attn_mask on the device ([1, 1] if none)
        self.gemm = "numba"                              # the product path the pass took
        self.pending_maps: dict[int, int] = {}
        self.made_heads: dict[int, set] = {}
        self._allowed: dict = {}

    # -- building ------------------------------------------------------------------------------
    def allocate(self, wanted: dict, sizes: dict) -> None:
        """Take a buffer of `sizes[key]` elements for each key of `wanted` {key: shape} from the pool."""
        by_size: dict[int, list] = {}
        for key in wanted:
            by_size.setdefault(sizes[key], []).append(key)
        for size, keys in by_size.items():
            for key, buf in zip(keys, self.backend.pool.take(size, len(keys)), strict=True):
                self.slots[key] = _Slot(buf, wanted[key])

    def alias(self, key, same_as) -> None:
        self.slots[key] = self.slots[same_as]

    def d(self, key):
        """The device array of `key`."""
        return self.slots[key].d

    def t(self, key):
        """The torch view of `key`'s device array (the cuBLAS path), made once per run."""
        slot = self.slots[key]
        if slot.t is None:
            slot.t = self.backend.blas.view(slot.d)
        return slot.t

    def allowed(self, layer: int, rows: slice, stream=0):
        """[n, T] bool on the device: which keys the queries `rows` may see in `layer` (causal, its
        window, the extra mask): the maps of some rows are made with it as an explicit mask."""
        window = self.cfg.window(layer)
        key = (window, rows.start, rows.stop)
        if key not in self._allowed:
            allowed = allowed_pairs(self.T, self.cfg.causal, self.attn_mask, window)[rows]   # [n, T]
            self._allowed[key] = cuda.to_device(np.ascontiguousarray(allowed), stream=stream)
        return self._allowed[key]

    def _make_heads(self, key, heads) -> None:
        """Rows < p of `heads` of an incremental run's maps, if this key is such a map and not made yet."""
        if key[0] not in _HEAD_MAPS or len(key) != 2 or key[1] not in self.pending_maps:
            return
        layer = key[1]
        made = self.made_heads.setdefault(layer, set())
        todo = [h for h in heads if h not in made]
        if todo:
            self.backend.make_map_rows(self, layer, self.pending_maps[layer], todo)
            made.update(todo)

    def mark_ready(self, keys, event) -> None:
        for key in keys:
            self.slots[key].ready = event

    def nbytes(self) -> int:
        return sum(4 * math.prod(s.shape) for s in {id(s): s for s in self.slots.values()}.values())

    # -- to the host ----------------------------------------------------------------------------
    def _copy(self, src, ready) -> np.ndarray:
        """src (a device array or view) on the host, counted."""
        host = self.backend.pinned.empty(src.shape)
        self.backend.copy_to_host(src, host, ready)
        self.copied_bytes += host.nbytes
        return host

    def fetch(self, key) -> np.ndarray:
        """The whole value of `key` on the host (copied once, then the same array)."""
        slot = self.slots[key]
        with self._lock:
            if slot.host is None:
                self._make_heads(key, range(self.cfg.n_heads))
                slot.host, slot.parts = self._copy(slot.d, slot.ready), {}
            return slot.host

    def fetch_reshaped(self, key, shape) -> np.ndarray:
        """The host copy of `key` seen as `shape` (z_concat is z), the same view object every time."""
        whole = self.fetch(key)
        with self._lock:
            return self._views.setdefault((key, tuple(shape)), whole.reshape(shape))

    def fetch_part(self, key, index: int) -> np.ndarray:
        """value[index] of `key` (one head of a map) on the host, without copying the rest."""
        slot = self.slots[key]
        with self._lock:
            if slot.host is not None:
                return slot.host[index]
            if index not in slot.parts:
                self._make_heads(key, [index])
                slot.parts[index] = self._copy(slot.d[index], slot.ready)
            return slot.parts[index]

    def fetch_index(self, key, index: tuple) -> np.ndarray:
        """value[index] of `key` (Trace.read: ints and step-1 slices, or an array of rows) on the
        host, copying only that cut: a strided one (a head of [T, n, d]) is packed on the device
        first; rows that are not one run are copied as the run that spans them, then picked."""
        slot = self.slots[key]
        picks = next((i for i, x in enumerate(index) if isinstance(x, np.ndarray)), None)
        if picks is not None:
            rows = index[picks]
            span = (*index[:picks], slice(int(rows.min()), int(rows.max()) + 1), *index[picks + 1:])
            lead = [slice(None) for x in index[:picks] if not isinstance(x, int)]   # axes the span kept
            return np.ascontiguousarray(self.fetch_index(key, span)[(*lead, rows - rows.min())])
        with self._lock:
            if slot.host is not None:
                return slot.host[index]
            if isinstance(index[0], int) and index[0] in slot.parts:
                return slot.parts[index[0]][index[1:]]
            heads = range(self.cfg.n_heads)
            self._make_heads(key, [index[0]] if isinstance(index[0], int) else heads[index[0]])
            if len(index) == len(slot.shape) and all(isinstance(x, int) for x in index):   # one number
                cell = (*index[:-1], slice(index[-1], index[-1] + 1))
                return self._copy(slot.d[cell], slot.ready).reshape(())
            src = slot.d[index]
            one = next((i for i, x in enumerate(index) if isinstance(x, int)), None)
            if src.ndim == 1 and not src.is_c_contiguous() and one is not None:
                # A strided line (a key's column of one head): packed as the [1, n] cut around it.
                wider = (*index[:one], slice(index[one], index[one] + 1), *index[one + 1:])
                return self._copy(slot.d[wider], slot.ready).reshape(src.shape)
            return self._copy(src, slot.ready)

    def spill(self) -> None:
        """Copy every value not yet on the host (pageable memory), then let the device buffers go."""
        with self._lock:
            for key in self.slots:
                self._make_heads(key, range(self.cfg.n_heads))          # every row of every map first
            for slot in {id(s): s for s in self.slots.values()}.values():
                if slot.host is None:
                    host = np.empty(slot.shape, np.float32)
                    self.backend.copy_to_host(slot.d, host, slot.ready)
                    self.copied_bytes += host.nbytes
                    slot.host, slot.parts = host, {}
                slot.buf = slot.d = slot.t = None
            self.spilled = True

    def lazy(self, key, shape) -> Lazy:
        part = partial(self.fetch_part, key) if key[0] in _HEAD_MAPS else None
        return Lazy(make=partial(self.fetch, key), shape=tuple(shape), part=part,
                    read=partial(self.fetch_index, key))


def _pinned_empty(shape, dtype):
    return cuda.pinned_array(shape, dtype) if not SIMULATOR else np.empty(shape, dtype)


class _DeviceWeights:
    """Device copies of one Weights object, in the layouts the chosen product path reads; zeros for
    the biases a model does not have, so every kernel has one form."""

    def __init__(self, cfg: Config, weights: Weights, blas: bool):
        up = cuda.to_device
        H, KV, dh, dm = cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
        zeros = np.zeros
        self.uid, self.blas = weights.uid, blas
        self.W_E = up(weights["embed.W_E"])                                 # [d_vocab, d_model]
        learned = cfg.components.positions.embeds
        self.W_pos = up(weights["pos_embed.W_pos"] if learned else zeros((1, 1), np.float32))  # [n_ctx, d_model]
        self.blocks = []
        for layer in range(cfg.n_layers):
            w = weights.block(layer)
            experts = cfg.components.experts
            mlp = cfg.components.experts.weight_names() if experts else ("mlp.W_in", "mlp.W_out")
            norms = ("ln1.w", "ln2.w") if cfg.components.pre_norm else ()
            norms += ("ln1_post.w", "ln2_post.w") if cfg.components.post_norm is not None else ()
            blk = {short: up(w[short]) for short in norms + ("attn.W_O", *mlp)}
            if cfg.components.mlp.gated and not experts:
                blk["mlp.W_gate"] = up(w["mlp.W_gate"])                     # [d_model, d_mlp]
            for short in cfg.components.attention.qk_norm_weight_names():   # QK-norm: [d_head] each
                blk[short] = up(w[short])
            for short, n in (("ln1.b", dm), ("ln2.b", dm), ("attn.b_O", dm), ("mlp.b_in", cfg.d_mlp),
                             ("mlp.b_out", dm), ("mlp.b_gate", cfg.d_mlp)):
                blk[short] = up(w[short] if short in w else zeros(n, np.float32))
            biases = {p: (w[f"attn.b_{p}"] if cfg.attn_bias else zeros((n, dh), np.float32))
                      for p, n in (("Q", H), ("K", KV), ("V", KV))}
            if blas:   # [n, d_model, d_head] -> [d_model, n·d_head]: q viewed as [T, n·d_head] = ln1_out @ W + b
                for p in "QKV":
                    W = w[f"attn.W_{p}"]
                    blk[f"W_{p}2"] = up(np.ascontiguousarray(W.transpose(1, 0, 2).reshape(dm, -1)))
                    blk[f"b_{p}2"] = up(np.ascontiguousarray(biases[p].reshape(-1)))
            else:      # Q's H heads, then K's and V's KV heads each: [H + 2 KV, d_model, d_head]
                blk["W_QKV"] = up(np.concatenate([w["attn.W_Q"], w["attn.W_K"], w["attn.W_V"]]))
                blk["b_QKV"] = up(np.concatenate([biases["Q"], biases["K"], biases["V"]]))   # [H + 2 KV, d_head]
            self.blocks.append(blk)
        self.ln_final_w = up(weights["ln_final.w"])                         # [d_model]
        self.ln_final_b = up(weights["ln_final.b"] if "ln_final.b" in weights else zeros(dm, np.float32))
        self.W_U = None if cfg.tied_embeddings else up(weights["unembed.W_U"])   # [d_model, d_vocab]
        self.no_bias_vocab = None if cfg.tied_embeddings else up(zeros(cfg.d_vocab, np.float32))
        self.rope: dict = {}                                                # RoPE base -> (cos, sin) [n_ctx, r/2]
        if cfg.components.positions.rotates:
            for base in sorted({kind.rope_base for kind in cfg.components.layers}):   # Gemma 3: local, global
                cos, sin = _rope_tables(cfg.n_ctx, cfg.rotary_dim, base)   # [n_ctx, r/2] each
                self.rope[base] = (up(cos), up(sin))
        self._torch: dict = {}

    def torch_block(self, layer: int, view) -> dict:
        """Torch views of block `layer`'s device weights (made once)."""
        if layer not in self._torch:
            self._torch[layer] = {k: view(a) for k, a in self.blocks[layer].items()}
        return self._torch[layer]


def _rope_tables(T: int, rotary_dim: int, theta: float):
    """cos and sin [T, rotary_dim / 2] as float32 (angles in float64, as the reference has them)."""
    cos, sin = rope_angles(T, rotary_dim, theta)                           # [T, r/2] each, float64
    return cos.astype(np.float32), sin.astype(np.float32)


def run_shapes(cfg: Config, T: int) -> dict:
    """{key: shape} of every device buffer of one pass."""
    wanted = {("embed",): (T, cfg.d_model), ("ln_final_out",): (T, cfg.d_model),
              ("ln_final_stat0",): (T,), ("ln_final_stat1",): (T,)}
    if cfg.components.positions.embeds:
        wanted[("resid_pre", 0)] = (T, cfg.d_model)
    for layer in range(cfg.n_layers):
        for name in buffered_names(cfg):
            wanted[(name, layer)] = trace_shape(name, cfg, T) if name != "resid_post" else (T, cfg.d_model)
    return wanted


def run_sizes(cfg: Config, T: int) -> dict:
    """{key: elements} of every device buffer of one pass: each as big as at bucket_rows(T), so the
    same buffers serve the next T's too."""
    return {key: math.prod(s) for key, s in run_shapes(cfg, bucket_rows(T, max(cfg.n_ctx, T))).items()}


def run_bytes(cfg: Config, T: int) -> int:
    """Device memory of one pass's buffers (at bucket_rows(T))."""
    return sum(4 * n for n in run_sizes(cfg, T).values())


def weights_bytes(cfg: Config) -> int:
    return memory.weight_count(cfg) * 4


class CudaBackend(Backend):
    name = "cuda"
    dtype = np.dtype(np.float32)
    supports_reuse = True
    lazy_scores = True

    def __init__(self) -> None:
        self._lock = threading.RLock()               # one computation on the device at a time
        self._copy_lock = threading.Lock()           # one copy at a time on the copy stream
        self._weights: _DeviceWeights | None = None  # the newest weights, kept on the device
        self._available: tuple[bool, str] | None = None
        self._errors = cuda_errors()
        self.uploads = 0                             # how often weights went to the device
        self.spills = 0                              # live runs moved to the host to make room
        self.pool = DevicePool()
        self.pinned = BufferPool(max_bytes=min(2 << 30, memory.budget_bytes() // 8), alloc=_pinned_empty)
        memory.register_reclaimer(self.pinned.release)
        self._runs: list[weakref.ref] = []           # live runs, oldest first
        self.device_budget: int | None = None        # tests: pretend the GPU has this many bytes
        self.gemm = os.environ.get("QKV_CUDA_GEMM", "auto")
        self._blas = None
        self._streams = None

    # -- where we are ----------------------------------------------------------------------------
    def available(self) -> tuple[bool, str]:
        if self._available is None:
            self._available = self._probe()
        return self._available

    def _probe(self) -> tuple[bool, str]:
        """Whether kernels really run here: a test kernel is compiled, launched and checked."""
        if SIMULATOR:
            return True, ""
        try:
            if importlib.util.find_spec("numba_cuda") is None:
                # Without an NVIDIA GPU the GPU packages cannot help: say that, not how to install them.
                if not nvidia_gpu_present():
                    return False, NO_GPU
                return False, Message(QT_TR_NOOP("numba-cuda is not installed: {command}"), command=INSTALL)
            from numba.cuda.cudadrv import driver, nvvm

            if not cuda.is_available():
                why = driver.driver.initialization_error
                if why:
                    why = " ".join(str(why).split())
                    return False, (Message(QT_TR_NOOP("no NVIDIA GPU driver found")) if "cannot be found" in why
                                   else Message(QT_TR_NOOP("no usable NVIDIA driver: {why}"), why=why[:160]))
                if not nvvm.is_available():
                    return False, Message(QT_TR_NOOP("NVIDIA's CUDA compiler library (NVVM) is missing: {command}"),
                                          command=INSTALL)
                return False, Message(QT_TR_NOOP("no CUDA GPU found"))
            old = driver_too_old()
            if old:
                return False, old
        except Exception as exc:  # noqa: BLE001 - whatever breaks the probe, CUDA is not usable
            return False, driver_too_old() or f"CUDA cannot be initialised ({exc}): {INSTALL}"
        try:
            a = cuda.to_device(np.ones((1, 2), np.float32))
            out = cuda.device_array((1, 2), np.float32)
            EW.launch_add(a, a, out)
            if not np.array_equal(out.copy_to_host(), np.full((1, 2), 2.0, np.float32)):
                return False, "a test kernel gave a wrong result on this GPU"
        except Exception as exc:  # noqa: BLE001 - NVVM, NVRTC, nvJitLink or the driver said no
            failed = f"a test kernel did not compile or run ({describe_failure(exc)}): {INSTALL}"
            return False, driver_too_old() or failed
        return True, ""

    def on_real_gpu(self) -> bool:
        """True only with a real GPU: the simulator is 'available' but must never be chosen by auto."""
        return not SIMULATOR and self.available()[0]

    def label(self) -> str:
        if SIMULATOR:
            return "CUDA (simulated)"
        if not self.available()[0]:
            return "cuda (not available here)"
        try:
            name = cuda.get_current_device().name
            name = name.decode() if isinstance(name, bytes) else str(name)
        except Exception:  # noqa: BLE001 - a label must never fail
            name = "GPU"
        return f"cuda (numba{' + cuBLAS' if self.gemm_path() == 'cublas' else ''}, {name})"

    def gemm_path(self) -> str:
        """"cublas" or "numba": which products this backend runs now."""
        if self.gemm not in GEMM_PATHS:
            raise ValueError(f"QKV_CUDA_GEMM / gemm must be one of {', '.join(GEMM_PATHS)}, not {self.gemm!r}")
        if self.gemm != "auto":
            return self.gemm
        if SIMULATOR or importlib.util.find_spec("torch") is None:
            return "numba"
        from .cuda_blas import why_not

        return "numba" if why_not() else "cublas"

    @property
    def blas(self):
        """The cuBLAS path's product runner (imports torch on first use)."""
        if self._blas is None:
            from .cuda_blas import TorchProducts, why_not

            why = why_not()
            if why:
                raise BackendUnavailable(f"the cuBLAS path cannot run: {why}")
            self._blas = TorchProducts()
        return self._blas

    def _stream(self):
        """The compute stream: torch's (the cuBLAS path) or one of our own; never the legacy default
        stream, which would make every copy of an old Trace wait for the pass."""
        if self.gemm_path() == "cublas":
            return self.blas.numba_stream
        if self._streams is None:
            self._streams = cuda.stream()
        return self._streams

    def warm_up(self) -> None:
        """Compile every kernel (or load them from numba's cache) with a tiny model."""
        if SIMULATOR or not self.available()[0]:
            return
        cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=4, d_vocab=8, n_layers=1)
        tiny = Weights.random(cfg, seed=0)
        try:
            out = self.run(cfg, tiny, np.arange(3), np.ones((3, 3), bool))
            out.arrays["pattern", 0].make()
            out.logits_fn(slice(None))
        except BackendUnavailable:
            pass
        with self._lock:
            if self._weights is not None and self._weights.uid == tiny.uid:
                self._weights = None

    def release(self) -> None:
        """Free the device weights and the free buffers (live Traces keep theirs)."""
        with self._lock:
            self._weights = None
            self.pool.trim()
            if not SIMULATOR:
                try:
                    cuda.current_context().deallocations.clear()
                except Exception:  # noqa: BLE001 - freeing is best effort
                    pass

    def device_bytes(self) -> dict[str, int]:
        """Device memory this backend holds: weights, buffers of live runs, free pool buffers."""
        held, free = self.pool.held_bytes(), self.pool.free_bytes()
        cfg_bytes = 0
        if self._weights is not None:
            cfg_bytes = sum(a.nbytes for blk in self._weights.blocks for a in blk.values())
        return {"weights": cfg_bytes, "live_runs": held - free, "free_pool": free,
                "live_run_count": len(self.live_runs())}

    def memory_budget(self) -> int | None:
        """What a pass's Trace may take on the GPU: its free memory plus the pool's buffers (free
        ones, and live runs' that spill to the host to make room); None under the simulator, whose
        "device" is the host's memory."""
        if self.device_budget is not None:
            return self.device_budget - self.device_bytes()["weights"]
        if SIMULATOR or not self.available()[0]:
            return None
        try:
            free = cuda.current_context().get_memory_info()[0]
        except Exception:  # noqa: BLE001 - no number: the host's budget applies
            return None
        return int(free + self.pool.held_bytes())

    def live_runs(self) -> list[_DeviceRun]:
        runs = [r() for r in self._runs]
        return [r for r in runs if r is not None and not r.spilled]

    # -- device state ----------------------------------------------------------------------------
    def _device_weights(self, cfg: Config, weights: Weights) -> _DeviceWeights:
        blas = self.gemm_path() == "cublas"
        if self._weights is None or self._weights.uid != weights.uid or self._weights.blas != blas:
            self._weights = None                     # free the old copy before the new one
            self.pool.trim()                         # weights need real free memory, not pool buffers
            self._make_room(weights_bytes(cfg), "the weights")
            self._weights = _DeviceWeights(cfg, weights, blas)
            self.uploads += 1
        return self._weights

    def _device_free(self) -> float:
        if self.device_budget is not None:
            held = self.pool.held_bytes() - self.pool.free_bytes()
            w = self.device_bytes()["weights"]
            return self.device_budget - held - w
        if SIMULATOR:
            return math.inf
        ctx = cuda.current_context()
        ctx.deallocations.clear()                    # let go of buffers freed on the Python side
        return ctx.get_memory_info()[0] + self.pool.free_bytes()

    def _make_room(self, need: int, what: str) -> None:
        """Spill the oldest live runs to the host until `need` bytes fit; BackendUnavailable with the
        numbers when even that is not enough."""
        while need > self._device_free():
            runs = self.live_runs()
            if not runs:
                free = self._device_free()
                total = self.device_budget if self.device_budget is not None else \
                    (math.inf if SIMULATOR else cuda.current_context().get_memory_info()[1])
                raise BackendUnavailable(f"out of GPU memory: {what} need {memory.fmt_bytes(need)}, "
                                         f"{memory.fmt_bytes(max(free, 0))} free of {memory.fmt_bytes(total)}")
            runs[0].spill()                          # its buffers are free now (the pool counts them)
            self.spills += 1

    def _new_run(self, cfg: Config, T: int) -> _DeviceRun:
        wanted, sizes = run_shapes(cfg, T), run_sizes(cfg, T)
        self.pool.trim(Counter(sizes.values()))      # free buffers of other sizes go
        self._make_room(run_bytes(cfg, T), f"one pass at T={T} ({cfg.n_layers} layers)")
        run = _DeviceRun(self, cfg, T)
        run.allocate(wanted, sizes)
        self._runs = [r for r in self._runs if r() is not None] + [weakref.ref(run)]
        return run

    def copy_to_host(self, src, dst: np.ndarray, ready) -> None:
        """Device -> host on the copy stream, after the event `ready` (the stage that made `src`); a
        strided `src` (one head of [T, n, d]) is packed on the device first, so only it crosses."""
        with self._copy_lock:
            stream = 0
            if not SIMULATOR:
                if getattr(self, "_copy_stream", None) is None:
                    self._copy_stream = cuda.stream()
                stream = self._copy_stream
                if ready is not None:
                    ready.wait(stream)
            if not src.is_c_contiguous():
                if src.ndim != 2:
                    raise ValueError(f"a strided copy of {src.ndim} dimensions")   # Trace.read makes 2
                packed = cuda.device_array(src.shape, np.float32, stream=stream)  # [R, d]
                EW.launch_gather(src, packed, stream=stream)
                src = packed
            if SIMULATOR:
                src.copy_to_host(dst)
                return
            src.copy_to_host(dst, stream=stream)
            stream.synchronize()

    # -- running ---------------------------------------------------------------------------------
    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None, reuse: Reuse | None = None) -> BackendOutput:
        if len(tokens) == 0:
            return _empty_output(cfg, weights, tokens)
        # Rows < p come from reuse.trace; at least the last row is computed (no kernel of 0 rows).
        p = min(reuse.rows, len(tokens) - 1) if reuse is not None else 0
        with self._lock:
            try:
                run, timing, arrays = self._run(cfg, weights, tokens, attn_mask, publish=progress.wants_partial(),
                                                reuse=reuse.trace if p else None, p=p)
            except BackendUnavailable:
                self.release()
                raise
            except self._errors as exc:
                self.release()
                raise BackendUnavailable(describe_failure(exc)) from exc
        return BackendOutput(arrays, self._logits_fn(cfg, weights, run), timing, reused_rows=p,
                             copied_fn=lambda: run.copied_bytes)

    def run_device(self, cfg: Config, weights: Weights, tokens, attn_mask=None) -> _DeviceRun:
        """Every kernel of a forward pass with nothing copied back (what benchmarks time): the run,
        whose `d((name, layer))` are the device arrays. Returns after the GPU is done."""
        ids = np.ascontiguousarray(tokens, dtype=np.int64)                  # [T]
        with self._lock:
            return self._run(cfg, weights, ids, attn_mask, publish=False)[0]

    def _run(self, cfg, weights, tokens, attn_mask, publish: bool, reuse=None, p: int = 0):
        """One pass; with `reuse` (a Trace whose rows < p this pass shares), rows < p are copied from
        it and the row-wise stages compute rows >= p only."""
        watch = Stopwatch()
        T, L = len(tokens), cfg.n_layers
        uploads = self.uploads
        dw = self._device_weights(cfg, weights)
        run = self._new_run(cfg, T)
        run.attn_mask = attn_mask
        if self.uploads != uploads:
            watch.lap("upload")
        blas = self.gemm_path() == "cublas"
        run.gemm = "cublas" if blas else "numba"
        stream = self._stream()
        sim = SIMULATOR
        event = (lambda: None) if sim else cuda.event
        tokens_d = cuda.to_device(tokens, stream=stream)                    # [T] int64
        has_mask = attn_mask is not None
        mask_d = cuda.to_device(attn_mask if has_mask else np.ones((1, 1), np.bool_), stream=stream)  # [T, T]
        run.mask_d = mask_d                                                 # for a head's rows < p, later
        learned = cfg.components.positions.embeds
        if not learned:
            run.alias(("resid_pre", 0), ("embed",))
        if p:
            _copy_leading_rows(run, reuse, p, stream)                      # rows < p of every row-wise buffer
            watch.lap("reuse_copy")
        EW.launch_embed(tokens_d[p:], dw.W_E, dw.W_pos[p:] if learned else dw.W_pos, run.d(("embed",))[p:],
                        run.d(("resid_pre", 0))[p:], learned, stream=stream,
                        scale=cfg.components.embed_scale)           # [n, d_model] x2 (rows >= p)
        first = event()
        if first is not None:
            first.record(stream)
        run.mark_ready([("embed",), ("resid_pre", 0)], first)
        attn_done, layer_done = [], []
        with self.blas.fp32() if blas else nullcontext():
            for layer in range(L):
                progress.report(f"layer {layer}", layer / max(L, 1))       # may raise Cancelled
                if layer > 0:
                    run.alias(("resid_pre", layer), ("resid_post", layer - 1))
                halves = (self._attention_blas, self._mlp_blas) if blas else (self._attention, self._mlp)
                for half, names, done in zip(halves, (attention_names(cfg), mlp_names(cfg)),
                                             (attn_done, layer_done), strict=True):
                    half(cfg, dw, layer, run, mask_d, has_mask, stream, p)
                    ev = event()
                    if ev is not None:
                        ev.record(stream)
                    run.mark_ready([(n, layer) for n in names if n in buffered_names(cfg)], ev)
                    done.append(ev)
            stats = (run.d(("ln_final_stat0",))[p:], run.d(("ln_final_stat1",))[p:])   # scratch, not in the Trace
            _norm(cfg, run.d(("resid_post", L - 1))[p:], dw.ln_final_w, dw.ln_final_b, stats,
                  run.d(("ln_final_out",))[p:], stream)
            final = event()
            if final is not None:
                final.record(stream)
            run.mark_ready([("ln_final_out",)], final)
        watch.lap("enqueue")
        # The GPU works through the queue; layer by layer, hand out each attention half as it is done.
        lazies = _trace_arrays(cfg, weights, tokens, run)
        early = {k: lazies[k] for k in ("tokens", "embed", "pos_embed") if k in lazies}
        for layer in range(L):
            if publish:
                _wait(attn_done[layer])
                early.update({(n, layer): lazies[(n, layer)] for n in attention_names(cfg)})
                progress.publish(layer, dict(early))
                early.update({(n, layer): lazies[(n, layer)] for n in mlp_names(cfg)})
            _wait(layer_done[layer])
            progress.report(f"layer {layer} done", (layer + 1) / max(L, 1))
        _wait(final)
        if not sim:
            stream.synchronize()
        watch.lap("kernels")
        return run, watch.finish(), lazies

    # -- one block, launch by launch (docs/ARCHITECTURE.md sections 4 and 5) ---------------------------------
    @staticmethod
    def _attention(cfg: Config, dw: _DeviceWeights, layer: int, run: _DeviceRun, mask, has_mask, stream,
                   p: int = 0) -> None:
        """resid_pre -> resid_mid with the numba product kernels, rows >= p (n = T - p): the row-wise
        stages, the maps' rows and z; rows < p of a head's maps are made when a view reads it."""
        blk, s = dw.blocks[layer], stream
        d = lambda name: run.d((name, layer))                               # noqa: E731
        r = lambda name: run.d((name, layer))[p:]                           # noqa: E731 - rows >= p
        window = cfg.window(layer) or 0
        ln1 = _pre_norm(cfg, blk, "ln1", r("resid_pre"), r, s)             # [n, d_model] (OLMo 2: resid_pre)
        P.launch_project_qkv(ln1, blk["W_QKV"], blk["b_QKV"], r("q"), r("k"), r("v"), stream=s)
        _qk_norm_and_rope(cfg, dw, blk, r, p, s, layer)                     # q_normed, k_normed; rot_q, rot_k
        q, k = (d(name) for name in cfg.components.score_inputs)           # what the scores use
        m = lambda name: run.d((name, layer))[:, p:]                        # noqa: E731 - a map's rows >= p
        # The queries p.. against every key; the kernels mask by position (row i is position p + i).
        P.launch_scores(q[p:], k, cfg.causal, mask, has_mask, cfg.components.attention.scale, m("attn_scores_raw"),
                        m("attn_scores_scaled"), m("attn_scores"), window, stream=s, first_row=p)   # [H, n, T] x3
        _soft_cap(cfg, m, s)                                                # Gemma 2: before the softmax
        R.launch_softmax_rows(m("attn_scores"), cfg.causal, m("pattern"), window, stream=s, first_row=p)  # [H, n, T]
        P.launch_weighted_sum(m("pattern"), d("v"), cfg.causal, r("z"), window, stream=s, first_row=p)  # [n, H, d_head]
        if p:
            run.pending_maps[layer] = p                                     # rows < p: when a view reads a head
        P.launch_head_results(r("z"), blk["attn.W_O"], r("result"), stream=s)              # [n, H, d_model]
        EW.launch_sum_heads_residual(r("result"), blk["attn.b_O"], r("resid_pre"), r("attn_out"), r("resid_mid"),
                                     stream=s)                              # [n, d_model] x2
        if cfg.components.post_norm is not None:                            # Gemma 2/3, OLMo 2
            _post_norm(cfg, blk, "ln1_post.w", r("attn_out"), r("attn_out_normed"), r("resid_pre"), r("resid_mid"), s)

    @staticmethod
    def _mlp(cfg: Config, dw: _DeviceWeights, layer: int, run: _DeviceRun, mask, has_mask, stream,
             p: int = 0) -> None:
        """resid_mid -> resid_post with the numba product kernels, rows >= p."""
        blk, s = dw.blocks[layer], stream
        d = lambda name: run.d((name, layer))[p:]                           # noqa: E731 - rows >= p
        ln2 = _pre_norm(cfg, blk, "ln2", d(cfg.components.mlp_input), d, s)   # [T, d_model] (OLMo 2: its input)
        if cfg.components.experts is not None:
            _experts(cfg, blk, ln2, d, s)
            return
        if cfg.components.mlp.gated:
            P.launch_matmul_bias(ln2, blk["mlp.W_gate"], blk["mlp.b_gate"], d("mlp_pre"), stream=s)
            P.launch_matmul_bias(ln2, blk["mlp.W_in"], blk["mlp.b_in"], d("mlp_pre_linear"), stream=s)
            _gate(cfg)(d("mlp_pre"), d("mlp_pre_linear"), d("mlp_post"), stream=s)   # [T, d_mlp] SiLU | GELU gate
        else:
            P.launch_matmul_bias(ln2, blk["mlp.W_in"], blk["mlp.b_in"], d("mlp_pre"), stream=s)   # [T, d_mlp]
            gelu = EW.launch_gelu_erf if cfg.components.mlp.exact else EW.launch_gelu                  # erf | tanh
            gelu(d("mlp_pre"), d("mlp_post"), stream=s)                                                 # [T, d_mlp]
        P.launch_matmul_bias(d("mlp_post"), blk["mlp.W_out"], blk["mlp.b_out"], d("mlp_out"), stream=s)  # [T, d_model]
        _add_residual(cfg, blk, "ln2_post.w", d("mlp_out"), d, d("resid_mid"), d("resid_post"), s)    # [T, d_model]

    def _attention_blas(self, cfg: Config, dw: _DeviceWeights, layer: int, run: _DeviceRun, mask, has_mask,
                        stream, p: int = 0) -> None:
        """resid_pre -> resid_mid with cuBLAS for the products (torch views of the same buffers);
        row-wise stages and z on rows >= p (n = T - p)."""
        blas, blk, s = self.blas, dw.blocks[layer], stream
        W = dw.torch_block(layer, blas.view)
        d = lambda name: run.d((name, layer))                               # noqa: E731
        t = lambda name: run.t((name, layer))                               # noqa: E731
        r = lambda name: run.d((name, layer))[p:]                           # noqa: E731 - rows >= p
        T = run.T
        window = cfg.window(layer) or 0
        _pre_norm(cfg, blk, "ln1", r("resid_pre"), r, s)                   # [n, d_model] (OLMo 2: none)
        ln1 = t("ln1_out" if cfg.components.pre_norm else "resid_pre")[p:]
        for P_, name in (("Q", "q"), ("K", "k"), ("V", "v")):
            blas.linear(ln1, W[f"W_{P_}2"], W[f"b_{P_}2"], t(name).view(T, -1)[p:])   # [n, n·d_head] = ln1_out @ W + b
        _qk_norm_and_rope(cfg, dw, blk, r, p, s, layer)                     # q_normed, k_normed; rot_q, rot_k
        q, k = (t(name) for name in cfg.components.score_inputs)           # what the scores use
        scale = cfg.components.attention.scale                             # 1/√d_head (Gemma: 1/√q_p_a_s), or 1
        if p:   # rows >= p only, the causal mask, the window and the extra mask as one explicit mask
            blas.scores(q[p:], k, t("attn_scores_raw")[:, p:])             # [H, n, T] q·kᵀ
            R.launch_scale_mask_softmax(d("attn_scores_raw")[:, p:], False, run.allowed(layer, slice(p, None), s),
                                        True, scale, 0, d("attn_scores_scaled")[:, p:], d("attn_scores")[:, p:],
                                        d("pattern")[:, p:], stream=s)      # [H, n, T] x3
            if _soft_cap(cfg, lambda name: d(name)[:, p:], s):              # Gemma 2: the softmax of the capped
                R.launch_softmax_rows(d("attn_scores")[:, p:], False, d("pattern")[:, p:], stream=s)
            run.pending_maps[layer] = p                                     # rows < p: when a view reads a head
        else:
            blas.scores(q, k, t("attn_scores_raw"))                         # [H, T, T] q·kᵀ (every row)
            R.launch_scale_mask_softmax(d("attn_scores_raw"), cfg.causal, mask, has_mask, scale, window,
                                        d("attn_scores_scaled"), d("attn_scores"), d("pattern"), stream=s)  # x3
            if _soft_cap(cfg, d, s):                                        # Gemma 2: the softmax of the capped
                R.launch_softmax_rows(d("attn_scores"), cfg.causal, d("pattern"), window, stream=s)
        blas.weighted_sum(t("pattern")[:, p:], t("v"), t("z")[p:])          # [n, H, d_head]
        blas.head_results(t("z")[p:], W["attn.W_O"], t("result")[p:])       # [n, H, d_model]
        EW.launch_sum_heads_residual(r("result"), blk["attn.b_O"], r("resid_pre"), r("attn_out"), r("resid_mid"),
                                     stream=s)                              # [n, d_model] x2
        if cfg.components.post_norm is not None:                            # Gemma 2/3, OLMo 2
            _post_norm(cfg, blk, "ln1_post.w", r("attn_out"), r("attn_out_normed"), r("resid_pre"), r("resid_mid"), s)

    def make_map_rows(self, run: _DeviceRun, layer: int, p: int, heads) -> None:
        """Rows < p of the four maps of `heads` in an incremental run's `layer`, from its own q and k
        (rows < p copied from the earlier run, the new keys computed): what a full pass writes there."""
        if run.gemm == "numba":
            self._make_map_rows_numba(run, layer, p, heads)
            return
        cfg, blas = run.cfg, self.blas
        q_name, k_name = cfg.components.score_inputs                       # rot_q, rot_k with RoPE
        q, k = run.t((q_name, layer)), run.t((k_name, layer))              # [T, H, dh], [T, KV, dh]
        raw, d = run.t(("attn_scores_raw", layer)), (lambda name: run.d((name, layer)))   # noqa: E731
        scale = cfg.components.attention.scale                             # 1/√d_head (Gemma: 1/√q_p_a_s), or 1
        with blas.fp32():
            s = blas.numba_stream
            allowed = run.allowed(layer, slice(0, p), s)                    # [p, T]
            for h in heads:
                g = h // cfg.n_groups
                blas.scores(q[:p, h:h + 1], k[:, g:g + 1], raw[h:h + 1, :p])    # [1, p, T] q_h·k_gᵀ
                R.launch_scale_mask_softmax(d("attn_scores_raw")[h:h + 1, :p], False, allowed, True, scale, 0,
                                            d("attn_scores_scaled")[h:h + 1, :p], d("attn_scores")[h:h + 1, :p],
                                            d("pattern")[h:h + 1, :p], stream=s)   # [1, p, T] x3
                if _soft_cap(cfg, lambda name, h=h: d(name)[h:h + 1, :p], s):     # Gemma 2: capped, softmax again
                    R.launch_softmax_rows(d("attn_scores")[h:h + 1, :p], False, d("pattern")[h:h + 1, :p], stream=s)
            if blas.on_device:
                blas.stream.synchronize()                                   # before the copy stream reads them

    def _make_map_rows_numba(self, run: _DeviceRun, layer: int, p: int, heads) -> None:
        """make_map_rows on the numba path: the pass's own kernels on one head's rows < p (positions 0..)."""
        cfg = run.cfg
        q_name, k_name = cfg.components.score_inputs                       # rot_q, rot_k with RoPE
        q, k = run.d((q_name, layer)), run.d((k_name, layer))              # [T, H, dh], [T, KV, dh]
        m = lambda name, h: run.d((name, layer))[h:h + 1, :p]               # noqa: E731 - [1, p, T] of head h
        window = cfg.window(layer) or 0
        s = self._streams if self._streams is not None else self._stream()   # the numba pass's stream
        for h in heads:
            g = h // cfg.n_groups
            P.launch_scores(q[:p, h:h + 1], k[:, g:g + 1], cfg.causal, run.mask_d, run.attn_mask is not None,
                            cfg.components.attention.scale, m("attn_scores_raw", h), m("attn_scores_scaled", h),
                            m("attn_scores", h), window, stream=s)         # [1, p, T] x3 q_h·k_gᵀ
            _soft_cap(cfg, lambda name, h=h: m(name, h), s)                 # Gemma 2: before the softmax
            R.launch_softmax_rows(m("attn_scores", h), cfg.causal, m("pattern", h), window, stream=s)   # [1, p, T]
        if not SIMULATOR:
            s.synchronize()                                                 # before the copy stream reads them

    def _mlp_blas(self, cfg: Config, dw: _DeviceWeights, layer: int, run: _DeviceRun, mask, has_mask,
                  stream, p: int = 0) -> None:
        """resid_mid -> resid_post with cuBLAS for the products, rows >= p."""
        blas, blk, s = self.blas, dw.blocks[layer], stream
        W = dw.torch_block(layer, blas.view)
        d = lambda name: run.d((name, layer))[p:]                           # noqa: E731 - rows >= p
        t = lambda name: run.t((name, layer))[p:]                           # noqa: E731
        ln2 = _pre_norm(cfg, blk, "ln2", d(cfg.components.mlp_input), d, s)   # [T, d_model] (OLMo 2: none)
        if cfg.components.experts is not None:                              # the numba kernels (see _experts)
            _experts(cfg, blk, ln2, d, s)
            return
        ln2 = t("ln2_out" if cfg.components.pre_norm else cfg.components.mlp_input)
        if cfg.components.mlp.gated:
            blas.linear(ln2, W["mlp.W_gate"], W["mlp.b_gate"], t("mlp_pre"))                 # [T, d_mlp] gate
            blas.linear(ln2, W["mlp.W_in"], W["mlp.b_in"], t("mlp_pre_linear"))              # [T, d_mlp] up
            _gate(cfg)(d("mlp_pre"), d("mlp_pre_linear"), d("mlp_post"), stream=s)           # [T, d_mlp]
        else:
            blas.linear(ln2, W["mlp.W_in"], W["mlp.b_in"], t("mlp_pre"))                     # [T, d_mlp]
            gelu = EW.launch_gelu_erf if cfg.components.mlp.exact else EW.launch_gelu        # erf | tanh
            gelu(d("mlp_pre"), d("mlp_post"), stream=s)                                       # [T, d_mlp]
        blas.linear(t("mlp_post"), W["mlp.W_out"], W["mlp.b_out"], t("mlp_out"))              # [T, d_model]
        _add_residual(cfg, blk, "ln2_post.w", d("mlp_out"), d, d("resid_mid"), d("resid_post"), s)    # [T, d_model]

    def _logits_fn(self, cfg: Config, weights: Weights, run: _DeviceRun):
        unembed = weights["embed.W_E"].T if cfg.tied_embeddings else weights["unembed.W_U"]   # [d_model, d_vocab]
        key = ("ln_final_out",)
        cap = cfg.components.final_softcap                                  # Gemma 2: logits capped (on the host)

        def logits_fn(rows):
            logits = product_rows(rows)                                     # [R, d_vocab]
            return logits if cap is None else cap.apply(logits)

        def product_rows(rows):
            picked = np.arange(run.T)[rows]                                 # [R] positions
            if picked.size == 0:
                return np.zeros((0, cfg.d_vocab), np.float32)               # [0, d_vocab]
            # On the device only when it is free and still holds these weights: a view asking for
            # an old trace's logits must neither wait for a running forward pass nor evict the
            # weights it uses (one row, the common request, is cheap on the CPU anyway). There the
            # rows of ln_final_out are read where they are: only the logits cross the bus.
            if self._lock.acquire(blocking=False):
                try:
                    slot = run.slots[key]
                    if self._weights is not None and self._weights.uid == weights.uid:
                        dw = self._weights
                        a, b = int(picked[0]), int(picked[-1]) + 1
                        if slot.d is not None and np.array_equal(picked, np.arange(a, b)):
                            x = slot.d[a:b]                                 # [R, d_model] on the device
                        else:
                            x = cuda.to_device(run.fetch_index(key, (picked,)))   # [R, d_model]
                        logits = cuda.device_array((x.shape[0], cfg.d_vocab), np.float32)  # [R, d_vocab]
                        if dw.W_U is None:
                            P.launch_unembed(x, dw.W_E, logits)                            # x @ W_Eᵀ (tied)
                        else:
                            P.launch_matmul_bias(x, dw.W_U, dw.no_bias_vocab, logits)
                        host = logits.copy_to_host()                        # [R, d_vocab]
                        run.copied_bytes += host.nbytes
                        return host
                except (BackendUnavailable, *self._errors):
                    pass
                finally:
                    self._lock.release()
            x = np.ascontiguousarray(run.fetch_index(key, (picked,)))      # [R, d_model]
            return x @ unembed                                              # [R, d_vocab] on the CPU

        return logits_fn


def _device_run_of(backend: CudaBackend, trace) -> _DeviceRun | None:
    """The run whose buffers `trace`'s values copy from (its Lazy values are that run's fetches),
    if it is this backend's; None otherwise (a Trace made some other way: its host values are used)."""
    try:
        make = trace.stored("embed").make
    except (KeyError, AttributeError):
        return None
    run = getattr(getattr(make, "func", None), "__self__", None)
    return run if isinstance(run, _DeviceRun) and run.backend is backend and run.T == trace.T else None


def _copy_leading_rows(run: _DeviceRun, trace, p: int, stream) -> None:
    """Rows < p of every row-wise buffer of `run` from the Trace `trace` reuses: device to device
    from its run's buffers (on the cuBLAS path one batched copy for them all), or from the host (a
    spilled run's copies, or the Trace's values). The [H, T, T] maps are the pass's own (every row,
    or rows >= p and a head's earlier rows on demand); ln_final's statistics are scratch."""
    before = _device_run_of(run.backend, trace)
    seen = set()
    on_device = []                                                          # keys copied device to device
    for key, slot in run.slots.items():
        if id(slot) in seen or key[0] in _HEAD_MAPS or key[0].startswith("ln_final_stat"):
            continue
        seen.add(id(slot))
        dst = slot.d[:p]                                                    # [p, ...]
        old = before.slots.get(key) if before is not None else None
        if old is not None and old.d is not None:
            on_device.append(key)
            continue
        if old is not None and old.host is not None:
            host = old.host[:p]                                             # a spilled run's copy
        else:
            host = trace[key[0] if len(key) == 1 else key][:p]              # the Trace's value
        dst.copy_to_device(np.ascontiguousarray(host, np.float32), stream=stream)
    if on_device and run.backend.gemm_path() == "cublas":                   # one launch for every buffer
        run.backend.blas.copy_all([run.t(key)[:p] for key in on_device], [before.t(key)[:p] for key in on_device])
        return
    for key in on_device:
        run.d(key)[:p].copy_to_device(before.d(key)[:p], stream=stream)     # device to device


def _wait(event) -> None:
    if event is not None:
        event.synchronize()


def _trace_arrays(cfg: Config, weights: Weights, tokens: np.ndarray, run: _DeviceRun) -> dict:
    """Every Trace name as a Lazy copy from `run` (the same Lazy objects for a partial Trace)."""
    T = len(tokens)
    out: dict = {"tokens": tokens, "embed": run.lazy(("embed",), (T, cfg.d_model)),
                 "ln_final_out": run.lazy(("ln_final_out",), (T, cfg.d_model))}
    if cfg.components.positions.embeds:
        out["pos_embed"] = weights["pos_embed.W_pos"][:T]                   # [T, d_model] (exact: a view)
    for layer in range(cfg.n_layers):
        for name in layer_names(cfg):
            shape = trace_shape(name, cfg, T)
            if name == "z_concat":
                out[(name, layer)] = Lazy(make=partial(run.fetch_reshaped, ("z", layer), shape), shape=shape)
            else:
                out[(name, layer)] = run.lazy((name, layer), shape)
    return out


def _qk_norm_and_rope(cfg: Config, dw: _DeviceWeights, blk: dict, r, p: int, stream, layer: int = 0) -> None:
    """After the q/k/v projection, rows >= p (`r(name)`): the QK-norm of each head of q and k over
    d_head (the rows of [n, heads, d_head] as [n·heads, d_head]; OLMo 2: over all heads, [n, heads·d_head]),
    then RoPE of what it gave with the layer's base."""
    c = cfg.components
    qkn = c.attention.qk_norm
    if qkn is not None:
        for src, w, dst in (("q", "attn.q_norm.w", "q_normed"), ("k", "attn.k_norm.w", "k_normed")):
            x, out = r(src), r(dst)                                         # [n, heads, d_head] each
            rows = x.shape[0] if c.attention.qk_norm_all_heads else x.shape[0] * x.shape[1]
            width = x.shape[1] * x.shape[2] // (rows // x.shape[0])
            scale = cuda.device_array(rows, np.float32, stream=stream)      # not kept
            R.launch_rms_norm(x.reshape(rows, width), blk[w], scale, out.reshape(rows, width), qkn.eps,
                              stream=stream)                                # [n·heads, d_head] | [n, heads·d_head]
    if c.positions.rotates:
        q_in, k_in = c.rope_inputs                                          # q, k (or q_normed, k_normed)
        cos, sin = dw.rope[c.layer(layer).rope_base]                        # this layer's base
        EW.launch_rope(r(q_in), cos[p:], sin[p:], r("rot_q"), stream=stream)   # [n, H, d_head]
        EW.launch_rope(r(k_in), cos[p:], sin[p:], r("rot_k"), stream=stream)   # [n, KV, d_head]


def _pre_norm(cfg: Config, blk: dict, prefix: str, x, named, stream):
    """Norm `prefix` (ln1, ln2) of x into its buffers, and what the next product reads: its output, or
    x itself in a model without norms before attention and the MLP (OLMo 2)."""
    if not cfg.components.pre_norm:
        return x
    _norm(cfg, x, blk[prefix + ".w"], blk[prefix + ".b"],
          tuple(named(n) for n in cfg.components.norm.stat_names(prefix)), named(prefix + "_out"), stream)
    return named(prefix + "_out")


def _post_norm(cfg: Config, blk: dict, w: str, out, normed, resid_in, resid_out, stream) -> None:
    """With norms after attention and the MLP (Gemma 2/3, OLMo 2): normed = RMSNorm(out), and the
    residual adds it instead (resid_out = resid_in + normed)."""
    post = cfg.components.post_norm
    scale = cuda.device_array(out.shape[0], np.float32, stream=stream)      # [n] not kept
    R.launch_rms_norm(out, blk[w], scale, normed, post.eps, stream=stream)  # [n, d_model]
    EW.launch_add(resid_in, normed, resid_out, stream=stream)               # [n, d_model]


def _add_residual(cfg: Config, blk: dict, w: str, out, named, resid_in, resid_out, stream) -> None:
    """resid_out = resid_in + out, or + RMSNorm(out) with norms after (mlp_out_normed)."""
    if cfg.components.post_norm is None:
        EW.launch_add(resid_in, out, resid_out, stream=stream)              # [n, d_model]
    else:
        _post_norm(cfg, blk, w, out, named("mlp_out_normed"), resid_in, resid_out, stream)


def _gate(cfg: Config):
    """The gated MLP's kernel: SiLU(gate) · up (SwiGLU) or GELU(gate) · up (GeGLU)."""
    return EW.launch_gelu_gate if isinstance(cfg.components.mlp, GeGLU) else EW.launch_silu_gate


def _experts(cfg: Config, blk: dict, x, d, stream) -> None:
    """A mixture of experts on rows >= p (`d(name)`) of x, what ln2 gave: the router, each expert's
    SwiGLU over every row (kept only where a row chose it), the weighted sum and the residual
    (components.Experts)."""
    E, k, dm, dmlp = cfg.n_experts, cfg.experts_per_token, cfg.d_model, cfg.d_mlp
    n = x.shape[0]
    zeros = lambda m: cuda.to_device(np.zeros(m, np.float32), stream=stream)   # noqa: E731 - no biases
    P.launch_matmul_bias(x, blk["moe.W_router"], zeros(E), d("router_logits"), stream=stream)   # [n, E]
    chosen = cuda.device_array((n, k), np.int32, stream=stream)            # [n, k] not kept: expert_weights says it
    X.launch_route(d("router_logits"), cfg.components.experts.normalise, d("router_probs"), d("expert_weights"),
                   chosen, stream=stream)                                   # [n, E] x2, [n, k]
    gate, up = (cuda.device_array((n, dmlp), np.float32, stream=stream) for _ in range(2))   # [n, d_mlp] each
    out_e = cuda.device_array((n, dm), np.float32, stream=stream)          # [n, d_model] one expert's output
    b_mlp, b_dm = zeros(dmlp), zeros(dm)
    for e in range(E):
        P.launch_matmul_bias(x, blk["moe.W_gate"][e], b_mlp, gate, stream=stream)     # [n, d_mlp]
        P.launch_matmul_bias(x, blk["moe.W_in"][e], b_mlp, up, stream=stream)         # [n, d_mlp]
        EW.launch_silu_gate(gate, up, gate, stream=stream)                            # SiLU(gate) ⊙ up, in place
        P.launch_matmul_bias(gate, blk["moe.W_out"][e], b_dm, out_e, stream=stream)   # [n, d_model]
        X.launch_scatter_expert(out_e, chosen, e, d("expert_out"), stream=stream)     # its rows' slots
    X.launch_mix(d("expert_out"), d("expert_weights"), chosen, d("resid_mid"), d("mlp_out"), d("resid_post"),
                 stream=stream)                                             # [n, d_model] x2


def _norm(cfg: Config, x, w, b, stats, out, stream=0) -> None:
    """The config's norm on the device: LayerNorm (stats = mean, var) or RMSNorm (stats = scale)."""
    if isinstance(cfg.components.norm, RMSNorm):
        R.launch_rms_norm(x, w, stats[0], out, cfg.norm_eps, stream=stream)                # [T], [T, d_model]
    else:
        R.launch_layer_norm(x, w, b, stats[0], stats[1], out, cfg.norm_eps, stream=stream)  # [T], [T], [T, d_model]


def _empty_output(cfg: Config, weights: Weights, tokens: np.ndarray) -> BackendOutput:
    """T = 0: every name with its shape and no kernel launched."""
    out: dict = {"tokens": tokens}
    for name in global_names(cfg):
        if name not in ("tokens", "logits"):
            out[name] = np.zeros(trace_shape(name, cfg, 0), np.float32)
    for layer in range(cfg.n_layers):
        for name in layer_names(cfg):
            out[(name, layer)] = np.zeros(trace_shape(name, cfg, 0), np.float32)
    return BackendOutput(out, lambda rows: np.zeros((0, cfg.d_vocab), np.float32), {"total": 0.0})
