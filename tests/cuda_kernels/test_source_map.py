"""The kernel-source map the app's code view reads: every step, its kernel, its key line."""
from __future__ import annotations

import inspect

import pytest

from cuda_kernels import KERNEL_SOURCE, STEPS, kernel_source

EXPECTED = {"embeddings", "ln1", "projections", "scores", "softmax", "weighted_sum", "heads_W_O",
            "mlp", "residual"}


def test_every_step_has_a_kernel_and_one_key_line():
    assert set(STEPS) == EXPECTED
    for step in STEPS:
        src = kernel_source(step)
        lines = src.source.splitlines()
        assert 1 <= src.key_line <= len(lines)
        assert KERNEL_SOURCE[step][1] in lines[src.key_line - 1]
        assert lines[0].lstrip().startswith("@kernel") and f"def {src.kernel}(" in src.source
        # the line number in the file points at the same text
        with open(src.path, encoding="utf-8") as fh:
            file_lines = fh.read().splitlines()
        assert file_lines[src.first_line - 1 + src.key_line - 1] == lines[src.key_line - 1]


def test_the_scores_key_line_is_the_scaling():
    src = kernel_source("scores")
    line = src.source.splitlines()[src.key_line - 1]
    assert "raw * scale" in line
    import inspect

    from cuda_kernels import products

    launch = inspect.getsource(products.launch_scores)                    # scale = 1/sqrt(d_head), made once
    assert "np.float32(1.0) / np.sqrt(np.float32(d_head))" in launch


def test_every_kernel_has_a_one_line_equation_docstring():
    from cuda_kernels import elementwise, products, rows

    for module in (products, rows, elementwise):
        for name, obj in vars(module).items():
            fn = getattr(obj, "py_func", None)
            if fn is None or name.startswith("_"):
                continue
            doc = inspect.getdoc(fn) or ""
            assert len(doc.splitlines()) == 1, f"{module.__name__}.{name}: want a one-line docstring"
            assert "=" in doc, f"{name}: the docstring states the equation"


def test_unknown_step_names_the_steps():
    with pytest.raises(KeyError, match="steps: embeddings"):
        kernel_source("attention")
