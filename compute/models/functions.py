"""The components' equations in float64 numpy, one line per equation: the reference backend,
the KV-cache instrument and the circuits read these (compute/backends/reference.py re-exports
them under their old names). Each works on the last axis, so a batch [..., d] works too."""
from __future__ import annotations

import math

import numpy as np

_erf = np.frompyfunc(math.erf, 1, 1)                                        # exact, elementwise (no scipy)


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, eps: float = 1e-5):
    """LayerNorm over the last axis with biased variance: returns mean [T], var [T], out [T, d]."""
    mean = x.mean(axis=-1)                                                  # [T]
    var = ((x - mean[..., None]) ** 2).mean(axis=-1)                        # [T]
    out = (x - mean[..., None]) / np.sqrt(var[..., None] + eps) * w         # [T, d]
    return mean, var, out if b is None else out + b


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float):
    """RMSNorm over the last axis: returns scale [T] = sqrt(mean(x²) + eps) and out [T, d]."""
    scale = np.sqrt((x ** 2).mean(axis=-1) + eps)                           # [T]
    out = x / scale[..., None] * w                                          # [T, d]
    return scale, out


def gelu(x: np.ndarray) -> np.ndarray:
    """GPT-2's tanh approximation of GELU."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """The exact GELU, x·Φ(x) = ½x(1 + erf(x/√2)) (GPT-NeoX's "gelu"), in x's float type."""
    x = np.asarray(x)
    return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)).astype(np.float64))).astype(np.result_type(x, np.float32))


def silu(x: np.ndarray) -> np.ndarray:
    """SiLU (swish): x · sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


def rope_angles(T: int, rotary_dim: int, theta: float, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [T, rotary_dim / 2] of position t times frequency theta^(-2i / rotary_dim)."""
    freq = theta ** (-np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)   # [r/2]
    angle = np.arange(start, start + T, dtype=np.float64)[:, None] * freq[None, :]  # [T, r/2]
    return np.cos(angle), np.sin(angle)


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotate each pair (x_i, x_{i+r/2}) of the first r dims of every head by its position's angle
    (HF's rotate_half convention); dims from r on pass through. x [..., T, heads, d_head]."""
    half = cos.shape[-1]
    x1, x2, rest = x[..., :half], x[..., half:2 * half], x[..., 2 * half:]   # [T, heads, r/2] ...
    c, s = cos[:, None, :], sin[:, None, :]                                  # [T, 1, r/2]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s, rest], axis=-1)  # [T, heads, d_head]
