"""Numba CPU kernels for the row-wise steps of the `cpu` backend (float32 data, float64 sums).

Matrix products stay with BLAS; what is here is memory-bound work fused into one pass per row.
`cache=True` writes compiled code next to this file (or to NUMBA_CACHE_DIR where it is read-only).
"""
from __future__ import annotations

import math
import os
import types

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange
from numba import types as nbtypes
from numba.extending import intrinsic

# numba's OpenMP layer leaves its threads spinning after each kernel, and OpenBLAS's threads spin
# after each product: on a 2-core laptop the two pools then steal each other's cores (measured
# here: 3 ms per tiny kernel instead of 0.1 ms). The workqueue layer's threads sleep when idle.
# It does not allow concurrent or nested entry, which cpu.py's lock already rules out.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"

LN_EPS = 1e-5
GELU_C = math.sqrt(2.0 / math.pi)
# Below this many elements a kernel runs on the calling thread: waking the pool costs more.
PARALLEL_MIN_SIZE = 1 << 16


# exp for float32 that LLVM can vectorise (libm's expf is a scalar call; there is no SVML here):
# Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a degree-7 polynomial for e^r (Cephes expf
# coefficients), and 2^n built from its exponent bits. Max relative error 8.4e-8 (~1.4 ulp),
# checked against float64 in tests/compute/test_cpu_kernels.py.
_LOG2E = np.float32(1.4426950408889634)
_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(-2.12194440e-4)


@intrinsic
def as_float32(typingctx, bits):
    """The float32 whose bit pattern is the int32 `bits` (a register move; vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return nbtypes.float32(nbtypes.int32), codegen


@intrinsic
def as_int32(typingctx, value):
    """The bit pattern of the float32 `value` as an int32."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return nbtypes.int32(nbtypes.float32), codegen


@njit(inline="always", fastmath={"contract"}, cache=True)
def exp32(x):  # pragma: no cover - compiled
    """e^x in float32; 0 below -87 (where e^x is below float32's normal range). Selects instead
    of min/max and np.floor instead of math.floor keep it vectorisable inside a loop."""
    c = x if x > np.float32(-87.0) else np.float32(-87.0)
    c = c if c < np.float32(88.0) else np.float32(88.0)
    n = np.floor(c * _LOG2E + np.float32(0.5))
    r = c - n * _LN2_HI - n * _LN2_LO
    p = np.float32(1.9875691500e-4)
    p = p * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    p = p * r * r + r + np.float32(1.0)
    two_n = as_float32((np.int32(n) + np.int32(127)) << np.int32(23))
    e = p * two_n if x >= np.float32(-87.0) else np.float32(0.0)
    return e if x == x else x                        # NaN stays NaN


# A float32 max over a row does not vectorise in numba (its float max is a scalar select), an int32
# max does: this map is monotonic (floats order as their keys do; -0.0 just below +0.0) and its
# own inverse. A NaN with its sign bit clear sorts above +inf (a NaN max, as numpy gives).
@njit(inline="always", cache=True)
def order_key(bits):  # pragma: no cover - compiled
    """Order-preserving int32 key of a float32 given by its bits (and the inverse map)."""
    return bits ^ ((bits >> np.int32(31)) & np.int32(0x7FFFFFFF))


@njit(inline="always", cache=True, error_model="numpy")
def soft_cap(s, cap):  # pragma: no cover - compiled
    """cap·tanh(s / cap) in float32: one score soft-capped (Gemma 2), the same in every kernel."""
    return np.float32(cap * np.tanh(s / cap))


class _Kernel:
    """A kernel compiled twice: parallel for large arrays, serial (same code) for small ones."""

    def __init__(self, fn, fastmath):
        # nogil: the app computes on a worker thread and its UI thread must keep running.
        self.parallel = njit(parallel=True, cache=True, fastmath=fastmath, nogil=True, error_model="numpy")(fn)
        # A renamed twin, so the two versions get separate on-disk cache entries.
        twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial",
                                  fn.__defaults__, fn.__closure__)
        twin.__qualname__ = fn.__qualname__ + "_serial"
        # error_model="numpy" (as parallel loops have): no ZeroDivisionError check per float
        # division, which kept the serial GELU from vectorising (20 ms -> see test_cpu_internals).
        self.serial = njit(parallel=False, cache=True, fastmath=fastmath, nogil=True, error_model="numpy")(twin)
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, first, *args):
        impl = self.parallel if first.size >= PARALLEL_MIN_SIZE else self.serial
        return impl(first, *args)


def kernel(fastmath=False):
    return lambda fn: _Kernel(fn, fastmath)


