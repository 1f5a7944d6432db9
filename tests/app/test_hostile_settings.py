"""A preferences file is data, never code: a pickled @Variant payload in any key runs nothing and is
ignored with a warning; every value is plain text read through the schema; a file that is not
ours is never overwritten; QSettings' own INI files still read (and ours read in QSettings)."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.settings import SCHEMA, Settings, format_ini, parse_ini

ROOT = Path(__file__).resolve().parents[2]

# Writes an INI file the way PySide6's QSettings stores a Python object: a pickle inside
# @Variant(...). Unpickling it calls open(marker, "w"), which creates the marker file.
MAKE_PAYLOAD = r"""
import sys
from PySide6.QtCore import QSettings

class Payload:
    def __reduce__(self):
        return (open, (sys.argv[2], "w"))

store = QSettings(sys.argv[1], QSettings.Format.IniFormat)
for key in sys.argv[3:]:
    store.setValue(key, Payload())
store.sync()
"""


def _payload_file(tmp_path: Path, keys) -> tuple[Path, Path]:
    ini, marker = tmp_path / "evil.ini", tmp_path / "MARKER"
    subprocess.run([sys.executable, "-c", MAKE_PAYLOAD, str(ini), str(marker), *keys], check=True, timeout=60)
    assert "@Variant(" in ini.read_text() and not marker.exists()
    return ini, marker


def test_a_pickled_variant_in_the_preferences_runs_nothing(tmp_path, caplog):
    ini, marker = _payload_file(tmp_path, SCHEMA)
    with caplog.at_level(logging.WARNING, logger="qkv_lab.settings"):
        s = Settings.at(ini)
        values = (s.theme, s.recent_files(), s.last_session, s.restore_last, s.export_defaults(), s.last_folder,
                  s.get("sessions/last_path"))
    assert not marker.exists(), "reading the preferences ran code from the file"
    assert values == ("light", [], None, True, {}, "", None)         # every key: its default
    assert len(s.problems) == len(SCHEMA) and all("Variant" in p for p in s.problems)
    assert "@Variant values can carry Python objects" in caplog.text
    s.theme = "dark"                                                  # the next write drops the payload
    assert "@Variant" not in ini.read_text() and Settings.at(ini).theme == "dark"
    assert not marker.exists()


def test_the_app_starts_on_a_hostile_preferences_file_without_running_it(tmp_path):
    """QKV_LAB_SETTINGS, as the README suggests for kiosks: the whole start-up path, in a process."""
    ini, marker = _payload_file(tmp_path, ["appearance/theme", "sessions/last", "sessions/restore_last"])
    code = (f"import os, sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from PySide6.QtWidgets import QApplication\n"
            "app = QApplication([])\n"
            "from app.settings import Settings\n"
            "from app.state import LabState\n"
            "from app.main_window import MainWindow\n"
            "s = Settings.user()\n"
            "w = MainWindow(LabState(), settings=s)\n"
            "w.show(); app.processEvents()\n"
            "from app.file_actions import restore_last_session\n"
            "restore_last_session(w, s)\n"
            "print('theme', s.theme, 'problems', len(s.problems))\n"
            "import shiboken6\n"                      # torn down as main.py does: window first, then Qt
            "w.close(); w.state.runner.shutdown(); shiboken6.delete(w)\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QKV_LAB_SETTINGS=str(ini))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    assert "theme light problems 3" in run.stdout
    assert not marker.exists()


def test_values_are_plain_and_typed(tmp_path):
    s = Settings.at(tmp_path / "s.ini")
    for bad in (object(), [1, 2], {"a": 1}, b"bytes", float("nan")):
        with pytest.raises(TypeError):
            s.set("files/last_folder", bad)
        with pytest.raises(TypeError):
            s.set("some/other", bad)
    with pytest.raises(TypeError, match="holds bool"):
        s.set("sessions/restore_last", "yes")
    s.restore_last = False
    s.set("some/number", 3)
    again = Settings.at(tmp_path / "s.ini")
    assert again.restore_last is False and again.get("some/number", kind=int) == 3
    (tmp_path / "t.ini").write_text("[sessions]\nrestore_last=maybe\n[appearance]\ntheme=purple\n")
    odd = Settings.at(tmp_path / "t.ini")
    assert odd.restore_last is True and odd.theme == "light"          # defaults, not errors


def test_a_file_that_is_not_ours_is_never_overwritten(tmp_path):
    essay = tmp_path / "essay.txt"
    essay.write_text("Dear diary,\nthis is not a preferences file.\n")
    s = Settings.at(essay)
    s.theme = "dark"
    assert essay.read_text() == "Dear diary,\nthis is not a preferences file.\n"
    assert s.theme == "dark" and any("does not look like a preferences file" in p for p in s.problems)
    binary = tmp_path / "photo.ini"
    binary.write_bytes(b"\xff\xd8\xff\xe0 JFIF")
    Settings.at(binary).theme = "dark"
    assert binary.read_bytes() == b"\xff\xd8\xff\xe0 JFIF"
    fifo = tmp_path / "pipe.ini"
    os.mkfifo(fifo)
    assert Settings.at(fifo).theme == "light"                         # no hang, no write


def test_qsettings_files_carry_over_both_ways(tmp_path):
    from PySide6.QtCore import QSettings

    values = {"appearance/theme": "dark", "sessions/last": '{\n  "text": "a, b; c = d \\\\ é"\n}',
              "sessions/recent": '["/a b/c.qkvlab"]', "files/last_folder": "@home", "export/defaults": " x",
              "odd/control": "a\x01b\x00c1"}
    theirs = QSettings(str(tmp_path / "qt.ini"), QSettings.Format.IniFormat)
    for key, value in values.items():
        theirs.setValue(key, value)
    theirs.setValue("sessions/restore_last", False)
    theirs.sync()
    ours = Settings.at(tmp_path / "qt.ini")
    assert {k: ours.get(k) for k in values} == values and ours.restore_last is False and not ours.problems
    (tmp_path / "ours.ini").write_text(format_ini(values))
    back = QSettings(str(tmp_path / "ours.ini"), QSettings.Format.IniFormat)
    assert {k: back.value(k) for k in values} == values


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from('[]=@"\\,;#\n\r\t xaV(0)1é'), max_size=80)
       | st.builds(lambda k, v: f"[g]\n{k}={v}\n", st.text(max_size=8), st.text(max_size=40)))
def test_any_text_parses_to_plain_strings(text):
    values, problems, _foreign = parse_ini(text)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in values.items())
    assert all(isinstance(p, str) and p for p in problems)
    assert not any(v.startswith(("@Variant(", "@ByteArray(")) for v in values.values())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}/[a-z_]{1,8}", fullmatch=True),
                       st.text(st.characters(exclude_categories=("Cs",)), max_size=40), max_size=6))
def test_our_ini_reads_back_what_was_written(values):
    parsed, problems, foreign = parse_ini(format_ini(values))
    assert parsed == values and not problems and not foreign


def test_a_fresh_account_gets_its_preferences_folder_and_keeps_them(tmp_path, monkeypatch, caplog):
    """An empty XDG_CONFIG_HOME (a new Linux account): nothing had made ~/.config/QKV Lab/, the
    writer refused the missing folder, and every preference was forgotten with a warning."""
    from app.settings import default_path

    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.delenv("QKV_LAB_SETTINGS", raising=False)
    assert default_path() == config / "QKV Lab" / "QKV Lab.conf"
    s = Settings.user()
    s.theme = "dark"
    s.add_recent(tmp_path / "lecture.qkvlab")
    assert s.problems == [] and "could not keep" not in caplog.text
    assert (config / "QKV Lab" / "QKV Lab.conf").is_file()
    again = Settings.user()
    assert again.theme == "dark" and again.recent_files() == [str((tmp_path / "lecture.qkvlab").resolve())]


def test_a_preferences_folder_that_cannot_be_made_is_said_not_raised(tmp_path, monkeypatch):
    import errno

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    s = Settings.at(tmp_path / "config" / "QKV Lab" / "QKV Lab.conf")
    monkeypatch.setattr(Path, "mkdir", full)
    s.theme = "dark"                                                    # no exception
    assert s.theme == "dark" and any("cannot make the folder" in p for p in s.problems), s.problems
