"""Small derived quantities that views show beside the Trace (kept here so widgets never compute).

Each is a direct restatement of one equation with the Trace's own numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..trace import Trace


def kv_head(trace: Trace, head: int) -> int:
    """The K/V head query head `head` reads: head // (n_heads / n_kv_heads) (itself without GQA)."""
    return int(head) // trace.cfg.n_groups


def weighted_terms(trace: Trace, layer: int, head: int, query: int) -> tuple[np.ndarray, np.ndarray]:
    """The terms of z_i = sum_j pattern[h, i, j] * v_j, and z_i itself (v of head h's K/V head).

    Returns terms [T, d_head] (row j is pattern[h, i, j] * v[j, h // groups]) and z_i [d_head].
    """
    p = trace.read("pattern", layer, head=head, rows=query)               # [T]
    v = trace.read("v", layer, head=kv_head(trace, head))                 # [T, d_head]
    terms = p[:, None] * v                                                # [T, d_head]
    return terms, trace.read("z", layer, head=head, rows=query)           # [T, d_head], [d_head]


def row_entropy(p: np.ndarray) -> float:
    """Shannon entropy (nats) of one probability row; 0 log 0 counts as 0."""
    p = np.asarray(p, dtype=np.float64)
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum())


@dataclass(frozen=True)
class DotTrace:
    """One cell written out as its multiplication pairs: cell = Σ_c left[c]·right[c] (+ bias).

    For q/k/v: left = ln1_out[i], right = W_{Q,K,V}[h][:, c]; for a score: left = q_i, right = k_j,
    then the scaling, the mask decision and the probability the softmax gave the cell.
    """

    name: str                         # "q", "k", "v" or "attn_scores"
    layer: int
    head: int
    row: int                          # token i
    col: int                          # d_head column c, or key j for a score
    left_name: str
    right_name: str
    left: np.ndarray                  # [n]
    right: np.ndarray                 # [n]
    products: np.ndarray              # [n] left * right
    running: np.ndarray               # [n] running sum of the products
    bias: float
    total: float                      # Σ products + bias, in float64
    cell: float                       # the value the Trace holds for this cell
    scale: float | None = None        # scores: 1/sqrt(d_head), or 1 with scaling off
    scaled: float | None = None
    masked: bool | None = None
    probability: float | None = None


def projection_trace(trace: Trace, weights, name: str, layer: int, head: int, row: int, col: int) -> DotTrace:
    """q/k/v[row, head, col] = Σ_c ln1_out[row, c] · W[head, c, col] + b[head, col]. `head` is the
    query head a view shows; for k and v it is mapped to the K/V head that query head reads."""
    if name not in ("q", "k", "v"):
        raise ValueError(f"projection_trace explains q, k or v, not {name!r}")
    letter = name.upper()
    h = head if name == "q" else kv_head(trace, head)                     # k, v: the shared K/V head
    left = np.asarray(trace.read("ln1_out", layer, rows=row), dtype=np.float64)   # [d_model]
    right = np.asarray(weights[f"blocks.{layer}.attn.W_{letter}"][h][:, col], dtype=np.float64)  # [d_model]
    products = left * right                                               # [d_model]
    bias_name = f"blocks.{layer}.attn.b_{letter}"
    bias = float(weights[bias_name][h, col]) if bias_name in weights else 0.0   # no biases: 0
    return DotTrace(name=name, layer=layer, head=h, row=row, col=col,
                    left_name=f"ln1_out[{row}]", right_name=f"W_{letter}[{h}][:, {col}]",
                    left=left, right=right, products=products, running=np.cumsum(products), bias=bias,
                    total=float(products.sum()) + bias, cell=float(trace.read(name, layer, head=h, rows=row)[col]))


