"""Getting around the lab: a station by its key, the station bar or the block map (which it
replaces), the next layer, head or query by key, Esc, Play (the time controller that steps
through the stations), the shortcuts sheet and About. MainWindow composes it; every change goes
through LabState.select."""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from compute.stations import PAGES, STATIONS
from widgets.i18n import tr

from .actions import sheet_rows

PLAY_MS = 2000              # Play's default time per station (the station bar's speed box changes it)


class Navigation(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window, self.state = window, window.state
        self.timer = QTimer(self, interval=PLAY_MS, timeout=self.play_step)

    def connect_actions(self, a) -> None:
        """The action table's navigation rows (app/actions.py) to what they do."""
        w, s = self.window, self.state
        for key in PAGES:
            a.connect(f"station:{key}", lambda _=False, k=key: self.go_to(k))
        a.connect("block_map", self.show_block_map)
        w.station_bar.insertAction(w.station_bar.prev, a["block_map"])
        w.station_bar.widgetForAction(a["block_map"]).setObjectName("pageButton")
        cfg = lambda: s.inputs.config  # noqa: E731
        for act_id, fn in (
            ("quit", w.close),
            ("type", w.tokens.start_typing),
            ("next_station", lambda: w.station_bar.step(+1)),
            ("prev_station", lambda: w.station_bar.step(-1)),
            ("next_query", lambda: self.step_query(+1)),
            ("prev_query", lambda: self.step_query(-1)),
            ("next_head", lambda: self.step("head", +1, cfg().n_heads)),
            ("prev_head", lambda: self.step("head", -1, cfg().n_heads)),
            ("next_layer", lambda: self.step("layer", +1, cfg().n_layers)),
            ("prev_layer", lambda: self.step("layer", -1, cfg().n_layers)),
            ("escape", self.escape),
            ("play", lambda: w.station_bar.play.toggle()),
            ("shortcuts", self.show_shortcuts),
            ("about", self.show_about),
        ):
            a.connect(act_id, fn)

    def show_block_map(self, on: bool = True) -> None:
        """The block map in the station's place (on), or the station again (off)."""
        w, s = self.window, self.state
        action = w.actions["block_map"]
        if action.isChecked() != on:
            action.setChecked(on)
        if on:
            if s.result is not None:
                w.block_map.show_result(s.result, s.selection)
            w.stack.setCurrentWidget(w.block_map)
        else:
            w.stack.setCurrentWidget(w.pages[s.selection.station])

    def go_to(self, station: str) -> None:
        """A station chosen (its key, the station bar, the block map): it replaces the map."""
        if self.window.actions["block_map"].isChecked():
            self.show_block_map(False)
        self.state.select(station=station)

    def escape(self) -> None:
        """Esc stops playing if it plays; otherwise it cancels a computation (which steps back)."""
        play = self.window.station_bar.play
        if play.isChecked():
            play.setChecked(False)
        elif self.state.busy:
            self.state.cancel()

    def step(self, field: str, delta: int, count: int) -> None:
        value = getattr(self.state.selection, field)
        self.state.select(**{field: (value + delta) % max(count, 1)})

    def step_query(self, delta: int) -> None:
        T = len(self.state.inputs.tokens)
        if T:
            self.state.select(query=(self.state.selection.query + delta) % T, key=None)

    def play(self, on: bool) -> None:
        if on:
            if self.state.selection.station not in STATIONS:
                self.state.select(station=STATIONS[0])
            self.timer.start()
        else:
            self.timer.stop()

    def play_step(self) -> None:
        """Time controller: the next station; at the last one, stop there."""
        if self.state.selection.station == STATIONS[-1]:
            self.window.station_bar.play.setChecked(False)
            return
        self.window.station_bar.step(+1)

    def show_shortcuts(self) -> None:
        rows = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in sheet_rows())
        QMessageBox.information(self.window, tr("Keyboard shortcuts"), f"<table cellspacing=6>{rows}</table>")

    def show_about(self) -> None:
        QMessageBox.about(self.window, tr("About QKV Lab"),
                          "<b>QKV Lab</b><br>" + tr("Every intermediate of a GPT-2-style block, live, with real "
                                                    "numbers."))
