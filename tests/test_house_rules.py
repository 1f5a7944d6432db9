"""Rules of the house that a test can check (ruff and the import contracts run in .ci/run)."""
from __future__ import annotations

from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "widgets", "compute", "cuda_kernels")


def test_no_import_circle_anywhere():
    """Function-level imports count too: a circle hidden in a function is still a circle."""
    graph = grimp.build_graph(*PACKAGES)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    state: dict[str, int] = {}                       # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                circle = path[path.index(target):] + [target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)


# Documents that live outside the repository: a clean clone has none of them, so nothing in it may
# send a reader there (docs/ARCHITECTURE.md leads; its sections carry the names and contracts).
OUTSIDE = ("DESIGN.md", "STACK.md", "../shared", "shared/seeds")


def test_no_reference_outside_the_repository():
    tracked = [ROOT / p for p in _tracked_files()]
    found = []
    for path in tracked:
        if path.suffix not in {".py", ".md", ".toml", ".txt", ".json", ".sh", ".cfg", ".ini", ".yaml", ".yml", ""}:
            continue
        if path == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if any(word in line for word in OUTSIDE):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "references to documents outside the repository:\n" + "\n".join(found)


def _tracked_files() -> list[str]:
    import subprocess

    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:                              # not a git checkout (an sdist): every file
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if ".venv" not in p.parts]
    return out.stdout.splitlines()