def score_trace(trace: Trace, layer: int, head: int, row: int, col: int) -> DotTrace:
    """attn_scores_raw[head, i, j] = Σ_c q_i[c] · k_j[c]; then ÷ sqrt(d_head), mask, softmax. With
    RoPE the scores use rot_q and rot_k; with GQA, k of the K/V head the query head reads."""
    cfg = trace.cfg
    q_name, k_name = cfg.components.score_inputs
    g = kv_head(trace, head)
    left = np.asarray(trace.read(q_name, layer, head=head, rows=row), dtype=np.float64)   # [d_head]
    right = np.asarray(trace.read(k_name, layer, head=g, rows=col), dtype=np.float64)    # [d_head]
    cell = {name: float(trace.read(name, layer, head=head, rows=row, cols=col))
            for name in ("attn_scores_raw", "attn_scores", "pattern")}          # three numbers of the cell
    products = left * right                                               # [d_head]
    total = float(products.sum())
    scale = 1.0 / float(np.sqrt(cfg.d_head)) if cfg.scale_scores else 1.0
    return DotTrace(name="attn_scores", layer=layer, head=head, row=row, col=col,
                    left_name=f"{q_name}[{row}, {head}]", right_name=f"{k_name}[{col}, {g}]", left=left, right=right,
                    products=products, running=np.cumsum(products), bias=0.0, total=total,
                    cell=cell["attn_scores_raw"], scale=scale, scaled=total * scale,
                    masked=bool(np.isneginf(cell["attn_scores"])), probability=cell["pattern"])


@dataclass(frozen=True)
class RowSummary:
    """What the calibrator measures about one softmax row."""

    top_key: int                      # argmax_j pattern[h, i, j]
    top_weight: float                 # its weight
    entropy: float                    # nats


def row_summary(trace: Trace, layer: int, head: int, query: int) -> RowSummary:
    p = np.asarray(trace.read("pattern", layer, head=head, rows=query), dtype=np.float64)   # [T]
    return RowSummary(top_key=int(np.argmax(p)), top_weight=float(p.max()), entropy=row_entropy(p))


def mask_shares(pattern_unmasked: np.ndarray) -> dict[str, float]:
    """What an unmasked pattern [T, T] gives away: the mean weight of query i on key i+1 (the
    token it must predict) and the mean total weight on future keys j > i."""
    P = np.asarray(pattern_unmasked, dtype=np.float64)                   # [T, T]
    T = P.shape[0]
    answer = float(np.mean(np.diagonal(P, offset=1))) if T > 1 else 0.0
    future = float(P[np.triu_indices(T, k=1)].sum() / max(T, 1))
    return {"answer_share": answer, "future_share": future}


# -- robust colour scales -------------------------------------------------------------------------------
# A real model's residual stream carries a few massive activations (SmolLM2: dimension 507 reaches
# ~24,000 where the rest stay below ~250): a colour scale set by them leaves every other cell white.
# A long array's scale ends at the 99th percentile of |x| as soon as its largest value is more than
# CLIP_FACTOR times that (a Gaussian's largest of 36,000 is ~1.7 times it; the embeddings' 2.4):
# SmolLM2's layer-0 mlp_out (top 32, 99th percentile 7.3, median 0.64) was white at ±32 whenever the
# ratio fell below the old 4. (At 2.5 Heads' narrow attn_out and z_concat, 2.9 × at layer 3, clipped
# too, and their captions no longer fitted a projector.)
# A value is an outlier (marked) when it exceeds OUTLIER_FACTOR times the typical large value (the
# 99th percentile; the median for short vectors such as ln1_scale), and the largest always is; a
# short vector's scale ends at its largest value that is not an outlier.
CLIP_FACTOR = 3.0              # a long array clips when its top exceeds this times its 99th percentile
OUTLIER_FACTOR = 4.0
SHORT_FACTOR = 6.0             # a vector of 8 to 200 values (one per token): times its median
PERCENTILE = 0.99              # a long array's scale ends here when outliers exist
MARKED = 64                    # at most this many clipped cells are marked (the largest)


@dataclass(frozen=True)
class RobustScale:
    """Where a colour scale over some arrays ends, robust to a few massive values."""

    end: float                        # the scale's end (|x| beyond it saturates); == top without outliers
    top: float                        # max |x| over the finite values
    cut: float                        # |x| >= cut is an outlier (marked); <= top; == top without outliers

    @property
    def clips(self) -> bool:
        return self.end < self.top