# Reassociation lets LLVM vectorise the two row sums (1.6 -> 0.3 ms at T=1024, d_model=768).
@kernel(fastmath={"reassoc", "contract", "nsz"})
def layer_norm(x, w, b, mean_out, var_out, out, eps):  # pragma: no cover - compiled
    """out[t] = (x[t] - mean[t]) / sqrt(var[t] + eps) * w + b, biased variance, per row t."""
    T, d = x.shape
    for t in prange(T):
        s = 0.0
        for c in range(d):
            s += x[t, c]
        mean = s / d
        ss = 0.0
        for c in range(d):
            dev = x[t, c] - mean
            ss += dev * dev
        var = ss / d
        inv = 1.0 / math.sqrt(var + eps)
        mean_out[t] = mean
        var_out[t] = var
        mean32, inv32 = np.float32(mean), np.float32(inv)  # float32 from here: a vectorised pass
        for c in range(d):
            out[t, c] = (x[t, c] - mean32) * inv32 * w[c] + b[c]


@kernel(fastmath={"reassoc", "contract", "nsz"})
def rms_norm(x, w, scale_out, out, eps):  # pragma: no cover - compiled
    """scale[t] = sqrt(mean(x[t]²) + eps); out[t] = x[t] / scale[t] * w (RMSNorm: no mean, no bias)."""
    T, d = x.shape
    for t in prange(T):
        ss = 0.0
        for c in range(d):
            ss += x[t, c] * x[t, c]
        scale = math.sqrt(ss / d + eps)
        scale_out[t] = scale
        inv32 = np.float32(1.0 / scale)
        for c in range(d):
            out[t, c] = x[t, c] * inv32 * w[c]


@kernel(fastmath={"contract"})
def rope(xh, cos, sin, out):  # pragma: no cover - compiled
    """Rows of head-major xh [heads, R, d_head] rotated: each pair (x_i, x_{i+r/2}) of the first
    r = 2 * cos.shape[1] dims turned by its row's angle (cos, sin [R, r/2]); dims from r on copied."""
    n, R, dh = xh.shape
    half = cos.shape[1]
    for h in prange(n):
        for t in range(R):
            x, y, c, s = xh[h, t], out[h, t], cos[t], sin[t]
            x1, x2, y1, y2 = x[:half], x[half:2 * half], y[:half], y[half:2 * half]
            for i in range(half):
                y1[i] = x1[i] * c[i] - x2[i] * s[i]
                y2[i] = x2[i] * c[i] + x1[i] * s[i]
            rest, y_rest = x[2 * half:], y[2 * half:]
            for i in range(rest.shape[0]):
                y_rest[i] = rest[i]


@kernel(fastmath={"contract"})
def bias_silu_gate(pre, b_gate, pre_linear, b_in, post):  # pragma: no cover - compiled
    """pre += b_gate (mlp_pre, the gate), pre_linear += b_in (mlp_pre_linear), then
    post = SiLU(pre) ⊙ pre_linear = pre / (1 + e^(-pre)) · pre_linear, in one pass (SwiGLU)."""
    T, d = pre.shape
    one = np.float32(1.0)
    for t in prange(T):
        for n in range(d):
            g = pre[t, n] + b_gate[n]
            u = pre_linear[t, n] + b_in[n]
            pre[t, n] = g
            pre_linear[t, n] = u
            post[t, n] = g / (one + exp32(-g)) * u


