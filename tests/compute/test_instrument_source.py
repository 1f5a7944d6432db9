"""Issue 25 item 7: the Code tab is not empty on instrument pages: each page's numbers come from one
function (compute/source_map.py INSTRUMENT_SOURCE), shown with its first statement marked."""
from __future__ import annotations

import pytest

from compute import source_map
from compute.stations import INSTRUMENT_PAGES


def test_every_instrument_page_has_its_code():
    assert set(source_map.INSTRUMENT_SOURCE) == set(INSTRUMENT_PAGES)


@pytest.mark.parametrize("page", INSTRUMENT_PAGES)
def test_the_code_is_the_function_with_its_first_statement_marked(page):
    view = source_map.instrument_source(page)
    module, name = source_map.INSTRUMENT_SOURCE[page]
    assert view.lines[0].lstrip().startswith("def " + name + "(")
    assert view.path.replace("\\", "/").endswith(module.replace(".", "/") + ".py")
    key = view.key_text.strip()
    assert key and not key.startswith(('"""', "#", "def ")) and '"""' not in key
    assert view.station == page and view.key_file_line == view.first_line + view.key_line


def test_a_station_is_not_an_instrument():
    with pytest.raises(KeyError, match="no instrument page"):
        source_map.instrument_source("scores")