def robust_scale(*arrays: np.ndarray) -> RobustScale:
    """The robust scale of `arrays` together (see OUTLIER_FACTOR). A long array's scale ends at its
    99th percentile of |x| (the 1 % above it saturate: a massive first-token row would still pale
    the rest); a short vector's at its largest value that is not an outlier; a small matrix (the
    toy's) keeps its full range. The percentile leaves out massive rows (_ordinary_rows)."""
    made = [_finite_abs(a) for a in map(np.asarray, arrays) if a.size]
    finite = [f for f, _top in made]                                      # [n_k] each
    size = sum(f.size for f in finite)
    if size == 0:
        return RobustScale(0.0, 0.0, 0.0)
    top = max(t for f, t in made if f.size)
    full = RobustScale(top, top, top)
    vector = all(min(np.shape(x)[-2:] or (1,)) == 1 for x in arrays) and size >= 8   # ln1_scale [T, 1]
    if size >= 200:
        typical = _upper_quantile(_ordinary_rows(arrays, finite), PERCENTILE)   # the scale's end when it clips
        if typical <= 0 or top <= CLIP_FACTOR * typical:
            return full
        return RobustScale(typical, top, min(OUTLIER_FACTOR * typical, top))   # the largest is always marked
    if not vector:
        return full
    a = np.concatenate(finite)                                            # [n]
    typical = float(np.median(a))
    cut = SHORT_FACTOR * typical                                          # the outliers' threshold
    if typical <= 0 or top <= cut:
        return full
    return RobustScale(float(a[a <= cut].max()), top, cut)


def _ordinary_rows(arrays, magnitudes: list[np.ndarray]) -> list[np.ndarray]:
    """|x| of the finite values of `arrays` without their massive rows, flat [n_k] per array
    (`magnitudes`: _finite_abs's |x| of each non-empty array, reused where all its values are finite):
    a row (a token) whose largest |x| exceeds OUTLIER_FACTOR times the median row's is left out
    (SmolLM2's first token, the attention sink, is 5 % of a 20-token resid_post: the 99th percentile
    landed inside it, ±89 where the other rows reach 19). Arrays of fewer than 8 rows keep all of theirs."""
    kept = []
    for x, f in zip([a for a in map(np.asarray, arrays) if a.size], magnitudes, strict=True):
        rows = x.shape[0] if x.ndim >= 2 else 1
        finite = f.size == x.size                                         # no NaN or ∞: f is all of |x|
        m = f.reshape(rows, -1) if finite else np.abs(np.where(np.isfinite(x), x, 0.0)).reshape(rows, -1)
        top = m.max(axis=1)                                               # [rows] each row's largest |x|
        ordinary = top <= OUTLIER_FACTOR * np.median(top) if len(top) >= 8 else np.ones(len(top), bool)
        keep = slice(None) if ordinary.all() or not ordinary.any() else ordinary
        if finite:
            kept.append(m[keep].ravel())                                  # [rows' · n]
        else:
            picked = x.reshape(rows, -1)[keep]                            # [rows', n]
            kept.append(np.abs(picked[np.isfinite(picked)]).ravel())
    return kept or [np.zeros(1)]


def _finite_abs(a: np.ndarray) -> tuple[np.ndarray, float]:
    """|a| of its finite values, flat [n] (no boolean-indexed copy when all are finite), and their
    largest (0 for none): one pass finds both when all are finite."""
    magnitude = np.abs(a.ravel())                                         # [n]
    with np.errstate(invalid="ignore"):
        top = float(np.max(magnitude)) if magnitude.size else 0.0
    if math.isfinite(top):
        return magnitude, top
    finite = magnitude[np.isfinite(magnitude)]                            # NaN or ∞ somewhere: the slow path
    return finite, float(finite.max()) if finite.size else 0.0


