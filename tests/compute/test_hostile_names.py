"""Names in and around model files that Python's own functions trip on (issue 23, item 5): each is
a CheckpointError that names the problem, never an OSError, ValueError or a crash."""
from __future__ import annotations

import json

import pytest

from compute import CheckpointError, checkpoint_config, load_checkpoint

from .test_checkpoint import hf_tensors, make_checkpoint

LONG = "m" * 300


@pytest.mark.parametrize("shape", ["name", "gguf", "inside"])
def test_a_path_too_long_for_the_file_system_is_said(tmp_path, shape):
    path = {"name": LONG, "gguf": str(tmp_path / (LONG + ".gguf")),
            "inside": str(tmp_path / LONG / "config.json")}[shape]
    for load in (checkpoint_config, load_checkpoint):
        with pytest.raises(CheckpointError, match="too long|not found"):
            load(path)


def test_a_shard_name_too_long_for_the_file_system_is_said(tmp_path):
    folder = make_checkpoint(tmp_path / "sharded")
    (folder / "model.safetensors").rename(folder / "model-1.safetensors")
    names = list(hf_tensors())
    index = {"weight_map": {n: ("x" * 300 + ".safetensors") if i == 0 else "model-1.safetensors"
                            for i, n in enumerate(names)}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="too long for the file system"):
        load_checkpoint(folder)


@pytest.mark.parametrize("digit", ["²", "١", "𝟙"])
def test_a_layer_number_that_is_not_ascii_is_a_checkpoint_error(tmp_path, digit):
    tensors = hf_tensors()
    name = next(n for n in tensors if n.startswith("h.1."))
    tensors[name.replace("h.1.", f"h.{digit}.", 1)] = tensors.pop(name)
    folder = make_checkpoint(tmp_path / "digits", tensors=tensors)
    with pytest.raises(CheckpointError):
        load_checkpoint(folder)


@pytest.mark.parametrize("bos", ["<|end of text|>", "$B:1", "x:1", "$A"])
def test_a_gguf_bos_token_the_template_language_would_misread_still_opens(tmp_path, bos):
    pytest.importorskip("gguf")
    pytest.importorskip("transformers")
    from .gguf_files import byte_level_bpe, write_gguf
    from .hf_models import make_hf_model

    model = make_hf_model("llama", seed=3, vocab_size=300, num_attention_heads=4, num_key_value_heads=2)
    path = write_gguf(tmp_path / "bos.gguf", model, byte_level_bpe(300), add_bos=True, rename={0: bos})
    cfg, weights, tok = load_checkpoint(path)
    ids = tok.encode("the cat")
    assert ids[0] == 0 and len(ids) > 1 and tok.label(0) == bos
