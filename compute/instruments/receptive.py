"""Windows, banded layers and attention sinks.

A layer with a window W lets query i see the keys i − W < j ≤ i (the last W, itself included);
a dense causal layer lets it see every j ≤ i. Through the residual stream, what position i holds
after a layer mixes what the positions it saw held before it, so after L layers position i can
have read every position down to i − Σ_l (W_l − 1): the reach grows by W − 1 per windowed layer
(a dense layer reaches the start at once). Mistral's window of 4,096 in each of 32 layers reaches
back about 131,000 tokens; GPT-3's layers alternate dense and locally banded.

An attention sink is a position that takes a large share of every query's weight whatever the
query asks: in trained LLaMA-family models, position 0 (Xiao et al. 2023, "Efficient Streaming
Language Models with Attention Sinks"). `sink_shares` measures it per layer and head.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..backends.reference import softmax_rows
from ..config import Config
from ..trace import Trace


def allowed(T: int, window: int | None, causal: bool = True) -> np.ndarray:
    """[T, T] bool: query i may see key j (j ≤ i causal; and i − W < j with a window W)."""
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]                      # [T, 1], [1, T]
    ok = (j <= i) if causal else np.ones((T, T), bool)                        # [T, T]
    return ok & (i - j < window) & (j - i < window) if window is not None else ok   # [T, T]


def model_windows(cfg: Config) -> tuple[int | None, ...]:
    """The window of every layer of the model (None = dense)."""
    return tuple(cfg.window(layer) for layer in range(cfg.n_layers))


def layouts(cfg: Config, W: int) -> dict[str, tuple[int | None, ...]]:
    """Three ways to lay out n_layers layers: the model's own, W in every layer (Mistral), and
    dense / W alternating (GPT-3: even layers dense, odd layers banded)."""
    n = cfg.n_layers
    return {"model": model_windows(cfg), "every": (W,) * n,
            "alternating": tuple(None if layer % 2 == 0 else W for layer in range(n))}


def reach(windows: Sequence[int | None], T: int, query: int) -> np.ndarray:
    """[L + 1, T] bool: row l marks the positions whose token can have reached position `query`
    after the first l layers (row 0: only itself). Causal layers; the band's lower edge falls by
    W − 1 per windowed layer, to 0 at a dense one."""
    out = np.zeros((len(windows) + 1, T), bool)                               # [L + 1, T]
    lowest = query
    out[0, query] = True
    for layer, W in enumerate(windows):
        lowest = 0 if W is None else max(0, lowest - (W - 1))                # one more layer of reach
        out[layer + 1, lowest:query + 1] = True
    return out


def reach_span(windows: Sequence[int | None]) -> int | None:
    """How far back the last layer reaches in all: Σ (W − 1), or None once a layer is dense."""
    if any(W is None for W in windows):
        return None
    return int(sum(W - 1 for W in windows))


def band_pattern(scores_scaled: np.ndarray, window: int | None, causal: bool = True) -> np.ndarray:
    """One head's pattern [T, T] with this window applied to its scaled scores [T, T]: the layer's
    own inputs do not depend on its window, so this is what the layer computes with W."""
    T = scores_scaled.shape[-1]
    masked = np.where(allowed(T, window, causal), np.asarray(scores_scaled, np.float64), -np.inf)   # [T, T]
    return softmax_rows(masked)                                               # [T, T]


def sink_shares(trace: Trace, position: int = 0) -> np.ndarray:
    """[n_layers, n_heads]: the mean weight that queries i > position put on key `position`
    (query `position` itself, which may see nothing else under the causal mask, is left out)."""
    cfg, T = trace.cfg, trace.T
    out = np.zeros((cfg.n_layers, cfg.n_heads))                               # [L, H]
    if T <= position + 1:
        return out
    for layer in range(cfg.n_layers):
        column = np.asarray(trace.read("pattern", layer, rows=slice(position + 1, None), cols=position),
                            np.float64)                                       # [H, T − p − 1]
        out[layer] = column.mean(axis=1)                                      # [H]
    return out


def uniform_share(T: int, position: int = 0) -> float:
    """What key `position` would get from a causal row of equal weights, averaged over the
    queries i > position: mean of 1 / (i + 1). The baseline a sink is measured against."""
    i = np.arange(position + 1, T)                                            # [T − position − 1]
    return float(np.mean(1.0 / (i + 1))) if len(i) else 0.0
