"""Fuzzed model files (issue 23): GGUF headers of any shape and tokenizer.json files of any make-up
give a model or a CheckpointError, and a model's tokenizer gives ids or a TokenizeError for any
text — never another exception, a Rust panic (a BaseException) or a hang. The examples are few and
derandomized, so the suite stays quick and CI sees the same cases every run."""
from __future__ import annotations

import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compute import CheckpointError, load_checkpoint
from compute.loaders.loaded import TokenizeError

from .test_checkpoint import make_checkpoint

FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _loaded_or_refused(path) -> object | None:
    try:
        return load_checkpoint(path)
    except CheckpointError as exc:
        assert str(exc)
        return None


def _texts_work(tok, texts) -> None:
    for text in texts:
        try:
            ids = tok.encode(text)
        except TokenizeError as exc:
            assert "fails on this text" in str(exc)
            continue
        assert all(isinstance(i, int) for i in ids)
        assert all(isinstance(label, str) for label in tok.labels(ids))
        assert isinstance(tok.decode(ids), str)


# -- GGUF headers ----------------------------------------------------------------------------------------------
KEYS = ["general.architecture", "general.alignment", "llama.block_count", "llama.context_length",
        "llama.embedding_length", "llama.feed_forward_length", "llama.attention.head_count",
        "llama.attention.head_count_kv", "llama.rope.freq_base", "llama.attention.layer_norm_rms_epsilon",
        "llama.vocab_size", "tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
        "tokenizer.ggml.merges", "tokenizer.ggml.token_type", "tokenizer.ggml.bos_token_id",
        "tokenizer.ggml.add_bos_token"]
SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
BIG = st.sampled_from([0, 1, 2, 7, 255, 1 << 16, 1 << 20, (1 << 31) - 1, 1 << 32, 1 << 40, (1 << 63) - 1,
                       (1 << 64) - 1])


def _string(text: str) -> bytes:
    b = text.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(b)) + b


@st.composite
def scalar_value(draw, code: int) -> bytes:
    fmt = SCALAR[code]
    if fmt in ("<f", "<d"):
        return struct.pack(fmt, draw(st.floats(allow_nan=True, allow_infinity=True, width=32 if fmt == "<f" else 64)))
    if fmt == "<?":
        return struct.pack("<B", draw(st.integers(0, 255)))
    bits = struct.calcsize(fmt) * 8
    lo, hi = (0, (1 << bits) - 1) if fmt.isupper() else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return struct.pack(fmt, draw(st.integers(lo, hi)))


WORDS = st.sampled_from(["llama", "qwen2", "gpt2", "Ġthe", "Ġ t", "a b", "$A", "x:1", "", "\x00", "é"])


@st.composite
def kv_entry(draw) -> bytes:
    key = draw(st.one_of(st.sampled_from(KEYS), st.text(max_size=12)))
    code = draw(st.sampled_from([*SCALAR, 8, 9, 9, 13, 99]))
    out = _string(key) + struct.pack("<I", code)
    if code in SCALAR:
        return out + draw(scalar_value(code))
    if code == 8:
        return out + _string(draw(st.one_of(WORDS, st.text(max_size=16))))
    if code != 9:
        return out
    item = draw(st.sampled_from([4, 5, 6, 8, 8, 9, 13]))
    items = draw(st.lists(st.one_of(WORDS, st.text(max_size=6)), max_size=6)) if item == 8 else \
        draw(st.lists(st.integers(0, 1 << 31), max_size=6))
    count = draw(st.one_of(st.just(len(items)), BIG))
    body = b"".join(_string(x) for x in items) if item == 8 else \
        b"".join(struct.pack(SCALAR.get(item, "<I"), x % (1 << 31)) for x in items)
    return out + struct.pack("<IQ", item, count) + body


@st.composite
def tensor_info(draw) -> bytes:
    name = draw(st.one_of(st.sampled_from(["token_embd.weight", "output_norm.weight", "blk.0.attn_q.weight",
                                           "blk.².attn_q.weight", "blk.0.nothing"]), st.text(max_size=10)))
    dims = draw(st.lists(st.one_of(st.integers(0, 64), BIG), min_size=0, max_size=5))
    n_dims = draw(st.one_of(st.just(len(dims)), st.integers(0, 1 << 32 - 1)))
    return (_string(name) + struct.pack("<I", n_dims) + b"".join(struct.pack("<Q", d) for d in dims)
            + struct.pack("<IQ", draw(st.integers(0, 40)), draw(st.one_of(st.integers(0, 4096), BIG))))


@st.composite
def gguf_header(draw) -> bytes:
    kvs = draw(st.lists(kv_entry(), max_size=8))
    tensors = draw(st.lists(tensor_info(), max_size=4))
    n_kv = draw(st.one_of(st.just(len(kvs)), BIG))
    n_tensors = draw(st.one_of(st.just(len(tensors)), BIG))
    version = draw(st.sampled_from([3, 3, 3, 2, 1, 4, 1 << 31]))
    head = b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv) + b"".join(kvs) + b"".join(tensors)
    return head + draw(st.binary(max_size=256))