# Serial: cpu.py runs it on a block of rows of one head, on two threads, right after the product
# that made those rows (they are still in cache). Every loop starts at index 0 of a row or of a
# slice of one: a loop from a variable start keeps numba's negative-index check and runs scalar
# (measured: 4-5x slower). Reassociation vectorises the sum; no 'nnan'/'ninf': -inf is the mask.
# error_model="numpy": a row whose max is +inf or NaN (float32 overflow) gives NaN, not an exception.
@njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz"}, error_model="numpy")
def scale_mask_softmax(raw, i0, scale, cap, causal, mask, has_mask, scaled, masked, pattern,
                       window):  # pragma: no cover - compiled
    """Score rows i0, i0+1, ... of one head ([R, T] each): scaled = raw * scale; masked = scaled
    (soft-capped to cap·tanh(scaled / cap) when cap > 0: Gemma 2), or -inf where forbidden;
    pattern = softmax(masked) with the row max subtracted; a fully masked row gives zeros. With `causal`,
    keys j > i are forbidden; with a `window` W > 0, keys j <= i - W
    (and, without causal, j >= i + W) too: their exp is never computed. `mask` is indexed by the
    absolute query position i."""
    R, T = raw.shape
    neg_inf = np.float32(-np.inf)
    capped = cap > 0
    ex = np.empty(T, np.float32)                        # one row of exponentials
    for r in range(R):
        i = i0 + r
        limit = min(i + 1, T) if causal else T          # keys at or beyond `limit` are masked
        lo = 0
        if window > 0:                                  # keys before `lo` are outside the window
            lo = max(i - window + 1, 0)
            if not causal:
                limit = min(i + window, T)
        # Slices from `lo`: loops starting at index 0 of a slice vectorise (see above).
        rr, sc, ms, pt = raw[r, lo:limit], scaled[r, lo:limit], masked[r, lo:limit], pattern[r, lo:limit]
        n = limit - lo
        top = np.int32(-2147483648)                     # order key of the row max so far
        if has_mask:
            mrow = mask[i, lo:limit]
            for j in range(n):
                s = rr[j] * scale
                sc[j] = s
                if capped:
                    s = soft_cap(s, cap)
                m = s if mrow[j] else neg_inf
                ms[j] = m
                top = max(top, order_key(as_int32(m)))
        else:
            for j in range(n):
                s = rr[j] * scale                       # scaled score (no extra mask)
                sc[j] = s
                if capped:
                    s = soft_cap(s, cap)                # Gemma 2: cap·tanh(s / cap) before the mask
                ms[j] = s
                top = max(top, order_key(as_int32(s)))
        for part in range(2):                           # the forbidden keys before lo and from limit
            a, b = (0, lo) if part == 0 else (limit, T)
            rr_f, sc_f, ms_f, pt_f = raw[r, a:b], scaled[r, a:b], masked[r, a:b], pattern[r, a:b]
            for j in range(sc_f.shape[0]):
                sc_f[j] = rr_f[j] * scale
                ms_f[j] = neg_inf
                pt_f[j] = 0.0
        row_max = as_float32(order_key(top))
        if n <= 0 or row_max == neg_inf:                # nothing allowed: the row is defined as zeros
            for j in range(max(n, 0)):
                pt[j] = 0.0
            continue
        total = np.float32(0.0)
        for j in range(n):
            e = exp32(ms[j] - row_max)                  # exp(-inf) = 0 for masked keys
            ex[j] = e                                   # (an L1 row: pattern is written once)
            total += e
        inv = np.float32(1.0) / total
        for j in range(n):
            pt[j] = ex[j] * inv


@njit(cache=True, nogil=True, error_model="numpy")
def scale_mask(raw, i0, scale, cap, causal, mask, has_mask, window, out):  # pragma: no cover - compiled
    """attn_scores for score rows i0, i0+1, ... of one head ([R, T] each), as scale_mask_softmax
    makes them: out = raw * scale (soft-capped when cap > 0) where query i may see key j (causal, window,
    mask), else -inf.
    Serial (a Trace makes its score maps on the thread that reads them; cpu.py's lock is not
    taken there)."""
    R, T = raw.shape
    neg_inf = np.float32(-np.inf)
    for r in range(R):
        i = i0 + r
        limit = min(i + 1, T) if causal else T
        lo = 0
        if window > 0:
            lo = max(i - window + 1, 0)
            if not causal:
                limit = min(i + window, T)
        row, dst = raw[r], out[r]
        for j in range(dst.shape[0]):                   # from index 0: vectorises
            dst[j] = neg_inf
        if limit <= lo:
            continue
        rr, ds = row[lo:limit], dst[lo:limit]
        if has_mask:
            mrow = mask[i, lo:limit]
            for j in range(ds.shape[0]):
                s = rr[j] * scale
                if cap > 0:
                    s = soft_cap(s, cap)
                ds[j] = s if mrow[j] else neg_inf
        else:
            for j in range(ds.shape[0]):
                s = rr[j] * scale
                if cap > 0:
                    s = soft_cap(s, cap)
                ds[j] = s


@njit(cache=True, nogil=True, error_model="numpy")
def soft_cap_map(scaled, cap, out):  # pragma: no cover - compiled
    """out = cap·tanh(scaled / cap) elementwise over a [R, T] map, as scale_mask_softmax caps a score
    (a Trace's attn_scores_capped, made when read; serial like scale_mask)."""
    R, T = scaled.shape
    for r in range(R):
        src, dst = scaled[r], out[r]
        for j in range(T):
            dst[j] = soft_cap(src[j], cap)


@njit(cache=True, nogil=True, error_model="numpy")
def add_into(acc, x):  # pragma: no cover - compiled
    """acc += x for [R, d] arrays, serial (cpu.py's threads each own their accumulator)."""
    R, d = acc.shape
    for t in range(R):
        for c in range(d):
            acc[t, c] += x[t, c]


