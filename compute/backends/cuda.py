"""`cuda`: every stage of the block as a Numba CUDA kernel (cuda_kernels/), driven from here.

Weights go to the device once per Weights object (`weights.uid`) and stay there until other
weights arrive. Each layer is computed into device buffers that every layer and every run of the
same size reuse, then copied back, one copy per result (q, k and v share one). `logits` are
computed on the device on demand.

Any CUDA failure (no driver, compiler or launch error, out of memory) is raised as
BackendUnavailable, which `forward` turns into a CPU run with a notice. Under numba's simulator
(NUMBA_ENABLE_CUDASIM=1) the backend runs, slowly, and calls itself "CUDA (simulated)"; "auto"
never picks it (`on_real_gpu`).
"""
from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
from numba import cuda

from cuda_kernels import SIMULATOR
from cuda_kernels import elementwise as EW
from cuda_kernels import products as P
from cuda_kernels import rows as R

from .. import memory, progress
from ..config import Config
from ..names import GLOBAL_NAMES, LAYER_NAMES, trace_shape
from ..weights import Weights
from .base import Backend, BackendOutput, BackendUnavailable, Stopwatch
from .pool import BufferPool

_BLOCK_WEIGHTS = ("ln1.w", "ln1.b", "attn.W_O", "attn.b_O", "ln2.w", "ln2.b",
                  "mlp.W_in", "mlp.b_in", "mlp.W_out", "mlp.b_out")
# Per-layer results with a device buffer of their own Trace shape (q, k, v live in one qkv buffer,
# z_concat is z's memory, resid_pre/resid_post alternate between two buffers).
_BUFFERED = ("ln1_mean", "ln1_var", "ln1_out", "attn_scores_raw", "attn_scores_scaled",
             "attn_scores", "pattern", "z", "result", "attn_out", "resid_mid",
             "ln2_mean", "ln2_var", "ln2_out", "mlp_pre", "mlp_post", "mlp_out")


