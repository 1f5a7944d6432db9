"""Tiled shared-memory matrix products: Q/K/V, scores, pattern·v, each head's W_O share, MLP, logits.

Every product kernel works the same way. A block of TILE×TILE threads computes one BLOCK×BLOCK
tile of its output (BLOCK = TILE·REG); thread (ty, tx) owns the REG×REG outputs at rows
ty + r·TILE and columns tx + c·TILE, so neighbouring threads touch neighbouring memory. The
shared axis k is walked TILE at a time: the block copies an A slab [BLOCK, TILE] and a B slab
[TILE, BLOCK] into shared memory and each thread accumulates its patch in float32 registers
(`_tile_product`). Kernels differ only in which slices of which arrays they multiply and where
the results go; that is where each kernel's equation lives.

Grid of every product: (ceil(N / BLOCK), ceil(M / BLOCK), batch) blocks of (TILE, TILE) threads.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32

from .target import SIMULATOR, cdiv, device_function, kernel

# Tile sizes. On hardware 8×8 threads each own 8×8 outputs: 64×64 tiles, 16 FMAs per shared
# load, ~100 registers a thread. The simulator runs one Python thread per CUDA thread, so it
# gets 2×2 threads owning 4×4 outputs: 8×8 tiles from few threads. Tests may change the sizes
# (`set_tiles`) under the simulator.
TILE = 2 if SIMULATOR else 8       # threads per side of a block; also the depth of one k-step
REG = 4 if SIMULATOR else 8        # outputs per thread per side
BLOCK = TILE * REG                 # output tile per block side
A_COLS = TILE + 1                  # A slab row length; +1 spreads column reads over the banks
B_COLS = BLOCK + TILE              # B slab row length; +TILE spreads row writes over the banks

B_AS_IS, B_TRANSPOSED = False, True
NEG_INF = np.float32(-np.inf)


def set_tiles(tile: int, reg: int) -> tuple[int, int]:
    """Change the tile sizes (simulator only: compiled kernels keep the sizes they were built
    with); returns the previous (TILE, REG)."""
    global TILE, REG, BLOCK, A_COLS, B_COLS
    if not SIMULATOR:
        raise RuntimeError("tile sizes are fixed once kernels are compiled for a GPU")
    old = (TILE, REG)
    TILE, REG = tile, reg
    BLOCK, A_COLS, B_COLS = tile * reg, tile + 1, tile * reg + tile
    return old


@device_function
def _multiply_slabs(As, Bs, acc, ty, tx):
    """acc[r, c] += Σ_kk As[ty + r·TILE, kk] · Bs[kk, tx + c·TILE]: one TILE-deep step."""
    a = cuda.local.array(REG, float32)                          # [REG] this thread's A rows
    b = cuda.local.array(REG, float32)                          # [REG] this thread's B columns
    for kk in range(TILE):
        for r in range(REG):
            a[r] = As[ty + r * TILE, kk]
        for c in range(REG):
            b[c] = Bs[kk, tx + c * TILE]
        for r in range(REG):
            for c in range(REG):
                acc[r, c] += a[r] * b[c]


@device_function
def _tile_product(A, B, b_transposed, k_begin, k_end, acc):
    """acc = this thread's REG×REG patch of A[:, k_begin:k_end] @ B[k_begin:k_end, :] (B given
    transposed, as [N, K], when b_transposed) in the block's output tile; entries past an edge
    count as 0. (k_begin > 0 only where the caller knows A is 0 before it.)"""
    As = cuda.shared.array((BLOCK, A_COLS), float32)            # A[row0:+BLOCK, k0:+TILE]
    Bs = cuda.shared.array((TILE, B_COLS), float32)             # B[k0:+TILE, col0:+BLOCK]
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    row0, col0 = cuda.blockIdx.y * BLOCK, cuda.blockIdx.x * BLOCK
    M = A.shape[0]
    N = B.shape[0] if b_transposed else B.shape[1]
    for r in range(REG):
        for c in range(REG):
            acc[r, c] = float32(0.0)
    for k0 in range(k_begin, k_end, TILE):
        for s in range(REG):
            i, k = row0 + ty + s * TILE, k0 + tx                # threads in a row read along k
            As[ty + s * TILE, tx] = A[i, k] if i < M and k < k_end else float32(0.0)
            if b_transposed:                                    # B[k, j] = Bᵀ[j, k], read along k
                j, k = col0 + ty + s * TILE, k0 + tx
                Bs[tx, ty + s * TILE] = B[j, k] if j < N and k < k_end else float32(0.0)
            else:                                               # read along j
                k, j = k0 + ty, col0 + tx + s * TILE
                Bs[ty, tx + s * TILE] = B[k, j] if k < k_end and j < N else float32(0.0)
        cuda.syncthreads()                                      # slabs complete
        _multiply_slabs(As, Bs, acc, ty, tx)
        cuda.syncthreads()                                      # slabs free for the next k0


@device_function
def _output_index(r, c):
    """(row, column) in the output of this thread's acc[r, c]."""
    return (cuda.blockIdx.y * BLOCK + cuda.threadIdx.y + r * TILE,
            cuda.blockIdx.x * BLOCK + cuda.threadIdx.x + c * TILE)


