"""Rules of the house that a test can check (ruff and the import contracts run in .ci/run)."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "widgets", "compute", "cuda_kernels")


@lru_cache(maxsize=1)
def _graph():
    return grimp.build_graph(*PACKAGES)


def test_no_import_circle_anywhere():
    """Function-level imports count too: a circle hidden in a function is still a circle."""
    graph = _graph()
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


def test_the_backends_never_call_back_into_forward():
    """forward() runs a backend; a backend running forward() (its warm-up did) is a loop at run time
    even where no module-level circle shows: compute.forward.warm_up drives those passes instead."""
    graph = _graph()
    backends = [m for m in graph.modules if m == "compute.backends" or m.startswith("compute.backends.")]
    found = [m for m in backends if "compute.forward" in graph.find_modules_directly_imported_by(m)]
    assert not found, f"modules of compute.backends importing compute.forward: {found}"


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


# A model family's parts are chosen once, in compute/models/components.py (`cfg.components`):
# elsewhere the code asks the component (`.positions.rotates`, `.mlp.gated`, `.norm.stats`), never
# compares the Config's strings, so the next family touches the component module, not 20 files.
COMPONENT_FIELDS = frozenset({"norm", "positions", "mlp"})
COMPONENT_MODULE = Path("compute/models/components.py")
SOURCE_DIRS = ("app", "widgets", "compute", "cuda_kernels", "benchmarks", "tools")


def component_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of each `x.norm|positions|mlp ==, !=, in, not in` a string (or strings)."""
    import ast

    def is_field(node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr in COMPONENT_FIELDS

    def is_text(node) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return bool(node.elts) and all(is_text(e) for e in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, str)

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Match) and is_field(node.subject):     # match cfg.norm: case "rmsnorm": ...
            if any(isinstance(p, ast.MatchValue) and is_text(p.value) for case in node.cases
                   for p in ast.walk(case.pattern)):
                found.append((node.lineno, f"match {ast.unparse(node.subject)}: case '…'"))
            continue
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for a, b, op in zip(operands, operands[1:], node.ops, strict=False):
            if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) and (
                    (is_field(a) and is_text(b)) or (is_text(a) and is_field(b))):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_component_rule_sees_every_form():
    planted = ('if cfg.positions == "rope": pass\nx = self.cfg.mlp != "swiglu"\ny = c.norm in ("rmsnorm",)\n'
               'z = "rope" == cfg.positions\nok = cfg.components.positions.rotates and cfg.norm_eps == 1e-5\n'
               'fine = cfg.n_heads == 2 or name == "rope"\n'
               'match cfg.norm:\n    case "rmsnorm" | "layernorm":\n        pass\n'
               'match n_heads:\n    case 2:\n        pass\n')
    assert sorted(line for line, _ in component_comparisons(planted)) == [1, 2, 3, 4, 7]


def test_no_component_string_compared_outside_the_component_module():
    files = [ROOT / "main.py"] + [p for d in SOURCE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    found = [f"{path.relative_to(ROOT)}:{line}: {code}" for path in files
             if path.relative_to(ROOT) != COMPONENT_MODULE
             for line, code in component_comparisons(path.read_text(encoding="utf-8"))]
    assert not found, ("model-family strings compared outside compute/models/components.py (ask "
                       "cfg.components instead):\n" + "\n".join(found))


# Colours come from widgets/theme.py: no other file holds a hex colour literal (a style sheet or a
# rich-text span builds its colour from the theme's name).
HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?\b|#[0-9a-fA-F]{3}\b")


def hex_colours(texts: dict[str, str]) -> dict[str, int]:
    """Hex colour literals per file (path relative to the repository -> its text), the theme excepted."""
    counts = {rel: len(HEX_COLOUR.findall(text)) for rel, text in texts.items() if rel != "widgets/theme.py"}
    return {rel: n for rel, n in counts.items() if n}


def test_no_hex_colour_outside_the_theme():
    files = [p for d in ("app", "widgets", "compute") for p in (ROOT / d).rglob("*.py")] + [ROOT / "main.py"]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in files}
    found = hex_colours(texts)
    assert not found, f"hex colours outside widgets/theme.py (name them in the theme): {found}"
    # The check can fail: a page with a colour of its own is caught, and the theme's own are not.
    planted = dict(texts, **{"widgets/pages/new_page.py": 'INK = "#123456"  # a colour of its own\n'})
    assert set(hex_colours(planted)) == {"widgets/pages/new_page.py"}


def test_every_thread_of_the_app_starts_in_app_background():
    """One worker abstraction (issue 24): the app's threads start through app/background.py's
    `spawn` (tracked for the exit, their answers delivered on the UI thread), nowhere else."""
    files = [p for p in (ROOT / "app").rglob("*.py")] + [ROOT / "main.py"]
    starting = re.compile(r"threading\.Thread\(|QThread\b|concurrent\.futures|ThreadPoolExecutor")
    found = [p.relative_to(ROOT).as_posix() for p in files
             if p.name != "background.py" and starting.search(p.read_text(encoding="utf-8"))]
    assert not found, f"threads started outside app/background.py (use spawn or Background.run): {found}"
