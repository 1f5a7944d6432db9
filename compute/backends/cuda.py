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
from ..names import global_names, layer_names, trace_shape
from ..weights import Weights
from .base import Backend, BackendOutput, BackendUnavailable, Stopwatch
from .pool import BufferPool

# Per-layer results with a device buffer of their own Trace shape (z_concat is z's memory,
# resid_pre/resid_post alternate between two buffers); which of them a model has: buffered_names.
_BUFFERED = ("ln1_mean", "ln1_var", "ln1_scale", "ln1_out", "q", "k", "v", "rot_q", "rot_k",
             "attn_scores_raw", "attn_scores_scaled", "attn_scores", "pattern", "z", "result", "attn_out",
             "resid_mid", "ln2_mean", "ln2_var", "ln2_scale", "ln2_out", "mlp_pre", "mlp_pre_linear",
             "mlp_post", "mlp_out")


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


def describe_failure(exc: BaseException) -> str:
    """A one-line reason for the notice: 'out of GPU memory (...)' or 'CudaAPIError: ...'."""
    text = " ".join(str(exc).split())[:300]
    if "OUT_OF_MEMORY" in text.upper().replace(" ", "_") or isinstance(exc, MemoryError):
        return f"out of GPU memory ({text})"
    return f"{type(exc).__name__}: {text}"


class _DeviceWeights:
    """Device copies of one Weights object, in the layouts the kernels read; zeros for the biases
    a model does not have, so every kernel has one form."""

    def __init__(self, cfg: Config, weights: Weights):
        up = cuda.to_device
        H, KV, dh, dm = cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
        zeros = np.zeros
        self.uid = weights.uid
        self.W_E = up(weights["embed.W_E"])                                 # [d_vocab, d_model]
        learned = cfg.positions == "learned"
        self.W_pos = up(weights["pos_embed.W_pos"] if learned else zeros((1, 1), np.float32))  # [n_ctx, d_model]
        self.blocks = []
        for layer in range(cfg.n_layers):
            w = weights.block(layer)
            blk = {short: up(w[short]) for short in ("ln1.w", "attn.W_O", "ln2.w", "mlp.W_in", "mlp.W_out")}
            if cfg.mlp == "swiglu":
                blk["mlp.W_gate"] = up(w["mlp.W_gate"])                     # [d_model, d_mlp]
            for short, n in (("ln1.b", dm), ("ln2.b", dm), ("attn.b_O", dm), ("mlp.b_in", cfg.d_mlp),
                             ("mlp.b_out", dm), ("mlp.b_gate", cfg.d_mlp)):
                blk[short] = up(w[short] if short in w else zeros(n, np.float32))
            # Q's H heads, then K's and V's KV heads each: [H + 2 KV, d_model, d_head]
            blk["W_QKV"] = up(np.concatenate([w["attn.W_Q"], w["attn.W_K"], w["attn.W_V"]]))
            biases = [w[f"attn.b_{p}"] if cfg.attn_bias else zeros((n, dh), np.float32)
                      for p, n in (("Q", H), ("K", KV), ("V", KV))]
            blk["b_QKV"] = up(np.concatenate(biases))                      # [H + 2 KV, d_head]
            self.blocks.append(blk)
        self.ln_final_w = up(weights["ln_final.w"])                         # [d_model]
        self.ln_final_b = up(weights["ln_final.b"] if "ln_final.b" in weights else zeros(dm, np.float32))
        self.W_U = None if cfg.tied_embeddings else up(weights["unembed.W_U"])   # [d_model, d_vocab]
        self.no_bias_vocab = None if cfg.tied_embeddings else up(zeros(cfg.d_vocab, np.float32))
        if cfg.positions == "rope":
            from .cpu import rope_tables

            cos, sin = rope_tables(cfg.n_ctx, cfg.rotary_dim, cfg.rope_theta)  # [n_ctx, r/2] each
            self.cos, self.sin = up(cos), up(sin)