def _upper_quantile(parts: list[np.ndarray], q: float) -> float:
    """np.quantile(concatenate(parts), q) (linear) for q near 1, without joining or partitioning
    all the values: the ranks wanted lie above a bound that a random sample puts below them, and
    only the values above it (a few percent) are partitioned."""
    n = sum(x.size for x in parts)
    pos = q * (n - 1)
    k = int(math.floor(pos))                                              # sorted[k], sorted[k + 1] wanted
    if n < 20_000:
        return float(np.quantile(np.concatenate(parts), q))
    pick = np.random.default_rng(0)                                       # fixed: the same scale every time
    sample = np.concatenate([x[pick.integers(0, x.size, 1 + 4096 * x.size // n)] for x in parts if x.size])
    bound = float(np.quantile(sample, max(0.0, q - 0.02)))                # below rank k (a stride would
    # sample a [T, 3072] map's columns 0, 768, … only)
    above = np.concatenate([x[x >= bound] for x in parts])                # [m] the top few percent
    below = n - above.size                                                # ranks 0..below-1 are < bound
    if below > k:
        return float(np.quantile(np.concatenate(parts), q))              # the sample misled: all of them
    lo = k - below
    hi = min(lo + 1, above.size - 1)
    part = np.partition(above, (lo, hi))
    return float(part[lo] + (pos - k) * (part[hi] - part[lo]))


def beyond_scale(values: np.ndarray, levels: tuple[float, float],
                 masked: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The cells of `values` [rows, cols] outside `levels` (masked cells excepted), the largest
    |value| first: (cells [n, 2] as (row, col), their |values| [n])."""
    v = np.asarray(values)                                                # [rows, cols]
    with np.errstate(invalid="ignore"):                                   # candidates first (±∞ too): no copy
        flat = np.flatnonzero((v > np.float64(levels[1])) | (v < np.float64(levels[0])))   # [m]
    x = v.ravel()[flat].astype(np.float64)                                # [m]
    keep = np.isfinite(x)
    if masked is not None and np.shape(masked) == v.shape:
        keep &= ~np.asarray(masked, bool).ravel()[flat]
    flat, x = flat[keep], x[keep]                                         # [n]
    cells = np.stack(np.unravel_index(flat, v.shape), axis=1) if v.ndim else np.zeros((0, 0), np.intp)   # [n, 2]
    size = np.abs(x)                                                      # [n]
    order = np.argsort(-size, kind="stable")
    return cells[order], size[order]


def pattern_distance(a: np.ndarray, b: np.ndarray) -> float:
    """How differently two heads read the same tokens: the total-variation distance of their
    pattern rows, ½ Σ_j |a_ij − b_ij| (0 = the same, 1 = disjoint), averaged over the queries."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)   # [T, T] each
    return float(0.5 * np.abs(a - b).sum(axis=-1).mean()) if a.size else 0.0


def most_different_head(trace: Trace, layer: int, head: int, query: int | None = None) -> tuple[int, int]:
    """(layer, head) of the head whose pattern row at `query` (default: the last) is farthest from this
    one's (pattern_distance), over every layer the trace holds; the first such head on a tie, the head
    itself if it is alone. One row per head is read (Trace.read): on a GPU Trace a whole [H, T, T]
    map per layer would cross the bus to choose a default."""
    i = trace.T - 1 if query is None else min(max(int(query), 0), trace.T - 1)
    mine = trace.read("pattern", layer, head=head, rows=i)                  # [T]
    best, where = -1.0, (layer, head)
    for other in range(trace.n_layers):
        rows = trace.read("pattern", other, rows=i)                         # [H, T] every head's row i
        for h in range(rows.shape[0]):
            if (other, h) != (layer, head) and (d := pattern_distance(mine[None], rows[h][None])) > best:
                best, where = d, (other, h)
    return where


def lens_heads(trace: Trace, lens, layer: int, head: int,
               query: int | None = None) -> tuple[tuple[int, int], tuple[int, int]]:
    """The head lens's A and B: the two chosen on the page, else the selected head and the head most
    different from it at the selected query (a lecture starts from the head on screen and its opposite)."""
    if lens is not None:
        return tuple(lens[0]), tuple(lens[1])
    return (layer, head), most_different_head(trace, layer, head, query)
