"""What loading a model gives back, whatever the file: the error, where the model came from, the
(cfg, weights, tokenizer) triple and the tokenizer wrapper. compute.loaders.checkpoint (Hugging Face
folders) and compute.loaders.gguf_file (GGUF files) both make these, so neither imports the other.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError
from ..i18n import QT_TR_NOOP, Message
from ..weights import Weights


class CheckpointError(ValueError):
    """A checkpoint folder that cannot be used; `problems` lists every reason found."""

    def __init__(self, problems: list[str] | str, folder: str | os.PathLike = "checkpoint"):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.folder = str(folder)
        shown = self.problems[:8]
        more = len(self.problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        super().__init__(f"checkpoint {self.folder!r}: {text}")


@dataclass(frozen=True)
class CheckpointInfo:
    """Where a loaded model came from and what was done to its numbers on the way in."""

    source: str                       # the folder or file
    format: str                       # "huggingface" | "gguf"
    model_type: str                   # "gpt2", "llama", "mistral", "qwen2", "qwen3"
    stored_types: Mapping[str, int]   # tensor type as stored ("F32", "BF16", "Q4_1", ...) -> count
    label: str                        # for the UI, e.g. "weights dequantized from Q4_1"
    name: str = ""                    # the model's own name, where the file gives one
    notes: tuple[str, ...] = ()       # anything else worth saying on screen


class Checkpoint(tuple):
    """(cfg, weights, tokenizer), unpackable as before, with `.info` (a CheckpointInfo)."""

    def __new__(cls, cfg: Config, weights: Weights, tokenizer: Any, info: CheckpointInfo):
        self = super().__new__(cls, (cfg, weights, tokenizer))
        self.info = info
        return self

    cfg = property(lambda self: self[0])
    weights = property(lambda self: self[1])
    tokenizer = property(lambda self: self[2])


def stored_label(types: Mapping[str, int]) -> str:
    """'weights stored as F32', 'weights converted from BF16 to float32', or for quantized files
    'weights dequantized from Q4_1 and Q8_0' (most frequent first; plain float types unnamed)."""
    floats = ("F32", "F16", "BF16", "F64")
    quant = [t for t, _ in sorted(types.items(), key=lambda kv: -kv[1]) if t not in floats]
    if quant:
        if len(quant) == 1:
            return Message(QT_TR_NOOP("weights dequantized from {type}"), type=quant[0])
        return Message(QT_TR_NOOP("weights dequantized from {types} and {last}"), types=", ".join(quant[:-1]),
                       last=quant[-1])
    kinds = [t for t in floats if t in types]
    if kinds == ["F32"]:
        return Message(QT_TR_NOOP("weights stored as F32"))
    return Message(QT_TR_NOOP("weights converted from {types} to float32"),
                   types=" and ".join(k for k in kinds if k != "F32"))


# -- tokenizer -----------------------------------------------------------------------------------
# Labels show control characters as symbols: a "\n" token would otherwise break a token chip or
# an axis label over two lines, and a "\t" would widen it by a tab stop.
VISIBLE_CONTROLS = {**{c: 0x2400 + c for c in range(32)}, 0x0A: "⏎", 0x09: "⇥", 0x7F: 0x2421}


class TokenizeError(ValueError):
    """The model's own tokenizer failed on a text (e.g. a pre-tokenizer regex that gives up: the
    tokenizers library then panics, a BaseException); the message says so."""


def _panic(exc: BaseException) -> bool:
    """A Rust panic inside tokenizers (pyo3's PanicException, a BaseException), or any Exception."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class CheckpointTokenizer:
    """The folder's own tokenizer behind the same calls as ToyTokenizer: encode, decode, label(s).
    Whatever the tokenizer does with a text (a panic included), encode raises TokenizeError."""

    def __init__(self, tokenizer: Any, source: str, n_ctx: int):
        from .sentencepiece import SentencePieceVocab

        self._tok = tokenizer                             # a tokenizers.Tokenizer or a SentencePieceVocab
        self._spm = isinstance(tokenizer, SentencePieceVocab)
        self.source = source                              # which file(s) it came from
        self.n_ctx = n_ctx                                # the model's context length
        self.size = tokenizer.size if self._spm else int(tokenizer.get_vocab_size(with_added_tokens=True))

    @property
    def bos(self) -> int | None:
        """The id this tokenizer starts every text with (Gemma's <bos>), or None (SmolLM2 adds none)."""
        try:
            ids = self.encode("")
        except Exception:                                 # a tokenizer that cannot encode "" adds nothing we know of
            return None
        return int(ids[0]) if ids else None

    def encode(self, text: str) -> list[int]:
        """Token ids for `text` (every token: nothing is truncated; see `encode_checked`)."""
        if not isinstance(text, str):
            raise TypeError(f"encode needs text (str), got {type(text).__name__}")
        try:
            if self._spm:
                return self._tok.encode(text)
            return [int(i) for i in self._tok.encode(text).ids]
        except BaseException as exc:
            if not _panic(exc):
                raise
            why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise TokenizeError(f"the model's tokenizer ({self.source}) fails on this text: {why}") from None

    def encode_checked(self, text: str) -> list[int]:
        """Like encode, but a text longer than the model's n_ctx is a ConfigError saying so."""
        ids = self.encode(text)
        if len(ids) > self.n_ctx:
            raise ConfigError("tokens", f"{len(ids):,} tokens",
                              Message(QT_TR_NOOP("the text is {T} tokens but this model reads at most n_ctx={n_ctx} "
                                                 "(config.json); shorten the text"), T=len(ids), n_ctx=self.n_ctx),
                              limit=self.n_ctx)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        ids = [int(i) for i in ids]
        try:
            if self._spm:
                return self._tok.decode([i for i in ids if 0 <= i < self.size])
            return self._tok.decode(ids, skip_special_tokens=False)
        except BaseException as exc:
            if not _panic(exc):
                raise
            return " ".join(self.label(i) for i in ids)

    def label(self, token_id: int) -> str:
        """The text of one token (e.g. ' the'), or '#id' for an id the tokenizer lacks (or cannot decode)."""
        token_id = int(token_id)
        if not 0 <= token_id < self.size:
            return f"#{token_id}"
        try:
            if self._spm:                                 # the piece itself: " the", not "the"
                return self._tok.label(token_id).translate(VISIBLE_CONTROLS)
            return self._tok.decode([token_id], skip_special_tokens=False).translate(VISIBLE_CONTROLS)
        except BaseException as exc:
            if not _panic(exc):
                raise
            return f"#{token_id}"

    def labels(self, ids: Iterable[int]) -> list[str]:
        return [self.label(i) for i in ids]

    def __repr__(self) -> str:
        return f"CheckpointTokenizer({self.source}, {self.size:,} tokens, n_ctx={self.n_ctx:,})"


def lab_cache_dir() -> Path:
    """The lab's folder for what it makes from model files: $QKV_LAB_CACHE_DIR/models, else the
    platform's cache ($XDG_CACHE_HOME or ~/.cache) /qkv-lab/models (app/language.py's folder's sibling)."""
    if os.environ.get("QKV_LAB_CACHE_DIR"):
        return Path(os.environ["QKV_LAB_CACHE_DIR"]).expanduser() / "models"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "qkv-lab" / "models"
