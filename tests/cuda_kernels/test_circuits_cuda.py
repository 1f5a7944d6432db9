"""Interventions on the `cuda` backend (compute/circuits.py): the layers before the first intervened one
come from the cuda pass (or `reuse`), the rest follow; the result equals the float64 reference with the
same interventions. Tiny sizes: every CUDA thread is a Python thread under the simulator."""
from __future__ import annotations

import pytest

from compute import Config, Weights, forward
from compute.circuits import Ablate, Patch, head_attribution
from tests.compute.helpers import max_scaled_error

from .helpers import TOL


@pytest.mark.parametrize("llama", [False, True])
def test_cuda_interventions_equal_the_reference(llama):
    if llama:
        cfg = Config(d_model=8, n_heads=4, n_kv_heads=2, d_head=4, d_mlp=12, n_ctx=10, d_vocab=13, n_layers=3,
                     norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=True, mlp_bias=False,
                     tied_embeddings=False)
    else:
        cfg = Config(d_model=8, n_heads=2, d_head=4, d_mlp=12, n_ctx=10, d_vocab=13, n_layers=3)
    w = Weights.random(cfg, seed=4)
    clean_ids, ids = [1, 5, 2, 7, 5, 2], [1, 5, 3, 7, 5, 9]
    src_cuda, src_ref = forward(cfg, w, clean_ids, "cuda"), forward(cfg, w, clean_ids, "reference")
    base = forward(cfg, w, ids, "cuda")
    assert base.backend == "cuda"
    for make in (lambda s: [Ablate(1, 1, "mean")], lambda s: [Patch("z", 2, s, head=0), Ablate(1, 0)],
                 lambda s: [Patch("resid_pre", 1, s, positions=[2])]):
        got = forward(cfg, w, ids, "cuda", interventions=make(src_cuda), reuse=base)
        want = forward(cfg, w, ids, "reference", interventions=make(src_ref))
        assert got.backend == "cuda" and got.reused_layers == 1
        for key in want.keys():
            assert max_scaled_error(got[key], want[key]) <= TOL, key
        assert max_scaled_error(head_attribution(got, 3), head_attribution(want, 3)) <= TOL