@FAST
@given(blob=gguf_header())
def test_any_gguf_header_gives_a_model_or_a_checkpoint_error(tmp_path, blob):
    path = tmp_path / "fuzz.gguf"
    path.write_bytes(blob)
    loaded = _loaded_or_refused(path)
    if loaded is not None:                                    # a header that makes a model: it must work
        _texts_work(loaded.tokenizer, ["the cat", ""])


# -- tokenizer.json --------------------------------------------------------------------------------------------
REGEXES = ["(a|aa)+$", "(a+)+b", "\\s+", "[", "(?<=a)b", "\\p{L}+", "", "a{1000000}", "(?i)A", ".*"]
BEHAVIOURS = ["Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous", "Nope"]
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-5, 1 << 40), st.text(max_size=6),
                 st.lists(st.integers(-2, 30), max_size=3),
                 st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))
PRE = st.one_of(
    st.none(), st.just({"type": "Whitespace"}), st.just({"type": "WhitespaceSplit"}),
    st.builds(lambda a, r: {"type": "ByteLevel", "add_prefix_space": a, "trim_offsets": True, "use_regex": r},
              st.booleans(), st.booleans()),
    st.builds(lambda rx, b, inv, lit: {"type": "Split", "pattern": {"String" if lit else "Regex": rx},
                                       "behavior": b, "invert": inv},
              st.one_of(st.sampled_from(REGEXES), st.text(max_size=6)), st.sampled_from(BEHAVIOURS), st.booleans(),
              st.booleans()),
    st.builds(lambda d: {"type": "Digits", "individual_digits": d}, st.booleans()),
    st.builds(lambda t: {"type": t}, st.text(max_size=8)),
    JUNK)
NORMALIZER = st.one_of(st.none(), st.just({"type": "Lowercase"}), st.just({"type": "NFC"}),
                       st.builds(lambda p, c: {"type": "Replace", "pattern": {"String": p}, "content": c},
                                 st.text(max_size=3), st.text(max_size=5)), JUNK)
PIECES = st.lists(st.one_of(st.sampled_from(["$A", "$B", "$A:1", "$0", "[CLS]", "a b"]), st.text(max_size=4)),
                  max_size=4)
POST = st.one_of(st.none(),
                 st.builds(lambda single, name, ids: {"type": "TemplateProcessing", "single": single, "pair": single,
                                                      "special_tokens": {name: {"id": name, "ids": ids,
                                                                                "tokens": [name] * len(ids)}}},
                           PIECES, st.text(max_size=5), st.lists(st.integers(-1, 40), max_size=3)),
                 JUNK)
ADDED = st.lists(st.builds(lambda i, c, s: {"id": i, "content": c, "single_word": False, "lstrip": False,
                                            "rstrip": False, "normalized": False, "special": s},
                           st.integers(-1, 40), st.text(max_size=5), st.booleans()), max_size=3)
VOCAB = st.dictionaries(st.text(max_size=4), st.integers(-2, 40), max_size=8)


@st.composite
def tokenizer_spec(draw, base: dict) -> dict:
    spec = json.loads(json.dumps(base))
    for key, strategy in (("pre_tokenizer", PRE), ("normalizer", NORMALIZER), ("post_processor", POST),
                          ("added_tokens", ADDED), ("decoder", st.one_of(st.none(), st.just({"type": "ByteLevel"}),
                                                                         JUNK))):
        if draw(st.booleans()):
            spec[key] = draw(strategy)
    if draw(st.integers(0, 3)) == 0:
        spec["model"]["vocab"] = draw(VOCAB)
    if draw(st.integers(0, 5)) == 0:
        spec["model"] = {"type": "BPE", "vocab": draw(VOCAB), "merges": draw(st.lists(st.text(max_size=5), max_size=4)),
                         "dropout": draw(st.one_of(st.none(), st.floats(-1, 2))), "unk_token": None,
                         "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": False}
    return spec


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A GPT-2 folder and its good tokenizer.json (as a dict); each example writes its own, then puts it back."""
    path = make_checkpoint(tmp_path_factory.mktemp("fuzz") / "tok")
    return path, json.loads((path / "tokenizer.json").read_text())


TEXTS = st.lists(st.one_of(st.sampled_from(["a" * 40 + "!", "the cat sat", "", " ", "aaab" * 8]),
                           st.text(max_size=24)), min_size=1, max_size=3)


@FAST
@given(data=st.data(), texts=TEXTS)
def test_any_tokenizer_json_gives_a_model_or_a_checkpoint_error_and_any_text_ids_or_a_message(folder, data, texts):
    folder, base = folder
    spec = data.draw(tokenizer_spec(base))
    (folder / "tokenizer.json").write_text(json.dumps(spec))
    try:
        loaded = _loaded_or_refused(folder)
    finally:
        (folder / "tokenizer.json").write_text(json.dumps(base))
    if loaded is not None:
        _texts_work(loaded.tokenizer, texts)
