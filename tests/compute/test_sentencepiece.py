"""SentencePiece vocabularies (GGUF tokenizer.ggml.model = "llama"): llama.cpp's merges by score,
the prefix space, special pieces, byte fallback and decoding, on a tiny vocabulary written into a
GGUF file and compared with transformers' own tokenizer built from that file."""
from __future__ import annotations

import numpy as np
import pytest

from compute import CheckpointError, load_checkpoint
from compute.loaders.sentencepiece import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    USER_DEFINED,
    SentencePieceError,
    SentencePieceVocab,
)

from .gguf_files import write_gguf
from .hf_models import make_hf_model

# Pieces and scores: a higher score merges first. "bc" beats "ab" although "ab" is leftmost, and
# "▁the" is reached through "he" and "▁t" (three merge levels). Every score differs (no ties).
MERGED = {"▁t": -8.0, "he": -9.0, "▁the": -10.5, "bc": -10.0, "ab": -20.0, "▁a": -30.0, "at": -11.0,
          "▁c": -12.0, "▁cat": -13.0, "▁s": -14.0, "▁sat": -15.0, "▁▁": -16.0, "on": -17.0, "▁on": -18.0}
LETTERS = "▁abcehnost"


def tiny_vocab() -> tuple[list[str], list[float], list[int]]:
    tokens = ["<unk>", "<s>", "</s>", "\n"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [UNKNOWN, CONTROL, CONTROL, USER_DEFINED] + [BYTE] * 256
    scores = [0.0] * len(tokens)
    for n, ch in enumerate(LETTERS):
        tokens.append(ch)
        scores.append(-100.0 - n)
        types.append(NORMAL)
    for piece, score in MERGED.items():
        tokens.append(piece)
        scores.append(score)
        types.append(NORMAL)
    return tokens, scores, types


def vocab(**kw) -> SentencePieceVocab:
    tokens, scores, types = tiny_vocab()
    return SentencePieceVocab(tokens, scores, types, **{"bos_id": 1, "eos_id": 2, "unk_id": 0, **kw})


def pieces(v: SentencePieceVocab, text: str, **kw) -> list[str]:
    return [v.tokens[i] for i in v.encode(text, **kw)]


def test_pairs_merge_by_the_score_of_the_piece_they_make_not_left_to_right():
    v = vocab()
    assert pieces(v, "abc") == ["<s>", "▁a", "bc"]              # "bc" (-10) before "ab" (-20); then "▁a"
    assert pieces(v, "the cat sat on") == ["<s>", "▁the", "▁cat", "▁sat", "▁on"]
    assert pieces(v, "ab", add_special=False) == ["▁", "ab"]     # "ab" (-20) beats "▁a" (-30)
    # the pieces a greedy longest match would give instead: the order is the scores', not the text's
    assert pieces(v, "abc", add_special=False) != ["▁", "ab", "c"]


def test_the_prefix_space_spaces_and_special_pieces():
    v = vocab()
    # "▁▁the": "▁t" (-8) takes the second "▁" before "▁▁" (-16) could join the first two
    assert pieces(v, " the") == ["<s>", "▁", "▁the"]
    assert pieces(vocab(add_space_prefix=False), "the cat") == ["<s>", "t", "he", "▁cat"]
    # a special piece is cut out of the raw text first; the fragment after it gets its own prefix space
    assert pieces(v, "cat\nthe</s>on") == ["<s>", "▁cat", "\n", "▁the", "</s>", "▁on"]
    assert pieces(vocab(parse_special=False), "</s>", add_special=False)[:2] == ["▁", "<0x3C>"]
    assert pieces(vocab(add_bos=False, add_eos=True), "on") == ["▁on", "</s>"]


def test_characters_the_vocabulary_lacks_fall_back_to_their_bytes():
    v = vocab()
    assert pieces(v, "né", add_special=False) == ["▁", "n", "<0xC3>", "<0xA9>"]
    assert pieces(v, "🦙", add_special=False) == ["▁", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"]
    assert v.label(v.ids["<0xC3>"]) == "<0xC3>" and v.label(v.ids["<0x41>"]) == "A"
    assert v.label(v.ids["▁cat"]) == " cat"


@pytest.mark.parametrize("text", ["the cat sat on", " the  cat ", "né 🦙 日本\n\nok", "", "\n", "cat</s>the",
                                  "a" * 40, "tab\there", "  "])
@pytest.mark.parametrize("prefix", [True, False])
def test_decode_undoes_encode(text, prefix):
    v = vocab(add_space_prefix=prefix)
    ids = v.encode(text)
    assert v.decode(ids, skip_special=True) == text.replace("</s>", "")
    assert v.decode(ids) == "<s>" + text


def test_random_texts_round_trip(rng):
    v = vocab()
    alphabet = list("abcehnost ") + ["\n", "é", "日", "🦙", "Z", "  "]
    for _ in range(200):
        text = "".join(rng.choice(alphabet, size=int(rng.integers(0, 30))))
        ids = v.encode(text)
        assert v.decode(ids, skip_special=True) == text, text
        assert all(0 <= i < v.size for i in ids)


def test_bad_vocabularies_say_what_is_wrong():
    tokens, scores, types = tiny_vocab()
    with pytest.raises(SentencePieceError, match="appears twice"):
        SentencePieceVocab([*tokens, "▁cat"], [*scores, 0.0], [*types, NORMAL], bos_id=1)
    with pytest.raises(SentencePieceError, match="only 3 scores"):
        SentencePieceVocab(tokens, scores[:3], types, bos_id=1)
    with pytest.raises(SentencePieceError, match="names none"):
        SentencePieceVocab(tokens, scores, types, bos_id=None)
    with pytest.raises(SentencePieceError, match="outside the vocabulary"):
        SentencePieceVocab(tokens, scores, types, bos_id=10**6)
    no_bytes = [t for t, k in zip(tokens, types, strict=True) if k != BYTE]
    keep = [i for i, k in enumerate(types) if k != BYTE]
    bare = SentencePieceVocab(no_bytes, [scores[i] for i in keep], [types[i] for i in keep], bos_id=1)
    with pytest.raises(SentencePieceError, match="no byte piece"):
        bare.encode("é")
    with_unk = SentencePieceVocab(no_bytes, [scores[i] for i in keep], [types[i] for i in keep], bos_id=1, unk_id=0)
    assert with_unk.encode("é", add_special=False) == [with_unk.ids["▁"], 0, 0]


# -- in a GGUF file ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spm_gguf(tmp_path_factory):
    pytest.importorskip("gguf")
    tokens, scores, types = tiny_vocab()
    model = make_hf_model("llama", seed=5, vocab_size=len(tokens), num_attention_heads=4, num_key_value_heads=2)
    path = write_gguf(tmp_path_factory.mktemp("spm") / "spm.gguf", model, None, add_bos=True,
                      spm={"tokens": tokens, "scores": scores, "types": types})
    return path


TEXTS = ["the cat sat on", " the  cat ", "abc ab", "né 🦙 ok", "on\nthe cat", "aaaa bbbb", "seat hat nest",
         "日本", "t h e", "   "]


def test_a_gguf_with_a_sentencepiece_vocabulary_opens_with_it(spm_gguf):
    _, _, tok = loaded = load_checkpoint(spm_gguf)
    assert loaded.info.format == "gguf" and "SentencePiece" in tok.source
    assert tok.encode("the cat") == [1, *vocab().encode("the cat", add_special=False)]       # BOS: add_bos_token
    assert tok.labels(tok.encode("the cat\n")) == ["<s>", " the", " cat", "⏎"]
    assert tok.decode(tok.encode("né 🦙")) == "<s>né 🦙"


def test_the_gguf_vocabulary_encodes_as_transformers_reads_the_same_file(spm_gguf):
    """transformers' GGUF integration rebuilds the vocabulary as a BPE with byte fallback (merges
    derived from the scores): an implementation independent of llama.cpp's and ours."""
    mapping = pytest.importorskip("transformers.integrations.gguf.gguf_tokenizer_mapping")
    arch, vocab_dict, _ = mapping.get_gguf_tokenizer(str(spm_gguf))
    hf, _ = mapping.convert_gguf_tokenizer(arch, vocab_dict)
    _, _, ours = load_checkpoint(spm_gguf)
    rng = np.random.default_rng(0)
    random_texts = ["".join(rng.choice(list("abcehnost  é日"), size=int(rng.integers(1, 25)))) for _ in range(60)]
    compared = 0

    def hf_ids(text: str) -> list[int]:
        ids = hf.encode(text).ids
        return ids[1:] if ids[:1] == [1] else ids

    for text in TEXTS + random_texts:
        if text.startswith(" "):
            # The one known difference: llama.cpp always puts the prefix space in front, tokenizers'
            # Metaspace none when the text already starts with one; with it written out they agree.
            assert ours.encode(text)[1:] == hf_ids(" " + text), text
            continue
        if "\n" in text:
            # The other: after a special piece ("\n" is one here) llama.cpp starts a new fragment with
            # its own prefix space; tokenizers puts one only at the start of the text.
            head, tail = text.split("\n", 1)
            assert ours.encode(text)[1:] == [*hf_ids(head), ours.encode("\n")[1], *hf_ids(tail)], text
            continue
        assert ours.encode(text)[1:] == hf_ids(text), text
        compared += 1
    assert compared > 50


def test_a_broken_sentencepiece_vocabulary_is_refused_clearly(tmp_path):
    tokens, scores, types = tiny_vocab()
    model = make_hf_model("llama", seed=5, vocab_size=len(tokens), num_attention_heads=4, num_key_value_heads=2)
    dup = write_gguf(tmp_path / "dup.gguf", model, None,
                     spm={"tokens": [*tokens[:-1], "▁cat"], "scores": scores, "types": types})
    with pytest.raises(CheckpointError, match="appears twice"):
        load_checkpoint(dup)
