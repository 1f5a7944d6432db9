"""What crosses the bus from a device-resident Trace: every station and instrument page reads only the
cut it draws (Trace.read / Trace.part), so a GPU Trace copies at most 1.5× the bytes a page shows.

The window draws a Trace whose every value is a `Lazy` that counts the bytes it hands out, as the
cuda backend's copies do (tests/cuda_kernels/test_residency.py checks that the backend counts the
same way); so the test runs here, in a real window, without a GPU or the simulator.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compute import Config, Lazy, Trace, Weights
from compute.stations import PAGES

from .conftest import wait_render

# Drawn bytes per copied byte a page may fall short of: a little slack for the masks and numbers
# (the question is whether a page copies one head or all of them, one row or the whole map).
MOST = 1.5
GPT2 = Config(d_model=16, n_heads=4, d_head=4, n_ctx=32, d_vocab=16, n_layers=2)
LLAMA = Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=4, n_ctx=32, d_vocab=16, n_layers=2, norm="rmsnorm",
               positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False, mlp_bias=False,
               windows=(None, 4))
TOKENS = (0, 1, 2, 3, 0, 4, 5, 6, 7, 0, 1, 2)
# Circuit pages compute their numbers (attribution, the lens, the score taken apart) from the residual
# stream's parts at one position: what they may copy is those rows, one per layer and source (each
# head's result, the MLP's output, the stream itself), never a whole [T, ...] array.
FROM_ONE_POSITION = {"knockout", "logit_lens", "score_parts"}


def one_position_bytes(cfg: Config) -> int:
    return 4 * cfg.d_model * (cfg.n_layers * (cfg.n_heads + 3) + 3)


class Counter:
    def __init__(self):
        self.bytes = 0

    def out(self, a) -> np.ndarray:
        a = np.array(a, np.float32)                                          # a copy, as from a device
        self.bytes += a.nbytes
        return a


def device_like(trace: Trace, counter: Counter) -> Trace:
    """`trace` with every value made on access and counted, as a cuda Trace's are copied."""
    arrays = {}
    for key in trace.keys():
        if key == "logits":
            continue
        value = np.asarray(trace[key])
        if key in ("tokens", "pos_embed"):                                   # host values on the cuda backend too
            arrays[key] = value
            continue
        arrays[key] = Lazy(make=lambda v=value: counter.out(v), shape=value.shape,
                           part=(lambda i, v=value: counter.out(v[i])) if value.ndim == 3 else None,
                           read=lambda index, v=value: counter.out(v[index]))
    return Trace(cfg=trace.cfg, tokens=trace.tokens, backend="cuda", backend_label="cuda (counted)",
                 dtype=trace.dtype, timing_ms=dict(trace.timing_ms), _arrays=arrays,
                 _logits_fn=lambda rows: counter.out(trace._logits_fn(rows)), weights_uid=trace.weights_uid,
                 attn_mask=trace.attn_mask, _copied_fn=lambda: counter.bytes)


def drawn_bytes(content: dict) -> int:
    return sum(np.asarray(v).nbytes for v in content.values())


def _open(qtbot, win, cfg):
    s = win.state
    name = s.register_weights(Weights.random(cfg, 5), label="counted")
    wait_render(qtbot, win, lambda: s.edit("counted", config=cfg, tokens=TOKENS, weights=name, preset="custom"))
    s.select(layer=1, head=3, query=9)


def _show_counted(qtbot, win, key) -> tuple[int, int]:
    """Show page `key` with a counted Trace of the result on screen: (bytes copied, bytes drawn)."""
    s = win.state
    s.select(station=key)
    page = win.pages[key]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    if getattr(page, "views", None) is not None and key != "kv_cache":       # the KV cache waits for Prefill
        qtbot.waitUntil(lambda: page.views is not None and not page.views.waiting, timeout=30_000)
    counter = Counter()
    counted = dataclasses.replace(s.result, trace=device_like(s.result.trace, counter))
    s._result = counted                                                      # as the runner's result would be
    win._on_result(counted)
    if hasattr(page, "_refresh"):
        page._refresh()
    if not hasattr(page, "content"):                                         # √d_k lab, KV cache: no Trace read
        return counter.bytes, 0
    return counter.bytes, drawn_bytes(page.content(counted, s.selection))


@pytest.mark.parametrize("cfg", [GPT2, LLAMA], ids=["gpt2", "llama"])
def test_no_page_copies_more_than_it_draws(qtbot, window, cfg):
    _open(qtbot, window, cfg)
    too_much = {}
    for key in PAGES:
        copied, drawn = _show_counted(qtbot, window, key)
        if key in FROM_ONE_POSITION:
            drawn = max(drawn, one_position_bytes(cfg))
        if copied > MOST * drawn:
            too_much[key] = (copied, drawn)
    assert not too_much, f"pages that copy more than {MOST}× what they draw (copied, drawn): {too_much}"
    assert "copied from the GPU" in window.status_times.text()             # the status bar says it on cuda


def test_the_dot_trace_copies_its_vectors_and_three_numbers(qtbot, window):
    """A clicked score cell: q_i and k_j, then the cell's raw, masked and pattern values."""
    _open(qtbot, window, GPT2)
    _show_counted(qtbot, window, "scores")
    trace = window.state.result.trace
    before = trace.copied_bytes
    window.state.select(trace=("attn_scores", 9, 4))
    qtbot.waitUntil(lambda: trace.copied_bytes > before, timeout=5000)
    copied = trace.copied_bytes - before
    assert 0 < copied <= 2 * GPT2.d_head * 4 + 3 * 4, copied
