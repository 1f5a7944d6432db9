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