# -- kernels ---------------------------------------------------------------------------------------
@kernel
def project_qkv(ln1_out, W_QKV, b_QKV, q, k, v):
    """[q | k | v][i, n, e] = Σ_c ln1_out[i, c] · W_QKV[n, c, e] + b_QKV[n, e]  (heads n: Q's H, K's KV, V's KV)."""
    # W_QKV stacks Q's H heads and K's and V's n_kv_heads each (GQA): [H + 2 KV, d_model, d_head].
    n = cuda.blockIdx.z
    H, KV = q.shape[1], k.shape[1]
    T, d_model = ln1_out.shape
    d_head = W_QKV.shape[2]
    # Which output this block writes, and its head there (chosen once: no branch in the loop below).
    out = q if n < H else (k if n < H + KV else v)
    head = n if n < H else (n - H if n < H + KV else n - H - KV)
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(ln1_out, W_QKV[n], B_AS_IS, 0, d_model, acc)  # ln1_out @ W[n]: [T, d_head]
    for r in range(REG):
        for c in range(REG):
            i, e = _output_index(r, c)
            if i < T and e < d_head:
                out[i, head, e] = acc[r, c] + b_QKV[n, e]


@device_function
def _forbidden(i, j, causal, window):
    """Key j is outside query i's view: after it (causal), or W or more away (a window W > 0)."""
    # Bitwise, not `and`/`or`: no branches, so the caller's loop over its registers unrolls.
    return (causal & (j > i)) | ((window > 0) & ((i - j >= window) | (j - i >= window)))


