"""MainWindow: lays the views out, wires their intents to LabState, and keeps the status bar.

Widgets never import app/: this window hands each view the state it reads and connects each
view's intent signals to a LabState method.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QGraphicsOpacityEffect,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from compute import PRESET_NOTES, PRESETS
from compute.models.components import mistakes
from compute.stations import PAGE, PAGES
from widgets.block_map import BlockMap
from widgets.i18n import message, tr
from widgets.instruments import CODE_FONT_PT
from widgets.panels import MessageBar, StationBar
from widgets.stations import Station
from widgets.token_strip import TokenStrip

from . import notes
from .actions import ActionSet, key_text
from .docks import Docks
from .early import PaintHandshake
from .file_actions import FileActions
from .instruments import Instruments
from .model_actions import ModelActions
from .navigation import Navigation
from .page_host import PageHost, Pages
from .pages import controllers
from .presentation import STYLE
from .settings import Settings
from .state import LabState
from .status import StatusBar
from .values import real_model_of

# The light window (the dark one adds app/presentation.py's DARK_QSS): colours from the light palette.


STALE_OPACITY = 0.35      # the views while another model's first pass runs (still its predecessor's numbers)


class MainWindow(QMainWindow):
    rendered = Signal(float)      # render ms of the last result (tests and benchmarks wait on it)

    def __init__(self, state: LabState | None = None, parent: QWidget | None = None, settings=None):
        super().__init__(parent)
        self.state = state if state is not None else LabState(parent=self)
        self.setWindowTitle("QKV Lab")
        self.setStyleSheet(STYLE)                              # app/presentation.py: the window's look
        screen = QGuiApplication.primaryScreen()
        avail = screen.availableGeometry() if screen else None
        if avail is not None and avail.width() > 200:
            # A laptop (up to 1600 × 1000) gets the whole screen: the views need every pixel of it;
            # a large one most of it.
            w = avail.width() if avail.width() <= 1600 else min(1800, int(avail.width() * 0.9))
            h = avail.height() if avail.height() <= 1000 else min(1100, int(avail.height() * 0.9))
            self.resize(w, h)
        else:
            self.resize(1440, 900)

        # -- central: token strip, messages, station bar, the active station ----------------------
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(4, 4, 4, 0)
        column.setSpacing(4)
        self.tokens = TokenStrip()
        column.addWidget(self.tokens)
        self.messages = MessageBar()
        column.addWidget(self.messages)
        self.station_bar = StationBar([PAGE[k] for k in PAGES], {k: key_text(f"station:{k}") for k in PAGES})
        column.addWidget(self.station_bar)
        self.stack = QStackedWidget()
        # Every page (station or instrument) is built when it is first shown: most lectures see a
        # few of the 21, and building one is most of a start-up's drawing work.
        self.host = PageHost(self)                           # builds a page and wires it (app/page_host.py)
        self.pages = Pages(self.host.build)
        self.head_menu = self.host.head_menu
        self.stations = self.pages                           # the same pages (a station's API where they have it)
        # The block map is a view of the stations, not a page of its own: shown over the current
        # station's place until a station is chosen (a click on it, a key, the station bar).
        self.block_map = BlockMap()
        self.stack.addWidget(self.block_map)
        self.pages.add("block_map", self.block_map)          # themes and type sizes reach it too
        self.block_map.figure.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)   # knock the head out
        self.block_map.figure.customContextMenuRequested.connect(
            lambda pos: self.host.pop_head_menu(self.block_map.figure.mapToGlobal(pos)))
        # Each instrument page's app side (app/pages/); the dock's instruments (trace, code, Predict).
        self.controllers = controllers(self.state, self)
        self.instruments = Instruments(self.state, self.controllers["ab"], self)
        column.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        # -- docks: the controls left, the instruments right (app/docks.py) ---------------------------------
        d = self.dock_layout = Docks(self)
        self.controls, self.controls_scroll, self.tabs, self.docks = d.controls, d.scroll, d.tabs, d.docks
        self.notes, self.trace_panel = d.notes, d.trace_panel
        self.code_view, self.calibrator = d.code_view, d.calibrator
        self._size_docks = d.size_docks

        # -- status bar: backend, times, sizes, progress and Cancel (app/status.py) --------------------------
        self.status = StatusBar(self, self.state, self.controls.backend_in_use)
        self.status_times, self.progress, self.cancel_button = self.status.times, self.status.progress, \
            self.status.cancel_button
        self._busy_timer = self.status.busy_timer
        self._busy_timer.timeout.connect(self._show_busy)
        # Early results: which paint is awaited, when the worker may go on (app/early.py).
        self.paint = PaintHandshake(self.state.runner, parent=self)
        self.paint.rendered.connect(self._on_rendered)
        # The token strip follows an edit at once when the compute is slow, else together with
        # the views in one frame (a toy edit's result is back in ~2 ms).
        self._strip_timer = QTimer(self, singleShot=True, interval=40, timeout=self._show_tokens)
        # Likewise a selection that changes with an edit (the query follows a dragged token) is
        # drawn with that edit's result, not first on the old one (a wasted repaint per drag).
        self._selection_timer = QTimer(self, singleShot=True, interval=40, timeout=self._show_station_selection)
        # Stations, layers, heads, queries by key; Play; the block map (app/navigation.py).
        self.navigation = Navigation(self)
        self._play_timer, self._go_to, self.show_block_map = (self.navigation.timer, self.navigation.go_to,
                                                              self.navigation.show_block_map)

        self.actions = ActionSet(self)
        self._connect_actions()
        self._wire()
        self._on_inputs(self.state.inputs)
        self._on_selection(self.state.selection)
        # Sessions, recent files, export, themes, presentation mode (File and View menus).
        # Preferences are handed in (main.py: the user's; tests: a file of their own); without
        # them nothing persists, so no window ever touches the user's store by accident.
        self.settings = settings if settings is not None else Settings.memory()
        self.file_actions = FileActions(self, self.settings)
        # Weights, checkpoints, training (Model menu and the Train tab).
        self.model_actions = ModelActions(self)
        self.menus = self.actions.build_menus(self.menuBar(), self.file_actions.submenus)
        self.actions.guard_text_fields()
        self.retranslate()

    # -- language: every text again when it changes (app/language.py) -------------------------------------
    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """The window's own texts in the language installed now; its widgets (controls, stations,
        instruments) retranslate themselves on the same LanguageChange event."""
        self.docks["controls"].setWindowTitle(tr("Controls"))
        self.docks["notes"].setWindowTitle(tr("Instruments"))
        tab_titles = {self.notes: tr("Notes"), self.trace_panel: tr("Trace"), self.code_view: tr("Code"),
                      self.calibrator: tr("Predict")}
        train = getattr(getattr(self, "model_actions", None), "panel", None)
        if train is not None:
            tab_titles[train] = tr("Train")
        for widget, title in tab_titles.items():
            self.tabs.setTabText(self.tabs.indexOf(widget), title)
        self.actions.retranslate()
        self.actions["block_map"].setIconText(tr("Map"))
        self._update_undo_texts()
        for owner in (getattr(self, "file_actions", None), getattr(self, "model_actions", None)):
            if owner is not None:
                owner.retranslate()
        self._show_inputs_in_controls(self.state.inputs)
        self.status.retranslate()
        self._update_notes()
        self._update_instrument_tabs()
        self.dock_layout.retranslate()

    def _update_undo_texts(self, *_args) -> None:
        """Undo and Redo say what they would undo or redo ("Undo Move “cat” to position 3")."""
        stack = self.state.undo_stack
        if not (isValid(stack) and isValid(self.undo_action)):
            return
        for action, what, plain, full in ((self.undo_action, stack.undoText(), tr("Undo"), tr("Undo {what}")),
                                          (self.redo_action, stack.redoText(), tr("Redo"), tr("Redo {what}"))):
            action.setText(full.format(what=what) if what else plain)
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.dock_layout.shown()

    def set_presenting(self, on: bool) -> None:
        """Presentation mode (app/presentation.py hides the chrome): messages float over the
        top of the station instead of pushing it down, and fade."""
        bar, column = self.messages, self.centralWidget().layout()
        if on == bar.floating:
            return
        if on:
            column.removeWidget(bar)
        else:
            column.insertWidget(1, bar)
        bar.set_floating(on)
        self.station_bar.set_compact(on)              # nothing in the » overflow on a projector
        self._place_messages()
        font_pt = getattr(getattr(self, "file_actions", None), "appearance", None)
        self.code_view.set_font_pt(font_pt.font_pt if on and font_pt is not None else CODE_FONT_PT)

    def _message_shown(self, *_args) -> None:
        self._place_messages()

    def _place_messages(self) -> None:
        """Floating, a message lies over the right end of the station bar (chrome, not content)."""
        if self.messages.floating:
            self.messages.place(self.station_bar.geometry().top())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_messages()

    def closeEvent(self, event) -> None:
        self.state.runner.shutdown()
        # The undo steps go with the window: left to the garbage collector, a LabState freed from a
        # cycle (through ModelActions' trainer) deleted its stack's commands a second time (a crash).
        self.state.undo_stack.clear()
        super().closeEvent(event)

    # -- actions, menus and keys (one table: app/actions.py) ---------------------------------------------
    def _connect_actions(self) -> None:
        a, s = self.actions, self.state
        # Undo and Redo are the table's own actions: their text says what they would undo, in the
        # window's language (QUndoStack's own actions keep the prefix they were made with).
        self.undo_action, self.redo_action = a["undo"], a["redo"]
        self.undo_action.triggered.connect(s.undo_stack.undo)
        self.redo_action.triggered.connect(s.undo_stack.redo)
        s.undo_stack.undoTextChanged.connect(self._update_undo_texts)
        s.undo_stack.redoTextChanged.connect(self._update_undo_texts)
        s.undo_stack.indexChanged.connect(self._update_undo_texts)
        for key, dock in self.docks.items():
            a.adopt(f"dock:{key}", dock.toggleViewAction())
        self.navigation.connect_actions(a)

    # -- wiring: intents -> state, state -> views ------------------------------------------------------
    def _wire(self) -> None:
        s = self.state
        self.tokens.moveRequested.connect(s.move_token)
        self.tokens.selected.connect(lambda i: s.select(query=i, key=None))
        self.tokens.replaceRequested.connect(s.replace_token)
        self.tokens.removeRequested.connect(s.remove_token)
        self.tokens.insertRequested.connect(s.insert_token)
        self.tokens.textSubmitted.connect(self._on_text_submitted)
        self.tokens.searchRequested.connect(s.find_token)
        c = self.controls
        c.presetChosen.connect(s.load_preset)
        c.layerChosen.connect(lambda v: s.select(layer=v))
        c.headChosen.connect(lambda v: s.select(head=v))
        c.seedChanged.connect(s.set_seed)
        c.backendChosen.connect(s.set_backend)
        c.lockScalesChanged.connect(lambda on: s.select(lock_scales=on))
        c.fullRangeChanged.connect(lambda on: s.select(full_range=on))
        c.showValuesChanged.connect(lambda on: s.select(show_values=on))
        self.station_bar.chosen.connect(self._go_to)
        self.block_map.chosen.connect(self._go_to)
        self.block_map.layerChosen.connect(lambda layer: s.select(layer=layer))
        self.block_map.headChosen.connect(lambda head: s.select(head=head))
        self.station_bar.playToggled.connect(self.navigation.play)
        self.station_bar.speedChanged.connect(lambda sec: self._play_timer.setInterval(int(sec * 1000)))
        ins = self.instruments
        self.trace_panel.cleared.connect(lambda: s.select(trace=None))
        self.tabs.currentChanged.connect(lambda _i: self._update_instrument_tabs())
        self.tabs.currentChanged.connect(lambda _i: self.dock_layout.fit_to_tab())
        self.tabs.currentChanged.connect(lambda _i: ins.open_query_for_predict(self.calibrator)
                                         if self.tabs.currentWidget() is self.calibrator else None)
        self.code_view.backendChosen.connect(lambda which: self._update_code())
        self.code_view.popOutRequested.connect(self.dock_layout.pop_out)
        self.trace_panel.popOutRequested.connect(self.dock_layout.pop_out)
        self.calibrator.applyRequested.connect(ins.calibrate)
        self.calibrator.suggestRequested.connect(lambda: ins.suggest_experiment(self.calibrator))
        self.calibrator.keepRequested.connect(ins.keep_ab)
        ins.calibrated.connect(self.calibrator.show_outcome)
        s.inputsChanged.connect(self._on_inputs)
        s.resultChanged.connect(self._on_result)
        s.partialResult.connect(self._on_partial)
        s.set_early_results(True)                    # this window draws them (see app/early.py)
        s.selectionChanged.connect(self._on_selection)
        s.message.connect(self.messages.show_message)
        s.messageWithdrawn.connect(self.messages.withdraw)
        s.message.connect(self._message_shown)          # a method, not a lambda: a lambda held by the
        # state's signal would keep this window alive after it is closed (test_leaks)
        s.lockChanged.connect(self._on_lock)
        s.undo_stack.canUndoChanged.connect(self._on_lock)      # after Qt's own update of the actions
        s.undo_stack.canRedoChanged.connect(self._on_lock)
        s.busyChanged.connect(self._on_busy)
        s.progressChanged.connect(self.status.on_progress)

    def _on_lock(self, _flag: bool = False) -> None:
        """While training runs, the history is frozen (the views show the live weights): Undo and
        Redo are disabled, also when the stack would enable them again."""
        stack = self.state.undo_stack
        if not isValid(stack) or not isValid(self.undo_action):
            return                                        # tearing down
        self.undo_action.setEnabled(stack.canUndo() and not self.state.locked)
        self.redo_action.setEnabled(stack.canRedo() and not self.state.locked)

    def _on_traced(self, target) -> None:
        """A click on q, k, v or a score: explain it in the Trace tab and keep its pairs lit."""
        name, row, col = target
        self.state.select(trace=(name, row, col))
        self.tabs.setCurrentWidget(self.trace_panel)
        self.docks["notes"].raise_()                  # in front of the controls when they share a dock

    def _update_code(self) -> None:
        view, note = self.instruments.code_for(self.state.selection.station, self.code_view.backend,
                                               self.state.result)
        self.code_view.show_source(view, note)

    def _on_cell_clicked(self, pair) -> None:
        query, key = pair
        changes = {"key": key}
        if query is not None:
            changes["query"] = query
        self.state.select(**changes)

    def _on_inputs(self, inputs) -> None:
        self._show_inputs_in_controls(inputs)
        if self.state.busy or self.state.result is None or self.state.result.inputs != inputs:
            self._strip_timer.start()
        else:
            self._show_tokens()
        self.status.update_sizes()

    def _show_inputs_in_controls(self, inputs) -> None:
        real = real_model_of(inputs.weights) if inputs.weights not in ("random", "trained") else None
        note = message(real.status_message()) if real is not None else tr(PRESET_NOTES.get(inputs.preset, ""))
        self.controls.set_inputs(inputs, note, self.state.weights_label(inputs),
                                 trained_fits=inputs.config.same_shapes(PRESETS["toy"]))

    def _show_tokens(self, result=None) -> None:
        """The token strip for `result` (an early or a full one), else for the inputs now."""
        self._strip_timer.stop()
        labels, n_ctx = ((result.labels, result.inputs.config.n_ctx) if result is not None
                         else (self.state.labels(), self.state.inputs.config.n_ctx))
        self.tokens.set_tokens(labels, self._menu_vocabulary(), n_ctx, self.state.selection.query)
        if result is None or result.inputs == self.state.inputs:
            self.tokens.show_text(self.state.text())

    def _on_text_submitted(self, text: str) -> None:
        """The type box: words typed after the tokens' text are appended (the pass reuses every row
        before them); any other text replaces the sequence."""
        shown = self.tokens.shown_text
        if text == shown:
            return                                        # Enter on the text as it is: nothing to do
        if shown and text.startswith(shown) and text[len(shown):].strip():
            self.state.append_text(text[len(shown):])
        else:
            self.state.set_text(text)

    def _menu_vocabulary(self) -> list[str]:
        """Words for the token strip's menus: the whole vocabulary when it is small enough to list
        (the toy's 16 words); a 50,257-token vocabulary is typed instead."""
        tok = self.state.tokenizer
        size = getattr(tok, "size", 0)
        if size > 256:
            return []
        return list(tok.vocab) if hasattr(tok, "vocab") else list(tok.labels(range(size)))

    def _on_selection(self, sel) -> None:
        if sel.theme != getattr(self, "_code_theme", "light"):
            self._code_theme = sel.theme
            self.code_view.set_dark(sel.theme == "dark")       # its syntax colours follow the page
        self.controls.set_selection(sel)
        self.tokens.set_selected(sel.query)
        self.station_bar.set_current(sel.station)
        target = self.block_map if self.actions["block_map"].isChecked() else self.pages[sel.station]
        if self.stack.currentWidget() is not target:
            self.stack.setCurrentWidget(target)
        if target is self.block_map:
            self.block_map.show_selection(sel)
        if isinstance(self.pages[sel.station], Station):   # others follow through their controller
            if self.state.busy and self.state.result is not None:
                if not self._selection_timer.isActive():  # throttled, not postponed: hovering
                    self._selection_timer.start()          # during a long compute still shows
            else:
                self._show_station_selection()
        self._update_instrument_tabs()
        self._update_notes()

    def _show_station_selection(self) -> None:
        self._selection_timer.stop()
        sel = self.state.selection
        page = self.pages.get(sel.station)
        if isinstance(page, Station):
            page.show_selection(sel)

    def _update_instrument_tabs(self) -> None:
        """Keep the instrument tabs current; the code view (reading source) only when it is shown."""
        s = self.state
        current = self.tabs.currentWidget()
        if current is self.trace_panel or s.selection.trace is not None:
            result = s.result
            station = self.stations.get(s.selection.station)
            if self.paint.early_on_screen and station is not None and station.result is not None:
                result = station.result               # the early result on screen, not the last full one
            try:
                self.trace_panel.show_trace(self.instruments.dot_trace(result, s.selection))
            except KeyError:
                pass                                  # not in the early result: the full one follows
        if current is self.code_view:
            self._update_code()
        sel = s.selection
        self.calibrator.set_context(s.labels(), sel.query, sel.head, sel.layer)
        if s.result is not None:                      # "load it wrong": the mistakes this model's parts allow
            self.calibrator.set_mistakes([(m.key, m.title) for m in mistakes(s.result.inputs.config)])

    def _on_partial(self, result) -> None:
        """An early result (the selected layer's attention, MLP still running): the current
        station draws it now if it can; the full result then finds it drawn already."""
        sel = self.state.selection
        station = self.stations.get(sel.station)
        if (station is None or not station.isVisible() or not self.paint.accepts_early()
                or not station.can_draw(result, sel)):
            self.paint.pass_early()
            return
        self._selection_timer.stop()
        self.paint.early_drawn(result.request_id)
        station.show_result(result, sel)
        self._show_tokens(result)
        self._mark_stale(result)

    def _on_result(self, result) -> None:
        self._selection_timer.stop()                  # the stations draw the current selection now
        # `rendered` fires when the active station has really painted (or soon after, if the window
        # is hidden and Qt skips painting); not again for the full result of an early one on screen.
        if not self.paint.full_drawn(result.request_id):
            self.status.show_times(result)
        sel = self.state.selection
        for page in self.pages.values():
            if isinstance(page, Station):
                page.show_result(result, sel)         # hidden pages only remember it (unbuilt ones: when built)
        self.block_map.show_result(result, sel)
        self._update_instrument_tabs()
        self._show_tokens(result)
        if result.inputs == self.state.inputs:
            self._show_inputs_in_controls(result.inputs)   # weights loaded by the runner (a session's): their name
        self.status.show_backend(result)
        self.status.update_sizes()
        self._update_notes()
        self._mark_stale(result)

    def _mark_stale(self, shown=None) -> None:
        """While another model's pass runs (other weights or shapes: opening a GGUF, a preset), the
        views still show the previous model's numbers under the new model's name: dim them until
        the new model's first result is drawn (`shown`: the result on screen)."""
        shown = shown if shown is not None else self.state.result
        now = self.state.inputs
        stale = (self.state.busy and shown is not None and
                 (shown.inputs.weights != now.weights or not shown.inputs.config.same_shapes(now.config)))
        if stale and self.stack.graphicsEffect() is None:
            effect = QGraphicsOpacityEffect(self.stack)
            effect.setOpacity(STALE_OPACITY)
            self.stack.setGraphicsEffect(effect)
        elif not stale and self.stack.graphicsEffect() is not None:
            self.stack.setGraphicsEffect(None)            # deletes the effect

    def _on_rendered(self, ms: float, early: bool) -> None:
        self.status.rendered(ms, early)
        self.rendered.emit(ms)

    def _update_notes(self) -> None:
        self.notes.show_note(notes.render(self.state.selection.station, self.state.inputs, self.state.selection))

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self._mark_stale()
        self.status.busy(busy)                        # quick edits never flash a progress bar
        if not busy:
            result = self.state.result
            if self.paint.pass_ended(result.request_id if result is not None else None):
                # The pass whose early part is on screen failed or was cancelled: back to the result
                # that goes with the inputs now shown.
                if result is not None:
                    station = self.stations.get(self.state.selection.station)
                    if station is not None:
                        station.show_result(result, self.state.selection)
                    self._show_tokens()
                    self.status.show_times(result)

    def _show_busy(self) -> None:
        self._mark_stale()                                # after the same delay: quick edits never flash it
        self.status.show_busy()
