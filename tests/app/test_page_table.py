"""The page table is one table: compute/stations.py's rows, widgets/pages/' PageKinds and
app/pages/' controllers name the same pages, so a page added (or renamed, or removed) in one place
and not the others fails here, not in a lecture."""
from __future__ import annotations

import ast
from pathlib import Path

from app.pages import PageController, controllers
from app.runner import SyncRunner
from app.state import LabState
from compute.stations import INSTRUMENT_PAGES, PAGE
from widgets.pages import MODULES, page_kind

ROOT = Path(__file__).resolve().parents[2]


def _page_rows(path: Path) -> set[str]:
    """The keys of the `PageKind("key", ...)` rows a widgets/pages module declares."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "PageKind"
            and node.args and isinstance(node.args[0], ast.Constant)}


def test_every_page_row_has_its_widget_and_views_and_nothing_else_has_one():
    for key in INSTRUMENT_PAGES:
        kind = page_kind(key)
        assert kind.key == key and getattr(kind.widget, "key", key) == key, key
        assert callable(kind.views) and kind.words, key
    assert set(MODULES) <= set(INSTRUMENT_PAGES), f"stale MODULES entries: {set(MODULES) - set(INSTRUMENT_PAGES)}"
    declared = {key: path.name for path in sorted((ROOT / "widgets/pages").glob("*.py")) for key in _page_rows(path)}
    orphans = {key: name for key, name in declared.items() if key not in PAGE}
    assert not orphans, f"page rows with no line in compute/stations.py (never shown): {orphans}"
    assert set(INSTRUMENT_PAGES) <= set(declared)


def test_every_controller_belongs_to_a_page_and_every_page_has_one(qapp):
    names = {p.stem for p in (ROOT / "app/pages").glob("*.py") if p.stem != "__init__"}
    assert names <= set(INSTRUMENT_PAGES), f"controllers of no page: {names - set(INSTRUMENT_PAGES)}"
    state = LabState(runner=SyncRunner())
    found = controllers(state)
    assert list(found) == list(INSTRUMENT_PAGES)
    for key, controller in found.items():
        assert isinstance(controller, PageController) and controller.key == key
        assert (type(controller) is not PageController) == (key in names), key    # its own, where it has one