def _workspace(cfg: Config, T: int) -> SimpleNamespace:
    """Device buffers for one layer's intermediates (and the model's ends) at T tokens."""
    new = lambda shape: cuda.device_array(shape, np.float32)              # noqa: E731
    ws = {name: new(trace_shape(name, cfg, T)) for name in buffered_names(cfg)}
    ws["resid"] = (new((T, cfg.d_model)), new((T, cfg.d_model)))         # resid_pre / resid_post
    ws["embed"] = new((T, cfg.d_model))                                   # [T, d_model]
    ws["ln_final_out"] = new((T, cfg.d_model))                            # [T, d_model]
    ws["ln_final_stats"] = (new((T,)), new((T,)))                         # mean, var or scale (not in the Trace)
    return SimpleNamespace(**ws)


def workspace_bytes(cfg: Config, T: int) -> int:
    """Device memory of `_workspace(cfg, T)`."""
    per_layer = sum(int(np.prod(trace_shape(n, cfg, T))) for n in buffered_names(cfg))
    return 4 * (per_layer + 4 * T * cfg.d_model + 2 * T)


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
        key = (T, cfg.shape_key())
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

        learned = cfg.positions == "learned"
        EW.launch_embed(tokens_d, dw.W_E, dw.W_pos, ws.embed, ws.resid[0], learned)  # [T, d_model] x2
        if copy_back:
            out["embed"] = fetch(ws.embed)                                  # [T, d_model]
            if learned:
                out["pos_embed"] = weights["pos_embed.W_pos"][:T]           # [T, d_model] (exact: a view)
            resid_pre_host = out["embed"] if not learned else fetch(ws.resid[0])   # [T, d_model]
        for layer in range(L):
            progress.report(f"layer {layer}", layer / max(L, 1))           # may raise Cancelled
            resid_pre, resid_post = ws.resid[layer % 2], ws.resid[(layer + 1) % 2]
            self._block(cfg, dw, layer, ws, resid_pre, resid_post, mask_d, has_mask)
            if copy_back:
                cuda.synchronize()
                lap("kernels")
                resid_pre_host = self._fetch_layer(cfg, ws, layer, resid_pre_host, resid_post, out)
                lap("copy")
        _norm(cfg, ws.resid[L % 2], dw.ln_final_w, dw.ln_final_b, ws.ln_final_stats, ws.ln_final_out)
        cuda.synchronize()
        lap("kernels")
        if not copy_back:
            return None
        ln_final_out = out["ln_final_out"] = fetch(ws.ln_final_out)         # [T, d_model]
        lap("copy")
        return BackendOutput(out, self._logits_fn(cfg, weights, ln_final_out), watch.finish())

    @staticmethod
    def _block(cfg: Config, dw: _DeviceWeights, layer: int, ws: SimpleNamespace, resid_pre, resid_post, mask,
               has_mask) -> None:
        """One transformer block, launch by launch, in the order of DESIGN.md sections 3 and 8."""
        blk = dw.blocks[layer]
        window = cfg.window(layer) or 0
        rms = cfg.norm == "rmsnorm"
        _norm(cfg, resid_pre, blk["ln1.w"], blk["ln1.b"],
              (ws.ln1_scale,) if rms else (ws.ln1_mean, ws.ln1_var), ws.ln1_out)   # [T, d_model]
        P.launch_project_qkv(ws.ln1_out, blk["W_QKV"], blk["b_QKV"], ws.q, ws.k, ws.v)  # [T, H|KV, d_head]
        q, k = ws.q, ws.k
        if cfg.positions == "rope":
            EW.launch_rope(ws.q, dw.cos, dw.sin, ws.rot_q)                  # [T, H, d_head]
            EW.launch_rope(ws.k, dw.cos, dw.sin, ws.rot_k)                  # [T, KV, d_head]
            q, k = ws.rot_q, ws.rot_k                                       # the scores use the rotated ones
        P.launch_scores(q, k, cfg.causal, mask, has_mask, cfg.scale_scores, ws.attn_scores_raw,
                        ws.attn_scores_scaled, ws.attn_scores, window)      # [H, T, T] x3
        R.launch_softmax_rows(ws.attn_scores, cfg.causal, ws.pattern, window)   # [H, T, T]
        P.launch_weighted_sum(ws.pattern, ws.v, cfg.causal, ws.z, window)   # [T, H, d_head]
        P.launch_head_results(ws.z, blk["attn.W_O"], ws.result)             # [T, H, d_model]
        EW.launch_sum_heads(ws.result, blk["attn.b_O"], ws.attn_out)        # [T, d_model]
        EW.launch_add(resid_pre, ws.attn_out, ws.resid_mid)                 # [T, d_model]
        _norm(cfg, ws.resid_mid, blk["ln2.w"], blk["ln2.b"],
              (ws.ln2_scale,) if rms else (ws.ln2_mean, ws.ln2_var), ws.ln2_out)   # [T, d_model]
        if cfg.mlp == "swiglu":
            P.launch_matmul_bias(ws.ln2_out, blk["mlp.W_gate"], blk["mlp.b_gate"], ws.mlp_pre)      # [T, d_mlp]
            P.launch_matmul_bias(ws.ln2_out, blk["mlp.W_in"], blk["mlp.b_in"], ws.mlp_pre_linear)   # [T, d_mlp]
            EW.launch_silu_gate(ws.mlp_pre, ws.mlp_pre_linear, ws.mlp_post)                       # [T, d_mlp]
        else:
            P.launch_matmul_bias(ws.ln2_out, blk["mlp.W_in"], blk["mlp.b_in"], ws.mlp_pre)         # [T, d_mlp]
            EW.launch_gelu(ws.mlp_pre, ws.mlp_post)                                                 # [T, d_mlp]
        P.launch_matmul_bias(ws.mlp_post, blk["mlp.W_out"], blk["mlp.b_out"], ws.mlp_out)  # [T, d_model]
        EW.launch_add(ws.resid_mid, ws.mlp_out, resid_post)                 # [T, d_model]

    def _fetch(self, device_array) -> np.ndarray:
        """One copy device -> host, into a recycled buffer when one is free."""
        host = self.pool.empty(device_array.shape)
        device_array.copy_to_host(host)
        return host

    def _fetch_layer(self, cfg: Config, ws, layer: int, resid_pre_host, resid_post, out: dict) -> np.ndarray:
        """Copy one layer's results into `out`; returns resid_post (the next layer's resid_pre)."""
        fetch = self._fetch
        T, H, d_head = ws.z.shape
        got = {name: fetch(getattr(ws, name)) for name in buffered_names(cfg)}
        got["z_concat"] = got["z"].reshape(T, H * d_head)                   # [T, H*d_head] view
        got["resid_pre"] = resid_pre_host
        got["resid_post"] = fetch(resid_post)                               # [T, d_model]
        for name in layer_names(cfg):
            out[(name, layer)] = got[name]
        return got["resid_post"]

    def _logits_fn(self, cfg: Config, weights: Weights, ln_final_out: np.ndarray):
        unembed = weights["embed.W_E"].T if cfg.tied_embeddings else weights["unembed.W_U"]   # [d_model, d_vocab]

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
                        if dw.W_U is None:
                            P.launch_unembed(cuda.to_device(x), dw.W_E, logits)           # x @ W_Eᵀ (tied)
                        else:
                            P.launch_matmul_bias(cuda.to_device(x), dw.W_U, dw.no_bias_vocab, logits)
                        return logits.copy_to_host()                        # [R, d_vocab]
                except (BackendUnavailable, *self._errors):
                    pass
                finally:
                    self._lock.release()
            return x @ unembed                                              # [R, d_vocab] on the CPU

        return logits_fn


def _norm(cfg: Config, x, w, b, stats, out) -> None:
    """The config's norm on the device: LayerNorm (stats = mean, var) or RMSNorm (stats = scale)."""
    if cfg.norm == "rmsnorm":
        R.launch_rms_norm(x, w, stats[0], out, cfg.norm_eps)                # [T], [T, d_model]
    else:
        R.launch_layer_norm(x, w, b, stats[0], stats[1], out, cfg.norm_eps)  # [T], [T], [T, d_model]


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
