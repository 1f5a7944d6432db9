"""Golden session files, one per schema version: an old file keeps opening as it did, and the
writer of today still writes the current schema's file byte for byte (format drift fails here)."""
from __future__ import annotations

import json
from pathlib import Path

from app.runner import SyncRunner
from app.session import SCHEMA_VERSION, apply_session, dumps, load_session
from app.state import LabState

GOLDEN = Path(__file__).parent / "golden"


def _opened(path: Path, qapp) -> LabState:
    state = LabState(runner=SyncRunner())
    state.start()
    assert apply_session(state, load_session(path), path.name)
    return state


def test_a_schema_1_session_opens_as_it_was_saved(qapp):
    state = _opened(GOLDEN / "session-v1.qkvlab", qapp)
    inputs, sel = state.inputs, state.selection
    assert inputs.preset == "toy" and inputs.weights == "random" and inputs.seed == 7
    assert state.labels() == ("the", "cat", "sat", "on", "a", "mat", "the", "cat")
    assert (inputs.config.d_model, inputs.config.n_heads, inputs.config.d_head) == (8, 2, 4)
    assert (sel.layer, sel.head, sel.query, sel.station) == (1, 1, 6, "heads")
    assert sel.colormap == "viridis" and sel.lock_scales
    assert state.result is not None and state.result.inputs == inputs       # it computed


def test_todays_writer_writes_the_current_golden_file(qapp):
    path = GOLDEN / f"session-v{SCHEMA_VERSION}.qkvlab"
    state = _opened(path, qapp)
    written, golden = json.loads(dumps(state)), json.loads(path.read_text(encoding="utf-8"))
    for volatile in ("saved_by", "saved_at"):
        written.pop(volatile), golden.pop(volatile)
    assert written == golden, "the session format changed: bump SCHEMA_VERSION, keep the old golden file, add one"


def test_every_schema_version_has_a_golden_file():
    assert {p.name for p in GOLDEN.glob("session-v*.qkvlab")} == {f"session-v{v}.qkvlab"
                                                                   for v in range(1, SCHEMA_VERSION + 1)}