@kernel(fastmath={"contract"})
def bias_gelu_erf(pre, bias, post):  # pragma: no cover - compiled
    """pre[t] += bias (mlp_pre), then post = 0.5 pre (1 + erf(pre / sqrt 2)), the exact GELU
    (GPT-NeoX / Pythia), in one pass."""
    T, d = pre.shape
    inv_sqrt2 = np.float32(1.0 / math.sqrt(2.0))
    one = np.float32(1.0)
    for t in prange(T):
        for n in range(d):
            x = pre[t, n] + bias[n]
            pre[t, n] = x
            post[t, n] = np.float32(0.5) * x * (one + math.erf(x * inv_sqrt2))


@kernel(fastmath={"contract"})
def bias_gelu(pre, bias, post):  # pragma: no cover - compiled
    """pre[t] += bias (mlp_pre), then post = 0.5 pre (1 + tanh(sqrt(2/pi) (pre + 0.044715 pre^3))),
    GPT-2's tanh GELU, in one pass; tanh(u) = 1 - 2 / (e^(2u) + 1) with the vectorised exp32."""
    T, d = pre.shape
    c = np.float32(GELU_C)
    one, two = np.float32(1.0), np.float32(2.0)
    for t in prange(T):
        for n in range(d):
            x = pre[t, n] + bias[n]
            pre[t, n] = x
            u = c * (x + np.float32(0.044715) * x * x * x)
            tanh_u = one - two / (exp32(two * u) + one)
            post[t, n] = np.float32(0.5) * x * (one + tanh_u)


@kernel(fastmath={"contract"})
def bias_gelu_gate(pre, b_gate, pre_linear, b_in, post):  # pragma: no cover - compiled
    """pre += b_gate (mlp_pre, the gate), pre_linear += b_in (mlp_pre_linear), then
    post = GELU(pre) ⊙ pre_linear with GPT-2's tanh GELU, in one pass (GeGLU: Gemma)."""
    T, d = pre.shape
    c = np.float32(GELU_C)
    one, two = np.float32(1.0), np.float32(2.0)
    for t in prange(T):
        for n in range(d):
            g = pre[t, n] + b_gate[n]
            u = pre_linear[t, n] + b_in[n]
            pre[t, n] = g
            pre_linear[t, n] = u
            a = c * (g + np.float32(0.044715) * g * g * g)
            tanh_a = one - two / (exp32(two * a) + one)
            post[t, n] = np.float32(0.5) * g * (one + tanh_a) * u


@kernel()
def bias_split_heads(qkv, bias, qh, kh, vh):  # pragma: no cover - compiled
    """qkv[t] += bias, then copy its Q, K and V parts head-major: qh[h, t] = qkv[t, h*dh:(h+1)*dh],
    kh and vh likewise from the K and V parts (BLAS is fastest on [H, T, dh]). Q has H heads, K
    and V have KV heads each (GQA): qkv is [T, (H + 2 KV) dh]."""
    T = qkv.shape[0]
    H, _, dh = qh.shape
    KV = kh.shape[0]
    k0, v0 = H * dh, (H + KV) * dh
    for t in prange(T):
        for c in range(qkv.shape[1]):
            qkv[t, c] += bias[c]
        for h in range(H):
            for e in range(dh):
                qh[h, t, e] = qkv[t, h * dh + e]
        for g in range(KV):
            for e in range(dh):
                kh[g, t, e] = qkv[t, k0 + g * dh + e]
                vh[g, t, e] = qkv[t, v0 + g * dh + e]


@kernel()
def heads_sum_residual(part0, part1, two, bias, resid_pre, attn_out, resid_mid):  # pragma: no cover
    """attn_out = part0 (+ part1 when `two`) + b_O, the sum over heads from cpu.py's per-thread
    partial sums; resid_mid = resid_pre + attn_out. One pass ([T, d_model] each)."""
    T, d = part0.shape
    for t in prange(T):
        for c in range(d):
            a = part0[t, c] + part1[t, c] if two else part0[t, c]
            a += bias[c]
            attn_out[t, c] = a
            resid_mid[t, c] = resid_pre[t, c] + a


@kernel()
def bias_residual(x, bias, resid, out):  # pragma: no cover - compiled
    """x += bias (mlp_out gets b_out), then out = resid + x (resid_post). One pass."""
    T, d = x.shape
    for t in prange(T):
        for c in range(d):
            y = x[t, c] + bias[c]
            x[t, c] = y
            out[t, c] = resid[t, c] + y


@kernel()
def embed_rows(W_E, tokens, W_pos, embed, resid):  # pragma: no cover - compiled
    """embed[t] = W_E[tokens[t]] (ids already validated); resid[t] = embed[t] + W_pos[t]."""
    T, d = embed.shape
    for t in prange(T):
        src, pos, e, out = W_E[tokens[t]], W_pos[t], embed[t], resid[t]
        for c in range(d):
            x = src[c]
            e[c] = x
            out[c] = x + pos[c]

