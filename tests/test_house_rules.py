"""Rules of the house that a test can check (ruff and the import contracts run in .ci/run)."""
from __future__ import annotations

import re
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


# Colours come from widgets/theme.py. The files below still hold hex literals from before that rule
# (the colours of Qt style sheets, chips and rich-text spans): their count may only go down, and
# every other file has none. Move one to the theme, then lower its number here.
HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?\b|#[0-9a-fA-F]{3}\b")
HEX_STILL = {
    "app/presentation.py": 37, "widgets/instruments.py": 14, "app/main_window.py": 11, "widgets/panels.py": 9,
    "widgets/charts.py": 8, "widgets/pages/instrument_views.py": 6, "widgets/matrix.py": 4,
    "widgets/training.py": 2, "widgets/token_strip.py": 2, "widgets/overlay.py": 2, "app/instruments.py": 2,
    "widgets/stations.py": 1, "widgets/pages/classic.py": 1, "widgets/figure.py": 1,
}


def hex_colours(texts: dict[str, str]) -> dict[str, int]:
    """Hex colour literals per file (path relative to the repository -> its text), the theme excepted."""
    counts = {rel: len(HEX_COLOUR.findall(text)) for rel, text in texts.items() if rel != "widgets/theme.py"}
    return {rel: n for rel, n in counts.items() if n}


def test_no_new_hex_colour_outside_the_theme():
    files = [p for d in ("app", "widgets", "compute") for p in (ROOT / d).rglob("*.py")] + [ROOT / "main.py"]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in files}
    over = {f: n for f, n in hex_colours(texts).items() if n > HEX_STILL.get(f, 0)}
    assert not over, f"hex colours outside widgets/theme.py (name them in the theme): {over}"
    planted = dict(texts, **{"widgets/pages/new_page.py": 'INK = "#123456"  # a colour of its own\n'})
    assert {f for f, n in hex_colours(planted).items() if n > HEX_STILL.get(f, 0)} == {"widgets/pages/new_page.py"}
