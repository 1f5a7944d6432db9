"""Shared by the kernel tests: device arrays from numpy, and comparisons against float64."""
from __future__ import annotations

import numpy as np
from numba import cuda

from tests.compute.helpers import max_scaled_error

# float32 kernels against float64 numpy, as a share of each array's scale: ~170 float32 epsilons.
# Two layers of float32 products in another summation order (cuBLAS via torch) reach 6e-6 on some
# random models (SwiGLU's gate × up multiplies two rounded values; seed 2947341075); a wrong index,
# mask or transpose is off by 1e-2 or more.
TOL = 2e-5


def dev(a) -> object:
    """A float32 (or int/bool, kept as is) device copy of a numpy array."""
    a = np.asarray(a)
    return cuda.to_device(np.ascontiguousarray(a, np.float32 if a.dtype.kind == "f" else a.dtype))


def empty(*shape) -> object:
    return cuda.device_array(shape, np.float32)


def rand(rng, *shape, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def check(actual, expected, wrong=None, tol: float = TOL) -> float:
    """`actual` within tol of `expected`; and, when a plausible wrong answer is given, clearly not
    within tol of it, so the comparison is known to be able to fail."""
    actual = actual.copy_to_host() if hasattr(actual, "copy_to_host") else actual
    err = max_scaled_error(actual, expected)
    assert err <= tol, f"scaled error {err:.3g} > {tol:.3g}"
    if wrong is not None:
        assert differs(actual, wrong, tol), "the wrong formula would also have passed"
    return err


def differs(actual, other, tol: float = TOL) -> bool:
    """True when `actual` would fail a comparison with `other` at `tol`."""
    try:
        return max_scaled_error(actual, other) > tol
    except AssertionError:           # -inf in different places: certainly different
        return True
