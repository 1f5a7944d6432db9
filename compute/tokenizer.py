"""Words <-> token ids for the toy vocabulary shipped in assets/toy_vocab.txt.

The same two calls (`encode(text) -> list[int]`, `decode(ids) -> str`) are what any tokenizer
offers the app, so a checkpoint's own tokenizer can stand in for this one.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
TOY_VOCAB_FILE = ASSETS / "toy_vocab.txt"
_WORD = re.compile(r"[A-Za-z']+|[^\sA-Za-z']")


class VocabularyError(ValueError):
    """Text with words the vocabulary does not have; the message lists the vocabulary."""

    def __init__(self, unknown: list[str], vocab: list[str]):
        self.unknown = unknown
        self.vocab = vocab
        words = ", ".join(repr(w) for w in unknown)
        super().__init__(f"not in the vocabulary: {words}. The {len(vocab)} words are: {' '.join(vocab)}")


class ToyTokenizer:
    """One token per word, case-insensitive; punctuation marks are words of their own (left out
    where the vocabulary has none)."""

    def __init__(self, vocab: list[str]):
        if len(set(vocab)) != len(vocab) or not vocab:
            raise ValueError("a vocabulary needs at least one word and no repeats")
        self.vocab = list(vocab)
        self._ids = {w: i for i, w in enumerate(self.vocab)}

    @classmethod
    def from_file(cls, path: str | Path) -> ToyTokenizer:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls([ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")])

    @property
    def size(self) -> int:
        return len(self.vocab)

    def split(self, text: str) -> list[str]:
        return [w.lower() for w in _WORD.findall(text)]

    def left_out(self, text: str) -> list[str]:
        """The punctuation marks in `text` that this vocabulary lacks: encode() drops them, so a
        typed "the cat sat on the mat." is the sentence, not an error (say so with this list)."""
        return [w for w in dict.fromkeys(self.split(text)) if w not in self._ids and _is_punctuation(w)]

    bos = None                                            # the toy vocabulary starts a text with no special token

    def encode(self, text: str) -> list[int]:
        dropped = set(self.left_out(text))
        words = [w for w in self.split(text) if w not in dropped]
        unknown = [w for w in dict.fromkeys(words) if w not in self._ids]
        if unknown:
            raise VocabularyError(unknown, self.vocab)
        return [self._ids[w] for w in words]

    def decode(self, ids) -> str:
        return " ".join(self.label(i) for i in ids)

    def label(self, token_id: int) -> str:
        """The word for an id, or '#id' for ids beyond this vocabulary (larger models)."""
        token_id = int(token_id)
        return self.vocab[token_id] if 0 <= token_id < len(self.vocab) else f"#{token_id}"

    def labels(self, ids) -> list[str]:
        return [self.label(i) for i in ids]


def _is_punctuation(word: str) -> bool:
    return len(word) == 1 and unicodedata.category(word).startswith("P")


@lru_cache(maxsize=1)
def toy_tokenizer() -> ToyTokenizer:
    return ToyTokenizer.from_file(TOY_VOCAB_FILE)
