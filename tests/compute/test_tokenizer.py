from __future__ import annotations

import pytest

from compute import PRESETS, ToyTokenizer, VocabularyError, toy_tokenizer


def test_toy_vocabulary_has_16_words_and_round_trips():
    tok = toy_tokenizer()
    assert tok.size == 16 == PRESETS["toy"].d_vocab
    ids = tok.encode("The cat sat on the mat")
    assert ids == [0, 1, 2, 3, 0, 4]
    assert tok.decode(ids) == "the cat sat on the mat"
    assert tok.labels([4, 99]) == ["mat", "#99"]


def test_unknown_words_list_the_vocabulary():
    with pytest.raises(VocabularyError) as info:
        toy_tokenizer().encode("the zebra sat on the sofa")
    msg = str(info.value)
    assert info.value.unknown == ["zebra", "sofa"]
    assert "'zebra', 'sofa'" in msg and "the cat sat on mat" in msg


def test_vocabulary_must_be_unique():
    with pytest.raises(ValueError):
        ToyTokenizer(["a", "a"])
