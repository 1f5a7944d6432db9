"""Which kernel does each step of the block, and the line of it that does the key work (for the
app's code view; compute/source_map.py maps the lab's stations onto these steps).

    src = kernel_source("scores")
    src.source.splitlines()[src.key_line - 1]    # '... scaled = raw * scale   # ÷ sqrt(d_head)'

The text is read from the kernels themselves with `inspect`, so it is always the code that runs.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from . import elementwise, products, rows

# step -> (kernel, marker): the marker is a piece of the one line of the kernel that does the
# step's key work. tests/cuda_kernels checks each marker occurs exactly once in its kernel.
KERNEL_SOURCE: dict[str, tuple[object, str]] = {
    "embeddings": (elementwise.embed, "resid_pre[t, c] = e + W_pos[t, c]"),
    "ln1": (rows.layer_norm, "out[t, c] = (x[t, c] - mu) * inv_std * w[c] + b[c]"),
    "projections": (products.project_qkv, "_tile_product(ln1_out, W_QKV[n]"),
    "scores": (products.scores, "scaled = raw * scale"),
    "softmax": (rows.softmax_rows, "e = math.exp(attn_scores[h, i, j] - row_max)"),
    "weighted_sum": (products.weighted_sum, "_tile_product(pattern[h], v[:, h // groups, :]"),
    "heads_W_O": (products.head_results, "_tile_product(z[:, h, :], W_O[h]"),
    "mlp": (elementwise.gelu, "out[t, c] = float32(0.5) * v * (float32(1.0) + math.tanh("),
    "residual": (elementwise.add, "out[t, c] = a[t, c] + b[t, c]"),
}
STEPS: tuple[str, ...] = tuple(KERNEL_SOURCE)


@dataclass(frozen=True)
class KernelSource:
    step: str
    kernel: str          # the kernel's name, e.g. "scores"
    module: str          # e.g. "cuda_kernels.products"
    path: str            # the source file
    first_line: int      # line number in `path` of the first line of `source`
    source: str          # the kernel's text, decorator included
    key_line: int        # 1-based line within `source` that does the key step
    doc: str             # the kernel's one-line equation


def python_function(k):
    """The plain Python function behind a @cuda.jit kernel (hardware dispatcher or simulator)."""
    return getattr(k, "py_func", k)


def kernel_source(step: str) -> KernelSource:
    """The kernel of a step with its key line; KeyError names the steps."""
    if step not in KERNEL_SOURCE:
        raise KeyError(f"no step {step!r}; steps: {', '.join(STEPS)}")
    k, marker = KERNEL_SOURCE[step]
    fn = python_function(k)
    lines, first_line = inspect.getsourcelines(fn)
    hits = [n for n, line in enumerate(lines, start=1) if marker in line]
    if len(hits) != 1:
        raise LookupError(f"marker {marker!r} occurs {len(hits)} times in {fn.__name__}")
    return KernelSource(step=step, kernel=fn.__name__, module=fn.__module__,
                        path=inspect.getsourcefile(fn) or "", first_line=first_line,
                        source="".join(lines), key_line=hits[0],
                        doc=inspect.getdoc(fn) or "")
