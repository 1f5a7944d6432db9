"""Exports under faults and hostile arguments: a full disk, a file size limit, pipes, devices and
symlinks as targets, names at and over the 255-byte limit, and arguments of any type. Every
outcome is a written, checked file or a clear ExportError; the old file is never lost."""
from __future__ import annotations

import errno
import os
import resource
import stat
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.export import FORMATS, ExportError, ExportRequest, export, headless_result
from app.state import Inputs, Selection, preset_config, preset_tokens
from widgets.figure import FigureStyle

ROOT = Path(__file__).resolve().parents[2]
SEL = Selection(layer=1, head=1, query=5)
OLD = b"the old file, which must survive"


@pytest.fixture(scope="module")
def result(qapp):
    inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), seed=3, weights="random",
                    backend="reference")
    return headless_result(inputs)


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_full_disk_is_a_message_and_the_old_file_stays(result, tmp_path, monkeypatch, suffix):
    """Qt's PNG/SVG/PDF writers ignore write errors: before, a full disk gave "Exported" and a
    truncated file. Now every format goes through the one checked writer."""
    target = tmp_path / f"fig{suffix}"
    target.write_bytes(OLD)

    def enospc(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", enospc)          # the bytes path
    monkeypatch.setattr(os, "fsync", enospc)          # the streamed path (NPZ)
    with pytest.raises(ExportError, match=r"the disk is full: .* free") as info:
        export(result, SEL, ExportRequest(str(target), view="pattern"))
    monkeypatch.undo()
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)
    assert target.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == [target.name]


def _limited(limit: int):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


def test_cli_pdf_under_a_file_size_limit_exits_1_and_keeps_the_old_file(tmp_path):
    """A real kernel-level failure (RLIMIT_FSIZE: writes past 8 KiB fail with EFBIG), no mocks."""
    target = tmp_path / "fig.pdf"
    target.write_bytes(OLD)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--preset", "toy", "--view", "pattern",
                          "-o", str(target)], capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path,
                         preexec_fn=_limited(8192))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "larger than this system allows" in run.stderr and "Traceback" not in run.stderr
    assert target.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["fig.pdf"]


def test_a_named_pipe_target_is_refused_and_stays_a_pipe(result, tmp_path):
    fifo = tmp_path / "fig.svg"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="named pipe, not a regular file"):
        export(result, SEL, ExportRequest(str(fifo), view="pattern"))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlinked_target_updates_the_file_it_points_to(result, tmp_path):
    (tmp_path / "figures").mkdir()
    real = tmp_path / "figures" / "fig.png"
    real.write_bytes(OLD)
    link = tmp_path / "fig.png"
    link.symlink_to(real)
    export(result, SEL, ExportRequest(str(link), view="pattern"))
    assert link.is_symlink() and real.read_bytes().startswith(b"\x89PNG")


def test_names_up_to_255_bytes_export_and_longer_ones_say_why(result, tmp_path):
    name = "p" * 246 + ".csv"                                        # 250 bytes
    assert export(result, SEL, ExportRequest(str(tmp_path / name), view="pattern")).read_text().count("\n") == 7
    with pytest.raises(ExportError, match="256 bytes long"):
        export(result, SEL, ExportRequest(str(tmp_path / ("p" * 252 + ".csv")), view="pattern"))


def test_cli_name_over_255_bytes_is_a_message_not_a_traceback(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--preset", "toy",
                          "-o", "x" * 300 + ".svg"], capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path)
    assert run.returncode == 1 and "bytes long" in run.stderr and "Traceback" not in run.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, text", [
    (["--width", "0", "-o", "f.png"], "too small"),
    (["--width", "-5", "-o", "f.png"], "too small"),
    (["--dpi", "nan", "-o", "f.png"], "DPI is out of range"),
    (["--dpi", "inf", "-o", "f.png"], "DPI is out of range"),
    (["--dpi", "1", "-o", "f.png"], "DPI is out of range"),
    (["--size", "0x0", "-o", "f.svg"], "out of range"),
    (["--size", "800x99999", "-o", "f.svg"], "out of range"),
    (["--font-size", "nan", "-o", "f.svg"], "font size"),
])
def test_cli_option_ranges_exit_2_before_computing(args, text, capsys, tmp_path, monkeypatch):
    import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main.main(["export", *args])
    assert exit_info.value.code == 2
    assert text in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# -- any argument of any type --------------------------------------------------------------------------
ANY = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                st.text(max_size=12), st.lists(st.integers(0, 20_000), max_size=3), st.binary(max_size=4))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(view=st.one_of(st.sampled_from(["pattern", "q", "nope", "", "block"]), ANY),
       suffix=st.sampled_from([".csv", ".svg", ".png", ".gif", ""]),
       width=st.one_of(st.none(), ANY), dpi=st.one_of(st.none(), ANY), size=st.one_of(st.none(), ANY),
       style=st.one_of(st.just(FigureStyle()), ANY))
def test_export_arguments_give_a_file_or_an_export_error(result, tmp_path, monkeypatch, view, suffix, width, dpi,
                                                         size, style):
    """Nothing but ExportError, whatever the types; figures are not drawn here (that is slow and
    tested elsewhere): drawing is replaced by a fixed valid file."""
    import app.export as export_module

    monkeypatch.setattr(export_module, "build_figure", lambda *a, **k: _FakeFigure())
    monkeypatch.setattr(export_module, "shiboken6", types.SimpleNamespace(delete=lambda widget: None))
    for fmt in ("png", "svg", "pdf"):
        monkeypatch.setattr(export_module, f"{fmt}_bytes", lambda *a, fmt=fmt, **k: _VALID[fmt])
    request = ExportRequest(str(tmp_path / f"out{suffix}"), view=view, style=style, width=width, dpi=dpi, size=size)
    try:
        written = export(result, SEL, request)
    except ExportError as exc:
        assert str(exc)
        return
    assert written.stat().st_size > 0


class _FakeFigure:
    spec = type("Spec", (), {"title": "t"})()

    def hide(self):
        pass


_VALID = {"png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 8 + b"\x00\x00\x00\x00IEND\xaeB`\x82",
          "svg": b"<svg></svg>", "pdf": b"%PDF-1.7\n%%EOF\n"}


def test_npz_under_a_file_size_limit_in_process_keeps_the_old_file(result, tmp_path):
    """The streamed path (numpy writing into the temporary file) under a real EFBIG."""
    target = tmp_path / "trace.npz"
    target.write_bytes(OLD)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(ExportError, match="larger than this system allows"):
            export(result, SEL, ExportRequest(str(target)))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert target.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["trace.npz"]
    export(result, SEL, ExportRequest(str(target)))
    with np.load(target) as z:
        assert "pattern/0" in z.files
