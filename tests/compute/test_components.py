"""compute/models/components.py: the parts a Config names, made once, and the names, weights and
multiply-adds the rest of the lab reads from them."""
from __future__ import annotations

import pickle

import pytest

from compute import PRESETS, Config
from compute.models import TAGS, Attention, GeluMLP, LayerNorm, Learned, RMSNorm, Rotary, SwiGLU, block_macs
from compute.models.components import MLP_KINDS
from compute.names import block_weight_names, layer_names

from .test_family_backends import family_config


def test_a_config_chooses_its_components_once():
    smol = PRESETS["smollm2-135m"]
    c = smol.components
    assert c is smol.components                                              # made once per Config
    assert isinstance(c.norm, RMSNorm) and isinstance(c.positions, Rotary) and isinstance(c.mlp, SwiGLU)
    assert (c.attention.kind, c.attention.n_groups, c.positions.base, c.norm.eps) == ("gqa", 3, 1e5, 1e-5)
    gpt2 = PRESETS["gpt2-small"].components
    assert isinstance(gpt2.norm, LayerNorm) and isinstance(gpt2.positions, Learned) and isinstance(gpt2.mlp, GeluMLP)
    assert gpt2.score_inputs == ("q", "k") and c.score_inputs == ("rot_q", "rot_k") and c.cached_key == "rot_k"
    mqa = smol.replace(n_kv_heads=1, rotary_dim=32, windows=7).components
    assert mqa.attention.kind == "mqa" and mqa.positions.partial and mqa.layer(3).window == 7
    assert pickle.loads(pickle.dumps(smol)).components == c                  # a Config crosses processes


def test_tags_are_the_views_conditions():
    c = PRESETS["smollm2-135m"].components
    assert c.tags == {"rmsnorm", "rope", "swiglu", "gqa", "nobias"} and c.tags <= set(TAGS)
    assert c.has("rope") and not c.has("learned") and c.has("")
    with pytest.raises(KeyError, match="no component condition 'ropee'"):
        c.has("ropee")


@pytest.mark.parametrize("trial", range(6))
def test_the_names_follow_the_components(rng, trial):
    cfg = family_config(rng)
    c = cfg.components
    blocks, names = set(block_weight_names(cfg)), set(layer_names(cfg))
    mlp = c.experts.weight_names() if c.experts is not None else c.mlp.weight_names()   # experts replace the MLP
    pre = set(c.norm.weight_names("ln1")) if c.pre_norm else set()
    post = {"ln1_post.w", "ln2_post.w"} if c.post_norm is not None else set()
    assert pre | post | set(mlp) | set(c.attention.qk_norm_weight_names()) <= blocks
    assert ("ln1.w" in blocks) == c.pre_norm and ("ln2_post.w" in blocks) == (c.post_norm is not None)
    if c.pre_norm:
        assert set(c.norm.stat_names("ln1")) | set(c.norm.stat_names("ln2")) <= names
    assert ({"attn_out_normed", "mlp_out_normed"} <= names) == (c.post_norm is not None)
    assert set(c.score_inputs) | set(c.rope_inputs) <= names
    assert ("mlp.W_gate" in blocks) == (c.mlp.gated and c.experts is None)
    assert ("ln1.b" in blocks) == (c.norm.has_bias and c.pre_norm)
    assert ("router_probs" in names) == ("moe.W_router" in blocks) == (c.experts is not None)


def test_block_macs_count_each_product():
    cfg = Config(d_model=8, n_heads=4, n_kv_heads=2, d_head=3, d_mlp=5, n_ctx=16)
    attention = 6 * 8 * (4 + 4) * 3 + 2 * 4 * (1 + 2 + 3 + 4 + 5 + 6) * 3 + 6 * 4 * 3 * 8
    assert block_macs(cfg, 6, 6) == attention + 2 * 6 * 8 * 5
    assert block_macs(cfg.replace(mlp="swiglu"), 6, 6) == attention + 3 * 6 * 8 * 5     # W_gate too
    assert Attention(4, 2, 16).scale == 0.25 and Attention(4, 2, 16, scaled=False).scale == 1.0


def test_every_mlp_kind_is_a_views_condition():
    """Each MLP component names the TAGS condition its views use (a new kind without one showed GPT-2's
    MLP station for Gemma's GeGLU)."""
    for kind in MLP_KINDS.values():
        assert kind.tag in TAGS, kind