@kernel
def scores(q, k, causal, mask, has_mask, scale, groups, window, first_row, attn_scores_raw,
           attn_scores_scaled, attn_scores):
    """raw[h, i, j] = q[i, h]·k[j, h // groups]; scaled = raw · scale; masked = scaled or -inf (j forbidden)."""
    # scale: 1/sqrt(d_head), Gemma's 1/sqrt(query_pre_attn_scalar), or 1 (launch_scores makes it).
    # Forbidden: j > i when causal, outside the window, mask[i, j] False when has_mask. Every raw
    # score is computed, the forbidden ones too: the Trace shows them all. The queries are the
    # positions first_row .. first_row + n - 1 (an incremental pass's new rows; 0 .. T - 1 in a full
    # pass): row i of q and of the maps is position first_row + i, which the masks are about.
    h = cuda.blockIdx.z
    n, _, d_head = q.shape
    T = k.shape[0]                                              # keys
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(q[:, h, :], k[:, h // groups, :], B_TRANSPOSED, 0, d_head, acc)   # q_h @ k_gᵀ: [n, T]
    for r in range(REG):
        for c in range(REG):
            i, j = _output_index(r, c)
            if i < n and j < T:
                raw = acc[r, c]
                scaled = raw * scale                            # ÷ sqrt(d_head), or Gemma's scale
                attn_scores_raw[h, i, j] = raw
                attn_scores_scaled[h, i, j] = scaled
                attn_scores[h, i, j] = NEG_INF if _forbidden(first_row + i, j, causal, window) else scaled
    if has_mask:                               # the extra mask: a pass of its own keeps acc in registers
        for r in range(REG):
            for c in range(REG):
                i, j = _output_index(r, c)
                if i < n and j < T and not mask[first_row + i, j]:
                    attn_scores[h, i, j] = NEG_INF


@kernel
def weighted_sum(pattern, v, causal, groups, window, first_row, z):
    """z[i, h, e] = Σ_j pattern[h, i, j] · v[j, h // groups, e]: each head's mix of values, in z_concat's layout."""
    # z is [T, n_heads, d_head], so z_concat [T, n_heads·d_head] is the same memory. Rows i of
    # pattern and z are the positions first_row + i (an incremental pass's new rows; 0.. in a full one).
    h = cuda.blockIdx.z
    n, _, d_head = z.shape
    T = v.shape[0]                                              # keys
    row0 = first_row + cuda.blockIdx.y * BLOCK                  # the block's first position
    row_end = row0 + BLOCK
    # Causal: rows < row_end attend to no key >= row_end, so those tiles of the pattern are 0;
    # a window W: rows >= row0 attend to no key <= row0 - W either.
    k_end = min(T, row_end) if causal else (min(T, row_end - 1 + window) if window > 0 else T)
    k_begin = max(0, row0 - window + 1) if window > 0 else 0
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(pattern[h], v[:, h // groups, :], B_AS_IS, k_begin, k_end, acc)   # pattern_h @ v_g: [n, d_head]
    for r in range(REG):
        for c in range(REG):
            i, e = _output_index(r, c)
            if i < n and e < d_head:
                z[i, h, e] = acc[r, c]


@kernel
def head_results(z, W_O, result):
    """result[i, h, j] = Σ_e z[i, h, e] · W_O[h, e, j]: head h's share of attn_out."""
    h = cuda.blockIdx.z
    T, _, d_head = z.shape
    d_model = W_O.shape[2]
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(z[:, h, :], W_O[h], B_AS_IS, 0, d_head, acc)      # z_h @ W_O[h]: [T, d_model]
    for r in range(REG):
        for c in range(REG):
            i, j = _output_index(r, c)
            if i < T and j < d_model:
                result[i, h, j] = acc[r, c]


@kernel
def matmul_bias(x, W, bias, out):
    """out[i, j] = Σ_k x[i, k] · W[k, j] + bias[j]  (mlp_pre = ln2_out @ W_in + b_in, mlp_out)."""
    M, K = x.shape
    N = W.shape[1]
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(x, W, B_AS_IS, 0, K, acc)                         # x @ W: [M, N]
    for r in range(REG):
        for c in range(REG):
            i, j = _output_index(r, c)
            if i < M and j < N:
                out[i, j] = acc[r, c] + bias[j]


@kernel
def unembed(x, W_E, logits):
    """logits[i, v] = Σ_c x[i, c] · W_E[v, c]: ln_final_out @ W_Eᵀ (the unembedding is tied)."""
    M, d_model = x.shape
    d_vocab = W_E.shape[0]
    acc = cuda.local.array((REG, REG), float32)
    _tile_product(x, W_E, B_TRANSPOSED, 0, d_model, acc)            # x @ W_Eᵀ: [M, d_vocab]
    for r in range(REG):
        for c in range(REG):
            i, v = _output_index(r, c)
            if i < M and v < d_vocab:
                logits[i, v] = acc[r, c]


# -- launch helpers --------------------------------------------------------------------------------
def _grid(M: int, N: int, batch: int = 1):
    """Launch shape for an [M, N] output per batch item: (grid, block)."""
    return (cdiv(N, BLOCK), cdiv(M, BLOCK), batch), (TILE, TILE)


def launch_project_qkv(ln1_out, W_QKV, b_QKV, q, k, v, stream=0):
    T, H, d_head = q.shape
    project_qkv[(*_grid(T, d_head, W_QKV.shape[0]), stream)](ln1_out, W_QKV, b_QKV, q, k, v)


def launch_scores(q, k, causal, mask, has_mask, scale_scores, raw, scaled, masked, window=0, stream=0, first_row=0):
    """q [n, H, d_head] the queries at positions first_row.., k [T, KV, d_head]: maps [H, n, T] (mask [T, T]).
    `scale_scores`: True (1/sqrt(d_head)), False (1), or the factor itself (Gemma's 1/sqrt(query_pre_attn_scalar))."""
    n, H, d_head = q.shape
    groups = H // k.shape[1]
    if isinstance(scale_scores, (bool, np.bool_)):
        scale = np.float32(1.0) / np.sqrt(np.float32(d_head)) if scale_scores else np.float32(1.0)
    else:
        scale = np.float32(scale_scores)
    scores[(*_grid(n, k.shape[0], H), stream)](q, k, causal, mask, has_mask, scale, groups, window,
                                               first_row, raw, scaled, masked)


def launch_weighted_sum(pattern, v, causal, z, window=0, stream=0, first_row=0):
    """pattern [H, n, T] and z [n, H, d_head] of the positions first_row..; v [T, KV, d_head]."""
    n, H, d_head = z.shape
    weighted_sum[(*_grid(n, d_head, H), stream)](pattern, v, causal, H // v.shape[1], window, first_row, z)


def launch_head_results(z, W_O, result, stream=0):
    T, H, d_model = result.shape
    head_results[(*_grid(T, d_model, H), stream)](z, W_O, result)


def launch_matmul_bias(x, W, bias, out, stream=0):
    matmul_bias[(*_grid(out.shape[0], out.shape[1]), stream)](x, W, bias, out)


def launch_unembed(x, W_E, logits, stream=0):
    unembed[(*_grid(logits.shape[0], logits.shape[1]), stream)](x, W_E, logits)
