"""SentencePiece vocabularies as GGUF files carry them (`tokenizer.ggml.model = "llama"`): Gemma 3,
Llama 2, TinyLlama, Mistral 7B v0.1.

    vocab = SentencePieceVocab(tokens, scores, types, bos_id=2, add_bos=True, add_space_prefix=False)
    vocab.encode("The capital of France is")       # [2, 818, 5279, 529, 7001, 563]
    vocab.decode(ids, skip_special=True)           # 'The capital of France is'

The file has no merges, only pieces with scores; encoding is llama.cpp's `llm_tokenizer_spm`
(src/llama-vocab.cpp), step by step:

1. the text is cut at every special piece first (control, user-defined and unknown pieces, longest
   first, matched in the raw text: Gemma's "\\n", "  " and "<start_of_turn>" are such pieces);
2. each remaining fragment gets a space in front when `add_space_prefix` (Llama 2: yes, Gemma: no)
   and it starts the text or follows a special piece, then every " " becomes "▁" (U+2581);
3. the fragment is split into characters and the neighbouring pair whose joined text is a piece
   with the highest score is merged (ties: the leftmost), again and again until no pair is a piece;
4. a symbol that is not a piece (a character the vocabulary lacks: an emoji, a rare letter) is
   written as its UTF-8 bytes, one `<0xNN>` piece each (byte fallback).

BOS goes first when `add_bos` (the file's `tokenizer.ggml.add_bos_token`; SentencePiece
vocabularies default to yes), EOS last when `add_eos`.

Decoding joins the pieces' bytes ("▁" back to " ", a byte piece to its byte, a special piece to its
own text) and reads them as UTF-8. Where encoding added a prefix space (at the start, after a special
piece), decoding removes it again, so `decode(encode(s), skip_special=True) == s` for every text.
(llama.cpp removes only the first one, and keeps it after a BOS it skips.)

Token types (llama.cpp's LLAMA_TOKEN_TYPE_*): 1 normal, 2 unknown, 3 control, 4 user-defined,
5 unused, 6 byte. Every problem with the vocabulary is a SentencePieceError saying what.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPECIAL = (CONTROL, USER_DEFINED, UNKNOWN)          # matched whole in the raw text, before anything else
SPACE = "\u2581"                                    # "▁": SentencePiece's visible space


class SentencePieceError(ValueError):
    """A vocabulary that cannot be used, or a text it cannot encode; the message says why."""


class SentencePieceVocab:
    """A SentencePiece vocabulary (pieces, scores, types) with llama.cpp's encode and a decode."""

    def __init__(self, tokens: Sequence[str], scores: Sequence[float], types: Sequence[int] | None = None, *,
                 bos_id: int | None = None, eos_id: int | None = None, unk_id: int | None = None,
                 add_bos: bool = True, add_eos: bool = False, add_space_prefix: bool = True,
                 parse_special: bool = True):
        n = len(tokens)
        if n == 0:
            raise SentencePieceError("the vocabulary is empty")
        if len(scores) < n:
            raise SentencePieceError(f"the vocabulary has {n:,} pieces but only {len(scores):,} scores")
        if types is not None and len(types) < n:
            raise SentencePieceError(f"the vocabulary has {n:,} pieces but only {len(types):,} token types")
        # An empty piece gets a name as llama.cpp gives it; it can never match text.
        self.tokens = [t if t else f"[EMPTY_{i}]" for i, t in enumerate(tokens)]
        self.scores = [float(s) for s in scores[:n]]
        self.types = [int(k) for k in types[:n]] if types is not None else [NORMAL] * n
        self.ids: dict[str, int] = dict(zip(self.tokens, range(n), strict=True))
        if len(self.ids) != n:                            # a piece twice: find the first (a slow path)
            first: dict[str, int] = {}
            for i, t in enumerate(self.tokens):
                if first.setdefault(t, i) != i:
                    raise SentencePieceError(f"the piece {t[:40]!r} appears twice (ids {first[t]} and {i})")
        for name, value in (("bos", bos_id), ("eos", eos_id), ("unknown", unk_id)):
            if value is not None and not 0 <= value < n:
                raise SentencePieceError(f"the {name} token id {value} is outside the vocabulary of {n:,}")
        if add_bos and bos_id is None:
            raise SentencePieceError("the vocabulary adds a BOS token but names none (tokenizer.ggml.bos_token_id)")
        if add_eos and eos_id is None:
            raise SentencePieceError("the vocabulary adds an EOS token but names none (tokenizer.ggml.eos_token_id)")
        self.bos_id, self.eos_id, self.unk_id = bos_id, eos_id, unk_id
        self.add_bos, self.add_eos, self.add_space_prefix = add_bos, add_eos, add_space_prefix
        # Byte fallback: the piece "<0xNN>", else (as llama.cpp) the byte itself as a one-character piece.
        self.byte_ids: list[int | None] = []
        for b in range(256):
            found = self.ids.get(f"<0x{b:02X}>")
            if found is None and b < 0x80:
                found = self.ids.get(chr(b))
            self.byte_ids.append(found)
        # Special pieces, longest first (so "\n\n" is cut before "\n"); without parse_special only
        # the user-defined ones (llama.cpp: control and unknown pieces are then plain text).
        kinds = SPECIAL if parse_special else (USER_DEFINED,)
        self.special = sorted((i for i, k in enumerate(self.types) if k in kinds), key=lambda i: -len(self.tokens[i]))

    @property
    def size(self) -> int:
        return len(self.tokens)

    # -- encode ---------------------------------------------------------------------------------
    def encode(self, text: str, *, add_special: bool = True) -> list[int]:
        """Token ids of `text`, with BOS/EOS as the vocabulary asks (unless add_special=False)."""
        if not isinstance(text, str):
            raise TypeError(f"encode needs text (str), got {type(text).__name__}")
        out: list[int] = []
        if add_special and self.add_bos:
            out.append(self.bos_id)
        prev_special = True                              # the text's start counts as after a special piece
        for part in self._partition(text):
            if isinstance(part, int):
                out.append(part)
                prev_special = True
                continue
            if self.add_space_prefix and prev_special:
                part = " " + part
            self._merge(part.replace(" ", SPACE), out)
            prev_special = False
        if add_special and self.add_eos:
            out.append(self.eos_id)
        return out

    def _partition(self, text: str) -> list[str | int]:
        """The text cut at special pieces: a list of text fragments (str) and piece ids (int)."""
        parts: list[str | int] = [text] if text else []
        for sid in self.special:
            piece = self.tokens[sid]
            if not any(isinstance(p, str) and piece in p for p in parts):
                continue
            cut: list[str | int] = []
            for p in parts:
                if not isinstance(p, str) or piece not in p:
                    cut.append(p)
                    continue
                pieces = p.split(piece)
                for j, frag in enumerate(pieces):
                    if j:
                        cut.append(sid)
                    if frag:
                        cut.append(frag)
            parts = cut
        return parts

    def _merge(self, text: str, out: list[int]) -> None:
        """llm_tokenizer_spm_session::tokenize: merge the best-scoring neighbouring pair until none
        is a piece, then each symbol is its piece or its bytes."""
        n = len(text)
        if n == 0:
            return
        start = list(range(n))                          # symbol i covers text[start[i]:start[i] + size[i]]
        size = [1] * n
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        heap: list[tuple[float, int, int, int]] = []    # (-score, left, right, joined length): best first

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            joined = text[start[left]:start[left] + size[left] + size[right]]
            tid = self.ids.get(joined)
            if tid is not None:
                heapq.heappush(heap, (-self.scores[tid], left, right, len(joined)))

        for i in range(1, n):
            add(i - 1, i)
        while heap:
            _, left, right, length = heapq.heappop(heap)
            if size[left] == 0 or size[right] == 0 or size[left] + size[right] != length:
                continue                                # one side was merged since: stale
            size[left] += size[right]
            size[right] = 0
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            add(prev[left], left)
            add(left, nxt[left])
        i = 0
        while i != -1:
            symbol = text[start[i]:start[i] + size[i]]
            tid = self.ids.get(symbol)
            if tid is not None:
                out.append(tid)
            else:                                       # every merge made a piece: only single characters miss
                out.extend(self._byte_id(b, symbol) for b in symbol.encode("utf-8"))
            i = nxt[i]

    def _byte_id(self, b: int, symbol: str) -> int:
        tid = self.byte_ids[b]
        if tid is not None:
            return tid
        if self.unk_id is not None:
            return self.unk_id
        raise SentencePieceError(f"the character {symbol!r} is not in the vocabulary, which has no byte piece "
                                 f"<0x{b:02X}> and no unknown token to write it with")

    # -- decode ---------------------------------------------------------------------------------
    def piece_bytes(self, token_id: int) -> bytes:
        """What one token stands for, as bytes: "▁" as a space, a byte piece as its byte, a special
        piece as its own text, an unused piece as nothing (llama.cpp's token_to_piece)."""
        kind, text = self.types[token_id], self.tokens[token_id]
        if kind == NORMAL:
            return text.replace(SPACE, " ").encode("utf-8")
        if kind == BYTE:
            return bytes([self._byte_of(token_id)])
        if kind in SPECIAL:
            return text.encode("utf-8")
        return b""

    def _byte_of(self, token_id: int) -> int:
        text = self.tokens[token_id]
        try:
            return int(text[3:5], 16) if len(text) == 6 and text.startswith("<0x") and text.endswith(">") else ord(text)
        except (ValueError, TypeError):
            raise SentencePieceError(f"token {token_id} ({text[:20]!r}) is marked as a byte but is not <0xNN>") \
                from None

    def decode(self, ids: Iterable[int], *, skip_special: bool = False) -> str:
        """The text of `ids` (invalid UTF-8 from cut byte pieces shown as U+FFFD). The prefix spaces
        encode added are removed; `skip_special` leaves out control pieces (BOS, EOS, ...)."""
        data = bytearray()
        after_special = True
        for tid in ids:
            tid = int(tid)
            if not 0 <= tid < self.size:
                raise SentencePieceError(f"token id {tid} is outside the vocabulary of {self.size:,}")
            kind = self.types[tid]
            if kind in SPECIAL:                         # encode starts a new fragment after each
                if kind == USER_DEFINED or not skip_special:
                    data += self.piece_bytes(tid)
                after_special = True
                continue
            piece = self.piece_bytes(tid)
            if self.add_space_prefix and after_special and piece.startswith(b" "):
                piece = piece[1:]                       # the space encode put in front of the fragment
            after_special = False
            data += piece
        return data.decode("utf-8", errors="replace")

    def label(self, token_id: int) -> str:
        """One token as text for a chip or an axis: the piece with "▁" as a space; a byte piece as
        its character when it is one (ASCII), else as written ("<0xE2>")."""
        kind, text = self.types[token_id], self.tokens[token_id]
        if kind == BYTE:
            b = self._byte_of(token_id)
            return chr(b) if b < 0x80 else text
        if kind == NORMAL:
            return text.replace(SPACE, " ")
        return text

    def __repr__(self) -> str:
        return (f"SentencePieceVocab({self.size:,} pieces, add_bos={self.add_bos}, "
                f"add_space_prefix={self.add_space_prefix})")
