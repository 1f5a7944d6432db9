"""A GGUF header whose arrays claim more than a model can have (issue 23, item 3): a vocabulary of
10^8 empty strings is a sparse file of zeros that an item-by-item walk takes minutes over. Every
array is bounded by the model's limits before an item is read, and a long walk reports progress,
so Cancel stops it."""
from __future__ import annotations

import struct

import pytest

from compute import CheckpointError, checkpoint_config, load_checkpoint, progress
from compute.loaders.gguf_file import MAX_VOCAB, SCAN_STAGE
from compute.progress import Cancelled


def gguf_with_array(path, key: str, count: int, item: int = 8, sparse: bool = True):
    """A GGUF v3 header with one metadata array of `count` items (empty strings: zeros) and no tensors."""
    k = key.encode()
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(k)) + k + struct.pack("<IIQ", 9, item, count)
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(len(head) + 8 * count)               # sparse: nothing on the disk
    return path


@pytest.mark.parametrize("key, count", [("tokenizer.ggml.tokens", 10**8), ("tokenizer.ggml.tokens", MAX_VOCAB + 1),
                                        ("tokenizer.ggml.merges", 10**8), ("some.array", 10**9)])
def test_an_array_longer_than_a_model_can_have_is_refused_before_it_is_read(tmp_path, key, count):
    path = gguf_with_array(tmp_path / "huge.gguf", key, count)
    stages = []
    for load in (checkpoint_config, load_checkpoint):
        with progress.reporting(lambda stage, f: stages.append(stage)), \
                pytest.raises(CheckpointError, match=f"claims {count:,} items; a model's has at most"):
            load(path)
    assert SCAN_STAGE not in stages                     # refused from the count alone, no walk


def test_a_long_walk_reports_progress_and_cancel_stops_it(tmp_path):
    path = gguf_with_array(tmp_path / "long.gguf", "tokenizer.ggml.merges", 1 << 20)
    seen = []

    def report(stage, fraction):
        seen.append((stage, fraction))
        if stage == SCAN_STAGE:
            raise Cancelled()

    with progress.reporting(report), pytest.raises(Cancelled):
        load_checkpoint(path)
    assert seen == [(SCAN_STAGE, seen[0][1])] and 0 < seen[0][1] < 1


def test_a_string_past_the_end_of_the_file_is_refused(tmp_path):
    path = gguf_with_array(tmp_path / "past.gguf", "tokenizer.ggml.merges", 4)
    with open(path, "r+b") as fh:
        fh.seek(-32, 2)
        fh.write(struct.pack("<Q", 1 << 20))
    with pytest.raises(CheckpointError, match="past the end of the file|ends early"):
        load_checkpoint(path)
