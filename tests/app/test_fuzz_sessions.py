"""Session JSON of any shape: parse_session gives SessionData or a SessionError with a message,
never another exception, and never reads outside what the document names. The fuzzer replaces,
deletes and adds values anywhere in a valid session (hypothesis, seeded, bounded)."""
from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.session import SessionData, SessionError, load_session, parse_session, session_dict
from app.state import Inputs, Selection, preset_config

GOOD = session_dict(Inputs(config=preset_config("toy"), tokens=(5, 6, 3, 0, 10), seed=4),
                    Selection(layer=1, head=1, query=3, station="scores"), ["a", "dog", "on", "the", "red"])
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.integers(-3, 20)
                    | st.floats(allow_nan=True) | st.text(max_size=10)
                    | st.sampled_from(["file", "folder", "random", "trained", "custom:1", "/dev/zero", "~nobody/x",
                                       "auto", "cpu", "scores", "dark", "viridis", "qkv-lab-session"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _paths(value, (*prefix, i))


ALL_PATHS = list(_paths(GOOD))
FIXTURE = [HealthCheck.function_scoped_fixture]


def _mutate(doc, path, op, value):
    if not path:
        return value if op == "replace" else doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if op == "replace":
        parent[key] = value
    elif op == "delete":
        del parent[key]
    elif isinstance(parent, dict):
        parent[f"{key}_extra"] = value
    return doc


def _check(text: str, tmp_path) -> None:
    try:
        data = parse_session(text, "fuzzed", tmp_path)
    except SessionError as exc:
        assert str(exc).startswith("fuzzed: ") and len(str(exc)) > len("fuzzed: ")
        return
    assert isinstance(data, SessionData) and all(isinstance(w, str) and w for w in data.warnings)
    cfg = data.inputs.config
    assert 0 < len(data.inputs.tokens) <= cfg.n_ctx and all(0 <= t < cfg.d_vocab for t in data.inputs.tokens)


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=FIXTURE)
@given(edits=st.lists(st.tuples(st.sampled_from(ALL_PATHS), st.sampled_from(["replace", "delete", "add"]), JSON),
                      min_size=1, max_size=3))
def test_mutated_sessions_give_data_or_a_session_error(tmp_path, edits):
    doc = copy.deepcopy(GOOD)
    for path, op, value in edits:
        try:
            doc = _mutate(doc, path, op, value)
        except (KeyError, IndexError, TypeError):       # an earlier edit removed the place
            continue
    _check(json.dumps(doc, allow_nan=True), tmp_path)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=FIXTURE)
@given(text=st.one_of(
    st.text(max_size=200),
    st.builds(lambda n: json.dumps(GOOD)[:n], st.integers(0, len(json.dumps(GOOD)))),    # truncated
    st.builds(lambda depth: "[" * depth + "]" * depth, st.integers(1, 100_000)),         # nested too deep
    st.builds(lambda n: "1" * n, st.integers(1, 9000))))                                 # a number too long
def test_arbitrary_and_truncated_text_gives_a_session_error(tmp_path, text):
    _check(text, tmp_path)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=FIXTURE)
@given(raw=st.binary(max_size=300))
def test_arbitrary_bytes_in_a_file_give_a_session_error(tmp_path, raw):
    path = tmp_path / "x.qkvlab"
    path.write_bytes(raw)
    try:
        load_session(path)
    except SessionError as exc:
        assert str(exc)


HOSTILE_PATHS = st.sampled_from(["/dev/zero", "/dev/urandom", "/dev/null", "~nobody-qkv/w.safetensors", "\0",
                                 "a\0b", "x" * 300, "/" * 5000, ".", "..", "/", "/proc/self/mem", "/etc", ""]) \
    | st.text(max_size=20)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=FIXTURE)
@given(ref=st.fixed_dictionaries({"kind": st.sampled_from(["file", "folder", "trained", "random", "custom:2", "zip"])},
                                 optional={"path": HOSTILE_PATHS | JSON, "relative": HOSTILE_PATHS | JSON,
                                           "sha256": st.text(max_size=64) | JSON, "seed": JSON}))
def test_weights_references_of_any_shape_give_data_or_a_session_error(tmp_path, ref):
    doc = copy.deepcopy(GOOD)
    doc["inputs"]["weights"] = ref
    _check(json.dumps(doc), tmp_path)
