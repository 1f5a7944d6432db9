"""Small panels: the station bar."""
from __future__ import annotations


def test_the_instrument_pages_sit_in_one_menu_button_that_names_the_open_page(qtbot):
    from compute.stations import PAGE, PAGES
    from widgets.panels import StationBar

    bar = StationBar([PAGE[k] for k in PAGES])
    qtbot.addWidget(bar)
    bar.show()
    pages = [k for k in PAGES if PAGE[k].kind != "station"]
    assert [a for a in bar.instruments.menu().actions()] == [bar.buttons[k] for k in pages]
    assert all(bar.widgetForAction(bar.buttons[k]) is None for k in pages)      # not one button each
    chosen = []
    bar.chosen.connect(chosen.append)
    bar.buttons[pages[1]].trigger()
    assert chosen == [pages[1]]
    bar.set_current(pages[1])
    assert bar.instruments.isChecked() and bar.instruments.text().startswith(PAGE[pages[1]].short)
    bar.set_current("scores")
    assert not bar.instruments.isChecked() and bar.instruments.text().startswith("Instruments")
