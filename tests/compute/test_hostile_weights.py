"""Weights files under hostile conditions: over the memory budget (refused before allocating, with
the estimate), the reading peak, pipes and devices, a full disk on save, and fuzzed headers whose
fields hold any JSON value: a WeightsError with a message, never another exception."""
from __future__ import annotations

import errno
import json
import os
import struct
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compute import Config, Weights, WeightsError, safe_io
from compute.safetensors_header import HeaderError, read_header

from .test_safe_io import finishes

MID = Config(d_model=64, n_heads=4, d_head=16, n_ctx=64, d_vocab=512, n_layers=2)     # ~0.5 MiB float32


def _float32_bytes(w: Weights) -> int:
    return sum(a.nbytes for a in w.values())


def test_a_file_over_the_memory_budget_is_refused_before_anything_is_allocated(tmp_path, monkeypatch):
    w = Weights.random(MID, 0)
    path = w.save(tmp_path / "w.safetensors")
    size = _float32_bytes(w)
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", str(size / 4 / (1 << 30)))
    tracemalloc.start()
    try:
        with pytest.raises(WeightsError, match=r"needs an estimated .* over the memory budget of .*"
                                               r"QKV_LAB_MEMORY_BUDGET_GIB.*nothing was loaded"):
            Weights.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < size / 10, f"refusing allocated {peak} bytes of a {size}-byte file"
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "8")
    assert Weights.load(path).cfg == MID


def test_loading_peaks_near_the_float32_size_not_twice_it(tmp_path):
    w = Weights.random(MID, 0)
    path = w.save(tmp_path / "w.safetensors")
    size = _float32_bytes(w)
    tracemalloc.start()
    try:
        loaded = Weights.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(np.array_equal(loaded[n], w[n]) for n in w)
    assert peak < 1.35 * size, f"peak {peak / size:.2f}x the float32 size"          # was ~2.2x


def test_f16_and_f64_files_load_as_float32(tmp_path):
    from safetensors.numpy import save_file

    w = Weights.random(MID, 1)
    for dtype in (np.float16, np.float64):
        path = tmp_path / f"{np.dtype(dtype).name}.safetensors"
        save_file({n: a.astype(dtype) for n, a in w.items()}, str(path),
                  metadata={"qkv_lab.config": json.dumps(MID.to_dict())})
        loaded = Weights.load(path)
        assert all(loaded[n].dtype == np.float32 for n in loaded)
        assert np.allclose(loaded["embed.W_E"], w["embed.W_E"].astype(dtype), atol=1e-3)


def test_the_file_digest_is_taken_while_loading(tmp_path):
    import hashlib

    path = Weights.random(MID, 0).save(tmp_path / "w.safetensors")
    safe_io._digests.clear()
    Weights.load(path)
    assert safe_io.cached_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/urandom"])
def test_pipes_and_devices_are_refused_without_blocking(tmp_path, special):
    if special == "fifo":
        special = tmp_path / "w.safetensors"
        os.mkfifo(special)
    elif not os.path.exists(special):
        pytest.skip(f"no {special}")
    with pytest.raises(WeightsError, match="not a regular file"):
        finishes(lambda: Weights.load(special))


def test_saving_onto_a_full_disk_keeps_the_old_weights(tmp_path, monkeypatch):
    path = Weights.random(MID, 0).save(tmp_path / "w.safetensors")
    before = path.read_bytes()

    def enospc(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(safe_io.FileError, match="the disk is full"):
        Weights.random(MID, 1).save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["w.safetensors"]


def test_saved_files_read_in_the_safetensors_library(tmp_path):
    from safetensors.numpy import load_file

    w = Weights.random(MID, 2)
    loaded = load_file(str(w.save(tmp_path / "w.safetensors")))
    assert sorted(loaded) == sorted(w) and all(np.array_equal(loaded[n], w[n]) for n in w)


# -- headers whose fields hold anything ------------------------------------------------------------------
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=6), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
FIELD_VALUES = st.one_of(JSON, st.sampled_from(["F32", "F16", "F64", "I64", "BOOL"]),
                         st.lists(st.integers(-2, 70), max_size=4))


def _header_file(tmp_path, header: dict, data_len: int) -> os.PathLike:
    raw = json.dumps(header).encode()
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\x00" * data_len)
    return path


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.dictionaries(st.text(max_size=20), st.dictionaries(
           st.sampled_from(["dtype", "shape", "data_offsets", "extra"]), FIELD_VALUES, max_size=4) | JSON, max_size=4),
       metadata=st.one_of(st.just(None), JSON, st.dictionaries(st.text(max_size=12), JSON, max_size=3)),
       data_len=st.integers(0, 64))
def test_fuzzed_headers_give_a_header_error_or_a_valid_header(tmp_path, entries, metadata, data_len):
    header = dict(entries)
    if metadata is not None:
        header["__metadata__"] = metadata
    path = _header_file(tmp_path, header, data_len)
    try:
        parsed = read_header(path, {"F32": 4, "F16": 2, "F64": 8})
    except HeaderError as exc:
        assert exc.problems and all(isinstance(p, str) and len(p) < 400 for p in exc.problems)
    else:
        assert all(isinstance(v, str) for v in parsed.metadata.values())
        for e in parsed.entries.values():
            assert 0 <= e.begin <= e.end <= data_len
    try:
        Weights.load(path)
    except WeightsError as exc:
        assert str(exc)


def test_a_dtype_that_is_not_text_is_a_problem_not_a_type_error(tmp_path):
    for dtype in (["F32"], {"a": 1}, 3, None, True):
        path = _header_file(tmp_path, {"embed.W_E": {"dtype": dtype, "shape": [1], "data_offsets": [0, 4]}}, 4)
        with pytest.raises(WeightsError, match="has dtype"):
            Weights.load(path)


def test_huge_fields_are_cut_short_in_messages(tmp_path):
    path = _header_file(tmp_path, {"x" * 100_000: {"dtype": "Q" * 100_000, "shape": [1], "data_offsets": [0, 4]}}, 4)
    with pytest.raises(WeightsError) as info:
        Weights.load(path)
    assert len(str(info.value)) < 1000


def test_loaded_names_keep_the_canonical_order_whatever_the_file_order(tmp_path):
    from safetensors.numpy import save_file

    w = Weights.random(MID, 3)
    path = tmp_path / "reversed.safetensors"
    save_file({n: w[n] for n in reversed(w.names())}, str(path), metadata={"qkv_lab.config": json.dumps(MID.to_dict())})
    assert Weights.load(path).names() == w.names()
