"""Issue 25 item 7: the head lens starts from the selected head and the head most different from it
(compute/instruments/explain.py: pattern_distance, most_different_head, lens_heads)."""
from __future__ import annotations

import numpy as np

from app.values import Inputs, make_weights, preset_config
from compute import forward, toy_tokenizer
from compute.instruments import explain


def _trace():
    cfg = preset_config("toy").replace(n_heads=3, n_kv_heads=3)
    inputs = Inputs(config=cfg, tokens=tuple(toy_tokenizer().encode("the cat sat on the mat")), weights="random")
    return forward(cfg, make_weights(inputs), inputs.tokens, backend="reference")


def test_pattern_distance_is_total_variation_per_row():
    eye, first = np.eye(3), np.zeros((3, 3))
    first[:, 0] = 1.0
    assert explain.pattern_distance(eye, eye) == 0.0
    assert np.isclose(explain.pattern_distance(eye, first), 2 / 3)      # row 0 agrees, rows 1, 2 disjoint


def test_the_lens_starts_from_the_selected_head_and_its_opposite():
    t = _trace()
    for i in (t.T - 1, 2):                                         # at the query: the last by default
        mine = t["pattern", 1][2][i]
        distances = {(layer, h): explain.pattern_distance(mine[None], t["pattern", layer][h][i][None])
                     for layer in range(t.n_layers) for h in range(3) if (layer, h) != (1, 2)}
        far = max(distances, key=distances.get)
        assert explain.most_different_head(t, 1, 2, None if i == t.T - 1 else i) == far
        assert explain.lens_heads(t, None, 1, 2, i) == ((1, 2), far)
    assert explain.lens_heads(t, ((0, 0), (1, 1)), 1, 2) == ((0, 0), (1, 1))     # chosen on the page: kept