def cuda_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean "CUDA cannot do this here" rather than a wrong input."""
    from numba.core.errors import NumbaError  # compiler errors (no NVVM, ...)
    from numba.cuda.cudadrv import driver, error

    names = ("CudaSupportError", "CudaDriverError", "CudaRuntimeError", "CudaAPIError",
             "NvvmError", "NvvmSupportError", "LinkerError", "DeadMemoryError")
    found = {getattr(mod, n) for mod in (error, driver) for n in names if hasattr(mod, n)}
    return (NumbaError, MemoryError, *sorted(found, key=lambda c: c.__name__))


def describe_failure(exc: BaseException) -> str:
    """A one-line reason for the notice: 'out of GPU memory (...)' or 'CudaAPIError: ...'."""
    text = " ".join(str(exc).split())[:300]
    if "OUT_OF_MEMORY" in text.upper().replace(" ", "_") or isinstance(exc, MemoryError):
        return f"out of GPU memory ({text})"
    return f"{type(exc).__name__}: {text}"


class _DeviceWeights:
    """Device copies of one Weights object, in the layouts the kernels read."""

    def __init__(self, cfg: Config, weights: Weights):
        up = cuda.to_device
        self.uid = weights.uid
        self.W_E = up(weights["embed.W_E"])                                 # [d_vocab, d_model]
        self.W_pos = up(weights["pos_embed.W_pos"])                         # [n_ctx, d_model]
        self.blocks = []
        for layer in range(cfg.n_layers):
            w = weights.block(layer)
            blk = {short: up(w[short]) for short in _BLOCK_WEIGHTS}
            blk["W_QKV"] = up(np.stack([w[f"attn.W_{p}"] for p in "QKV"]))  # [3, H, d_model, d_head]
            blk["b_QKV"] = up(np.stack([w[f"attn.b_{p}"] for p in "QKV"]))  # [3, H, d_head]
            self.blocks.append(blk)
        self.ln_final_w = up(weights["ln_final.w"])                         # [d_model]
        self.ln_final_b = up(weights["ln_final.b"])                         # [d_model]


def _workspace(cfg: Config, T: int) -> SimpleNamespace:
    """Device buffers for one layer's intermediates (and the model's ends) at T tokens."""
    new = lambda shape: cuda.device_array(shape, np.float32)              # noqa: E731
    ws = {name: new(trace_shape(name, cfg, T)) for name in _BUFFERED}
    ws["qkv"] = new((3, T, cfg.n_heads, cfg.d_head))                      # [3, T, H, d_head]
    ws["resid"] = (new((T, cfg.d_model)), new((T, cfg.d_model)))         # resid_pre / resid_post
    ws["embed"] = new((T, cfg.d_model))                                   # [T, d_model]
    ws["ln_final_out"] = new((T, cfg.d_model))                            # [T, d_model]
    ws["ln_final_stats"] = (new((T,)), new((T,)))                         # mean, var (not in the Trace)
    return SimpleNamespace(**ws)


def workspace_bytes(cfg: Config, T: int) -> int:
    """Device memory of `_workspace(cfg, T)`."""
    per_layer = sum(int(np.prod(trace_shape(n, cfg, T))) for n in _BUFFERED)
    return 4 * (per_layer + 3 * T * cfg.d_concat + 4 * T * cfg.d_model + 2 * T)


def weights_bytes(cfg: Config) -> int:
    return memory.weight_count(cfg) * 4


class CudaBackend(Backend):
    name = "cuda"
    dtype = np.dtype(np.float32)

    def __init__(self) -> None:
        self._lock = threading.RLock()               # one computation on the device at a time
        self._weights: _DeviceWeights | None = None  # the newest weights, kept on the device
        self._ws: SimpleNamespace | None = None
        self._ws_key: tuple | None = None
        self._available: tuple[bool, str] | None = None
        self._errors = cuda_errors()
        self.uploads = 0                             # how often weights went to the device
        self.pool = BufferPool(max_bytes=min(4 << 30, memory.budget_bytes() // 4))
        memory.register_reclaimer(self.pool.release)

    # -- where we are ----------------------------------------------------------------------------
    def available(self) -> tuple[bool, str]:
        if self._available is None:
            self._available = self._probe()
        return self._available

    @staticmethod
    def _probe() -> tuple[bool, str]:
        if SIMULATOR:
            return True, ""
        try:
            if cuda.is_available():
                return True, ""
            from numba.cuda.cudadrv import driver, nvvm

            why = driver.driver.initialization_error
            if why:
                return False, "no usable CUDA driver: " + " ".join(str(why).split())
            if not nvvm.is_available():
                return False, "the CUDA compiler library (NVVM) is missing: pip install \"numba-cuda[cu13]\""
            return False, "no CUDA GPU found"
        except Exception as exc:  # noqa: BLE001 - whatever breaks the probe, CUDA is not usable
            return False, f"CUDA cannot be initialised: {exc}"

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
        return f"cuda (numba, {name})"

    def warm_up(self) -> None:
        """Compile every kernel (or load them from numba's cache) with a tiny model."""
        if SIMULATOR or not self.available()[0]:
            return
        cfg = Config(d_model=8, n_heads=2, d_head=4, n_ctx=4, d_vocab=8, n_layers=1)
        tiny = Weights.random(cfg, seed=0)
        try:
            self.run(cfg, tiny, np.arange(3), np.ones((3, 3), bool)).logits_fn(slice(None))
        except BackendUnavailable:
            pass
        with self._lock:
            if self._weights is not None and self._weights.uid == tiny.uid:
                self._weights = None

    def release(self) -> None:
        """Free the device weights and buffers (the next run uploads again)."""
        with self._lock:
            self._weights, self._ws, self._ws_key = None, None, None
            if not SIMULATOR:
                try:
                    cuda.current_context().deallocations.clear()
                except Exception:  # noqa: BLE001 - freeing is best effort
                    pass

    # -- device state ----------------------------------------------------------------------------
    def _device_weights(self, cfg: Config, weights: Weights) -> _DeviceWeights:
        if self._weights is None or self._weights.uid != weights.uid:
            self._weights = None                     # free the old copy before the new one
            self._check_device_memory(weights_bytes(cfg), "the weights")
            self._weights = _DeviceWeights(cfg, weights)
            self.uploads += 1
        return self._weights

    def _workspace(self, cfg: Config, T: int) -> SimpleNamespace:
        key = (T, cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_mlp)
        if self._ws_key != key:
            self._ws, self._ws_key = None, None
            self._check_device_memory(workspace_bytes(cfg, T), f"one layer at T={T}")
            self._ws, self._ws_key = _workspace(cfg, T), key
        return self._ws

    @staticmethod
    def _check_device_memory(need: int, what: str) -> None:
        """BackendUnavailable with the numbers when the GPU has too little free memory."""
        if SIMULATOR:
            return
        ctx = cuda.current_context()
        ctx.deallocations.clear()                    # let go of buffers freed on the Python side
        free, total = ctx.get_memory_info()
        if need > free:
            raise BackendUnavailable(f"out of GPU memory: {what} need {memory.fmt_bytes(need)}, "
                                     f"{memory.fmt_bytes(free)} free of {memory.fmt_bytes(total)}")

    # -- running ---------------------------------------------------------------------------------
    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None) -> BackendOutput:
        if len(tokens) == 0:
            return _empty_output(cfg, weights, tokens)
        with self._lock:
            try:
                return self._run(cfg, weights, tokens, attn_mask, copy_back=True)
            except BackendUnavailable:
                self.release()
                raise
            except self._errors as exc:
                self.release()
                raise BackendUnavailable(describe_failure(exc)) from exc

    def run_device(self, cfg: Config, weights: Weights, tokens, attn_mask=None) -> SimpleNamespace:
        """Every kernel of a forward pass with nothing copied back (what benchmarks time): the
        device buffers, holding the last layer's intermediates. Returns after the GPU is done."""
        ids = np.ascontiguousarray(tokens, dtype=np.int64)                  # [T]
        with self._lock:
            self._run(cfg, weights, ids, attn_mask, copy_back=False)
            return self._ws

    def _run(self, cfg, weights, tokens, attn_mask, copy_back: bool) -> BackendOutput | None:
        watch = Stopwatch(kernels=0.0, copy=0.0)
        lap = watch.lap
        T, L = len(tokens), cfg.n_layers
        uploads = self.uploads
        dw = self._device_weights(cfg, weights)
        ws = self._workspace(cfg, T)
        tokens_d = cuda.to_device(tokens)                                   # [T] int64
        has_mask = attn_mask is not None
        mask_d = cuda.to_device(attn_mask if has_mask else np.ones((1, 1), np.bool_))  # [T, T] bool
        if self.uploads != uploads:
            lap("upload")
        fetch = self._fetch
        out: dict = {"tokens": tokens}

        EW.launch_embed(tokens_d, dw.W_E, dw.W_pos, ws.embed, ws.resid[0])  # [T, d_model] x2
        if copy_back:
            out["embed"] = fetch(ws.embed)                                  # [T, d_model]
            out["pos_embed"] = weights["pos_embed.W_pos"][:T]               # [T, d_model] (exact: a view)
            resid_pre_host = fetch(ws.resid[0])                             # [T, d_model]
        for layer in range(L):
            progress.report(f"layer {layer}", layer / max(L, 1))           # may raise Cancelled
            resid_pre, resid_post = ws.resid[layer % 2], ws.resid[(layer + 1) % 2]
            self._block(cfg, dw.blocks[layer], ws, resid_pre, resid_post, mask_d, has_mask)
            if copy_back:
                cuda.synchronize()
                lap("kernels")
                resid_pre_host = self._fetch_layer(ws, layer, resid_pre_host, resid_post, out)
                lap("copy")
        R.launch_layer_norm(ws.resid[L % 2], dw.ln_final_w, dw.ln_final_b, *ws.ln_final_stats,
                            ws.ln_final_out)                                # [T, d_model]
        cuda.synchronize()
        lap("kernels")
        if not copy_back:
            return None
        ln_final_out = out["ln_final_out"] = fetch(ws.ln_final_out)         # [T, d_model]
        lap("copy")
        return BackendOutput(out, self._logits_fn(cfg, weights, ln_final_out), watch.finish())

    @staticmethod
    def _block(cfg: Config, blk: dict, ws: SimpleNamespace, resid_pre, resid_post, mask, has_mask) -> None:
        """One transformer block, launch by launch, in the order of DESIGN.md section 3."""
        R.launch_layer_norm(resid_pre, blk["ln1.w"], blk["ln1.b"],
                            ws.ln1_mean, ws.ln1_var, ws.ln1_out)             # [T], [T], [T, d_model]
        P.launch_project_qkv(ws.ln1_out, blk["W_QKV"], blk["b_QKV"], ws.qkv)  # [3, T, H, d_head]
        q, k, v = ws.qkv[0], ws.qkv[1], ws.qkv[2]                            # [T, H, d_head] views
        P.launch_scores(q, k, cfg.causal, mask, has_mask, cfg.scale_scores, ws.attn_scores_raw,
                        ws.attn_scores_scaled, ws.attn_scores)              # [H, T, T] x3
        R.launch_softmax_rows(ws.attn_scores, cfg.causal, ws.pattern)       # [H, T, T]
        P.launch_weighted_sum(ws.pattern, v, cfg.causal, ws.z)              # [T, H, d_head]
        P.launch_head_results(ws.z, blk["attn.W_O"], ws.result)             # [T, H, d_model]
        EW.launch_sum_heads(ws.result, blk["attn.b_O"], ws.attn_out)        # [T, d_model]
        EW.launch_add(resid_pre, ws.attn_out, ws.resid_mid)                 # [T, d_model]
        R.launch_layer_norm(ws.resid_mid, blk["ln2.w"], blk["ln2.b"],
                            ws.ln2_mean, ws.ln2_var, ws.ln2_out)             # [T], [T], [T, d_model]
        P.launch_matmul_bias(ws.ln2_out, blk["mlp.W_in"], blk["mlp.b_in"], ws.mlp_pre)     # [T, d_mlp]
        EW.launch_gelu(ws.mlp_pre, ws.mlp_post)                                             # [T, d_mlp]
        P.launch_matmul_bias(ws.mlp_post, blk["mlp.W_out"], blk["mlp.b_out"], ws.mlp_out)  # [T, d_model]
        EW.launch_add(ws.resid_mid, ws.mlp_out, resid_post)                 # [T, d_model]

    def _fetch(self, device_array) -> np.ndarray:
        """One copy device -> host, into a recycled buffer when one is free."""
        host = self.pool.empty(device_array.shape)
        device_array.copy_to_host(host)
        return host

    def _fetch_layer(self, ws, layer: int, resid_pre_host, resid_post, out: dict) -> np.ndarray:
        """Copy one layer's results into `out`; returns resid_post (the next layer's resid_pre)."""
        fetch = self._fetch
        T, H, d_head = ws.z.shape
        got = {name: fetch(getattr(ws, name)) for name in _BUFFERED}
        qkv = fetch(ws.qkv)                                                 # [3, T, H, d_head]
        got["q"], got["k"], got["v"] = qkv[0], qkv[1], qkv[2]               # [T, H, d_head] views
        got["z_concat"] = got["z"].reshape(T, H * d_head)                   # [T, H*d_head] view
        got["resid_pre"] = resid_pre_host
        got["resid_post"] = fetch(resid_post)                               # [T, d_model]
        for name in LAYER_NAMES:
            out[(name, layer)] = got[name]
        return got["resid_post"]

    def _logits_fn(self, cfg: Config, weights: Weights, ln_final_out: np.ndarray):
        W_E = weights["embed.W_E"]                                          # [d_vocab, d_model]

        def logits_fn(rows):
            x = np.ascontiguousarray(ln_final_out[rows])                    # [R, d_model]
            if x.shape[0] == 0:
                return np.zeros((0, cfg.d_vocab), np.float32)               # [0, d_vocab]
            # On the device only when it is free and still holds these weights: a view asking for
            # an old trace's logits must neither wait for a running forward pass nor evict the
            # weights it uses (one row, the common request, is cheap on the CPU anyway).
            if self._lock.acquire(blocking=False):
                try:
                    if self._weights is not None and self._weights.uid == weights.uid:
                        dw = self._weights
                        logits = cuda.device_array((x.shape[0], cfg.d_vocab), np.float32)  # [R, d_vocab]
                        P.launch_unembed(cuda.to_device(x), dw.W_E, logits)
                        return logits.copy_to_host()                        # [R, d_vocab]
                except (BackendUnavailable, *self._errors):
                    pass
                finally:
                    self._lock.release()
            return x @ W_E.T                                                # [R, d_vocab] on the CPU

        return logits_fn


def _empty_output(cfg: Config, weights: Weights, tokens: np.ndarray) -> BackendOutput:
    """T = 0: every name with its shape and no kernel launched."""
    out: dict = {"tokens": tokens}
    for name in GLOBAL_NAMES:
        if name not in ("tokens", "logits"):
            out[name] = np.zeros(trace_shape(name, cfg, 0), np.float32)
    for layer in range(cfg.n_layers):
        for name in LAYER_NAMES:
            out[(name, layer)] = np.zeros(trace_shape(name, cfg, 0), np.float32)
    return BackendOutput(out, lambda rows: np.zeros((0, cfg.d_vocab), np.float32), {"total": 0.0})
