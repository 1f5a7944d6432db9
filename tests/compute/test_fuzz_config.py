"""Config dicts of any shape (as a session or a weights file could hold them): from_dict and
replace give a Config or a ConfigError with a message, never another exception. Fields are taken
from Config itself, so the fuzzer follows the fields as they change."""
from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from compute import PRESETS, Config, ConfigError

FIELDS = [f.name for f in dataclasses.fields(Config)]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**66, 2**66), st.integers(0, 70),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                   st.sampled_from(["layernorm", "rmsnorm", "rope", "learned", "gelu", "swiglu", "toy"]),
                   st.lists(st.one_of(st.none(), st.integers(-3, 40)), max_size=4),
                   st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
KEYS = st.one_of(st.sampled_from(FIELDS), st.text(max_size=6))


def _good(cfg) -> None:
    assert isinstance(cfg, Config)
    assert Config.from_dict(cfg.to_dict()) == cfg                  # what it says it is, it reads back as


@settings(max_examples=400, deadline=None, derandomize=True)
@given(base=st.sampled_from(["toy", "andrea-120m"]), changes=st.dictionaries(KEYS, VALUES, max_size=5))
def test_from_dict_gives_a_config_or_a_config_error(base, changes):
    data = {**PRESETS[base].to_dict(), **changes}
    try:
        cfg = Config.from_dict(data)
    except ConfigError as exc:
        assert str(exc)
        return
    _good(cfg)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(changes=st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=4))
def test_replace_gives_a_config_or_a_config_error(changes):
    try:
        cfg = PRESETS["toy"].replace(**changes)
    except ConfigError as exc:
        assert str(exc)
        return
    _good(cfg)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.one_of(VALUES, st.dictionaries(KEYS, VALUES, max_size=4)))
def test_anything_at_all_gives_a_config_or_a_config_error(data):
    try:
        cfg = Config.from_dict(data)
    except ConfigError as exc:
        assert str(exc)
        return
    _good(cfg)
