"""The memory estimate follows what a pass really allocates (issue 23, item 7): the cpu backend makes
the three score maps lazily from q and k, z_concat is a view of z and each resid_pre is an earlier
array, so the estimate counts the distinct arrays of a real Trace — checked here exactly, for every
family on both backends — plus one layer's score maps for the views and a measured workspace factor.
The resident memory of a real pass is checked against it in a fresh process (within 25 %), and the
real SmolLM2 at T=1024 in benchmarks/memory_estimate.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compute import PRESETS, Weights, forward, memory
from compute.trace import Lazy

from .test_family_backends import family_config

ROOT = Path(__file__).resolve().parents[2]


def allocated_bytes(trace) -> int:
    """Bytes of memory the arrays of a Trace cover, each byte once (views of one buffer — q, k and v
    of the fused product, z_concat of z, resid_pre of resid_post — counted together); token ids as
    the estimate counts them (one value each)."""
    spans = []
    for key in trace.keys():
        if key == "logits" or isinstance(trace.stored(key), Lazy):
            continue
        value = trace.stored(key)
        if key == "tokens":
            size = value.size * np.dtype(trace.dtype).itemsize
            spans.append((-1 - size, -1))                # apart from everything, at the estimate's itemsize
            continue
        spans.append(np.lib.array_utils.byte_bounds(value))
    total, end = 0, None
    for lo, hi in sorted(spans):
        if end is None or lo >= end:
            total, end = total + hi - lo, hi
        elif hi > end:
            total, end = total + hi - end, hi
    return total


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_the_estimate_is_the_bytes_a_pass_allocates(backend):
    rng = np.random.default_rng(23)
    for _ in range(8):
        cfg = family_config(rng)
        T = int(rng.integers(1, cfg.n_ctx + 1))
        trace = forward(cfg, Weights.random(cfg, 0), list(rng.integers(0, cfg.d_vocab, T)), backend=backend)
        lazy = backend == "cpu"
        est = memory.estimate(cfg, T, np.dtype(trace.dtype), lazy_scores=lazy)
        assert est.trace == allocated_bytes(trace), (cfg, T)
        maps = 4 if cfg.attn_softcap is not None else 3                   # raw, scaled (, capped), masked
        assert est.views == (maps * cfg.n_heads * T * T * 4 if lazy else 0)


def test_presets_large_and_small_follow_their_traces():
    for name, T in (("smollm2-135m", 96), ("andrea-120m", 64), ("toy", 6)):
        cfg = PRESETS[name].replace(n_layers=2)
        trace = forward(cfg, Weights.random(cfg, 0), list(range(T)), backend="cpu")
        assert memory.estimate(cfg, T).trace == allocated_bytes(trace)


def test_smollm2_at_1024_tokens_is_no_longer_estimated_at_twice_its_size():
    """The issue's numbers: 7.8 GB estimated against 3.6 GB measured (the window, weights included).
    The pass's own arrays at T=1024 are 2.86 GiB (measured: benchmarks/memory_estimate.py)."""
    est = memory.estimate(PRESETS["smollm2-135m"], 1024)
    assert 2.8 < est.trace / 2**30 < 2.9
    assert est.compute / 2**30 < 3.8 and est.total / 2**30 < 4.1


CHILD = r"""
import json, sys
import numpy as np
from compute import PRESETS, Weights, forward, memory
cfg = PRESETS["smollm2-135m"].replace(n_layers=int(sys.argv[1]))
T = int(sys.argv[2])
w = Weights.random(cfg, 0)
forward(cfg, w, list(range(8)), backend="cpu")                  # compiled, warm
def hwm():
    return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
base = memory.resident_bytes()
open("/proc/self/clear_refs", "w").write("5")                    # the peak starts again from here
trace = forward(cfg, w, list(range(T)), backend="cpu")
logits = trace["logits"]                                         # what the views may read: the logits panel,
scores = [trace[name, 0] for name in memory.LAZY_SCORES if trace.has(name, 0)]   # one layer's maps, every head
print(json.dumps({"peak": hwm() - base, "compute": memory.estimate(cfg, T).compute}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM and clear_refs are Linux's")
def test_the_resident_memory_of_a_pass_is_within_a_quarter_of_the_estimate():
    run = subprocess.run([sys.executable, "-c", CHILD, "6", "512"], capture_output=True, text=True, timeout=120,
                         cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert 0.75 <= got["peak"] / got["compute"] <= 1.25, got
