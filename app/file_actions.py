"""File ▸ sessions, recent files and export; View ▸ theme, colour maps, language and presentation mode.

MainWindow makes one FileActions with the user's Settings; it connects the rows of app/actions.py
it handles and fills the Open recent and colour-map submenus. Every action goes through
LabState (sessions are undoable edits; colours are view state) or writes files via app.export /
app.session; a problem becomes a message in the window, never an exception.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QDialog, QFileDialog, QMenu
from shiboken6 import isValid

from widgets.export_dialog import ExportDialog
from widgets.figure import COMPOSED_VIEWS
from widgets.i18n import QT_TR_NOOP, error_text, tr
from widgets.theme import DIVERGING_MAPS, SEQUENTIAL_MAPS, colormap_title

from . import language
from . import session as sessions
from .export import FORMATS, ExportError, ExportRequest, export
from .presentation import Appearance, Presentation, set_dark
from .settings import Settings
from .state import preset_config, preset_tokens

FILTERS = {".png": QT_TR_NOOP("PNG image (*.png)"), ".svg": QT_TR_NOOP("SVG vector image (*.svg)"),
           ".pdf": QT_TR_NOOP("PDF document (*.pdf)"), ".npz": QT_TR_NOOP("NumPy archive (*.npz)"),
           ".csv": QT_TR_NOOP("CSV table (*.csv)")}


def session_filter() -> str:
    return tr("QKV Lab sessions (*.qkvlab);;All files (*)")


def default_view(station: str) -> str:
    """The figure that matches what is on screen (a station's composed figure)."""
    return station if station in COMPOSED_VIEWS else "pattern"


class FileActions(QObject):
    def __init__(self, window, settings: Settings):
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.settings = settings
        self.path: Path | None = None           # the session file this window shows, if any
        self.appearance = Appearance(window)
        self.presentation = Presentation(window, self.appearance)
        self._connect_actions()
        window.installEventFilter(self)
        self.state.undo_stack.cleanChanged.connect(self._update_title)   # a method: disconnected with us
        self.state.inputsChanged.connect(self._update_title)
        self._opening: tuple | None = None       # (path, clean index) before a session being opened, its inputs
        self.state.resultChanged.connect(self._opened)
        self.state.computeFailed.connect(self._open_failed)
        self._update_title()

    # -- actions (app/actions.py has their text and keys) --------------------------------------------
    def _connect_actions(self) -> None:
        w = self.window
        a = w.actions
        a.connect("new", self.new_session)
        a.connect("open", lambda: self.open_session())
        a.connect("save", self.save)
        a.connect("save_as", self.save_as)
        self.restore_action = a["restore_last"]
        self.restore_action.setChecked(self.settings.restore_last)
        a.connect("restore_last", self._set_restore)
        a.connect("export", self.export_dialog)
        a.connect("export_npz", self.export_npz)
        self.present_action = a["present"]
        a.connect("present", self._present)
        self.presentation.toggled.connect(self._presented)
        a.connect("sheet", self.presentation.show_sheet)
        self.dark_action = a["dark"]
        a.connect("dark", self._toggle_dark)
        self.recent_menu = QMenu(w)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.submenus = {"recent": self.recent_menu}
        self.colour_groups = {}
        for field, names in (("colormap", SEQUENTIAL_MAPS), ("diverging", DIVERGING_MAPS)):
            menu = self.submenus[field] = QMenu(w)
            group = QActionGroup(menu)
            for name in names:
                act = QAction(colormap_title(name), menu, checkable=True)
                act.setData(name)
                act.triggered.connect(lambda _=False, f=field, n=name: self.state.select(**{f: n}))
                group.addAction(act)
                menu.addAction(act)
            self.colour_groups[field] = group
        self.language_menu = self.submenus["language"] = QMenu(w)
        self.language_group = QActionGroup(self.language_menu)
        for code in ("", *language.LANGUAGES):
            act = QAction(language.NAMES.get(code, ""), self.language_menu, checkable=True)
            act.setData(code)
            act.triggered.connect(lambda _=False, c=code: self.set_language(c))
            self.language_group.addAction(act)
            self.language_menu.addAction(act)
            if not code:
                self.language_menu.addSeparator()
        self._sync_language_menu()
        self.state.selectionChanged.connect(self._sync_view_menu)
        self._sync_view_menu(self.state.selection)

    def retranslate(self) -> None:
        """Texts this object set (the table's actions retranslate in ActionSet)."""
        self.restore_action.setToolTip(tr("off: start clean (also: qkv-lab --clean)"))
        for group in self.colour_groups.values():
            for act in group.actions():
                act.setText(colormap_title(act.data()))
        self._sync_language_menu()
        self._update_title()

    # -- language (View ▸ Language; app/language.py) -------------------------------------------------
    def set_language(self, choice: str) -> str:
        """Switch the window to a language now ("" = follow the system) and keep the choice."""
        self.settings.language = choice
        code = language.install(language.resolve(choice))
        for problem in language.problems():
            self.state.message.emit("warning", problem)
        self._sync_language_menu()
        return code

    def _sync_language_menu(self) -> None:
        choice = self.settings.language
        if language.current() != language.resolve(choice):
            choice = language.current()                # `--lang sv` for this run: Svenska is what is on screen
        for act in self.language_group.actions():
            code = act.data()
            if not code:
                act.setText(tr("Follow the system ({language})").format(
                    language=language.NAMES[language.system_language()]))
            act.setChecked(code == choice)

    def _present(self, on: bool) -> None:
        if on != self.presentation.active:
            self.presentation.toggle()

    def _presented(self, on: bool) -> None:
        if self.present_action.isChecked() != on:
            self.present_action.setChecked(on)

    def _sync_view_menu(self, sel) -> None:
        self.dark_action.setChecked(sel.theme == "dark")
        if self.settings.theme != sel.theme:
            self.settings.theme = sel.theme        # the preference for the next start
        for field, group in self.colour_groups.items():
            for act in group.actions():
                act.setChecked(act.data() == getattr(sel, field))

    def _toggle_dark(self, on: bool) -> None:
        if on != (self.state.selection.theme == "dark"):
            set_dark(self.state, on)

    def _set_restore(self, on: bool) -> None:
        self.settings.restore_last = on

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        for n, path in enumerate(files, start=1):
            act = self.recent_menu.addAction(f"&{n}  {Path(path).name}")
            act.setToolTip(path)
            act.setStatusTip(path)
            act.triggered.connect(lambda _=False, p=path: self.open_session(p))
        if not files:
            self.recent_menu.addAction(tr("(no sessions yet)")).setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(tr("Clear the list"), self.settings.clear_recent).setEnabled(bool(files))

    def _update_title(self, *_args) -> None:
        if not (isValid(self.window) and isValid(self.state.undo_stack)):
            return                                  # emitted while the window is torn down
        name = self.path.name if self.path else tr("untitled")
        inputs = self.state.inputs
        weights = (tr(" — {preset}, random weights (seed {seed})").format(preset=inputs.preset, seed=inputs.seed)
                   if inputs.weights == "random" and inputs.preset != "toy" else "")   # not the real model
        self.window.setWindowTitle(f"{name}[*]{weights} — QKV Lab")
        self.window.setWindowModified(not self.state.undo_stack.isClean())

    def _folder(self) -> str:
        folder = self.settings.last_folder
        return folder if folder and os.path.isdir(folder) else str(Path.home())

    # -- sessions ---------------------------------------------------------------------------------------
    def new_session(self) -> bool:
        """The toy preset with its sentence and seed 0, as one undoable step."""
        tokens = preset_tokens("toy")
        ok = self.state.edit(tr("New session"), config=preset_config("toy"), tokens=tokens, preset="toy", seed=0,
                             weights="random")
        if ok:
            self.state.select(layer=0, head=0, query=len(tokens) - 1, key=None, hover=None, station="scores")
            self.path = None
            self._update_title()
        return ok

    def open_session(self, path: str | os.PathLike | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, tr("Open session"), self._folder(), session_filter())
            if not path:
                return False
        path = Path(path)
        try:
            data = sessions.load_session(path)
        except sessions.SessionError as exc:
            self.state.message.emit("error", tr("Could not open the session — {why}. Nothing changed.").format(
                why=error_text(exc)))
            if exc.not_found:
                self.settings.remove_recent(str(path.expanduser().resolve()))
            return False
        # Until its inputs are computed the session is not open: if they fail (weights that do not
        # fit), the view goes back and so do the file name and the title, so Save cannot write
        # the old view over this file.
        before = (self.path, self.state.undo_stack.index() if self.state.undo_stack.isClean() else None)
        # "Opened" (or the session's warnings) shows once its inputs are on screen, never before a failure.
        if not sessions.apply_session(self.state, data, path.name, opened=tr("Opened {name}.").format(name=path.name)):
            return False
        s = self.state
        pending = s.result is None or s.result.inputs != s.inputs   # not on screen yet: wait for them
        self._opening = before + (s.inputs,) if pending else None
        self.path = path
        self.settings.add_recent(path)
        self.settings.last_folder = str(path.parent)
        self.state.undo_stack.setClean()
        self._update_title()
        return True

    def _opened(self, result) -> None:
        # The session's own inputs computed. A re-shown older result after a failure does not count.
        if self._opening is not None and self._opening[2] == result.inputs:
            self._opening = None

    def _open_failed(self, _text: str) -> None:
        if self._opening is None:
            return
        (path, clean_index, _target), self._opening = self._opening, None
        stack = self.state.undo_stack
        self.path = path
        if clean_index is not None and stack.index() == clean_index:
            stack.setClean()
        else:
            stack.resetClean()
        self._update_title()
        self.state.message.emit("error", tr("The session's inputs could not be computed, so it was not opened: the "
                                            "title and Save still refer to what is on screen."))

    def save(self) -> bool:
        return self.save_to(self.path) if self.path else self.save_as()

    def save_as(self) -> bool:
        start = str(self.path) if self.path else os.path.join(self._folder(), "session.qkvlab")
        path, _ = QFileDialog.getSaveFileName(self.window, tr("Save session"), start, session_filter())
        return self.save_to(path) if path else False

    def save_to(self, path) -> bool:
        try:
            written = sessions.save_session(path, self.state)
        except sessions.SessionError as exc:
            self.state.message.emit("error", tr("{why}. Nothing was written; the session is still open.").format(
                why=error_text(exc)))
            return False
        self.path = written
        self.settings.add_recent(written)
        self.settings.last_folder = str(written.parent)
        self.state.undo_stack.setClean()
        self._update_title()
        self.state.message.emit("info", tr("Saved {name}.").format(name=written.name))
        return True

    def autosave(self) -> None:
        """Keep the session for the next start (File ▸ Start with the last session)."""
        try:
            self.settings.last_session = sessions.dumps(self.state)
            self.settings.set("sessions/last_path", str(self.path) if self.path else "")
            self.settings.sync()
        except Exception as exc:  # noqa: BLE001 - closing must never fail on this
            print(f"qkv-lab: could not keep the session for next time: {exc}")

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if obj is self.window and event.type() == QEvent.Type.Close:
            self.autosave()
        return False

    # -- export ---------------------------------------------------------------------------------------------
    def _exportable(self) -> bool:
        """A figure shows the views' numbers: refuse while they are not those of the inputs."""
        result = self.state.result
        if result is None:
            self.state.message.emit("error", tr("Nothing to export yet: the first computation has not finished."))
            return False
        if self.state.busy or result.inputs != self.state.inputs:
            self.state.message.emit("error", tr("Still computing the last change: export once the views show it (or "
                                                "cancel the computation to export what is on screen)."))
            return False
        return True

    def export_dialog(self) -> bool:
        if not self._exportable():
            return False
        result = self.state.result
        sel = self.state.selection
        dialog = ExportDialog(result, sel, default_view(sel.station), self.settings.export_defaults(), self.window)
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            self.settings.set_export_defaults(dialog.defaults())
            opts = dialog.options()
        finally:
            dialog.deleteLater()
        name = f"{opts['view']}-L{sel.layer}H{sel.head}{opts['suffix']}"
        path, _ = QFileDialog.getSaveFileName(self.window, tr("Export"), os.path.join(self._folder(), name),
                                              tr(FILTERS[opts["suffix"]]))
        if not path:
            return False
        suffix = Path(path).suffix.lower()
        if suffix not in FORMATS:
            path, suffix = path + opts["suffix"], opts["suffix"]
        # The name's suffix chooses the format (fig.svg is an SVG whatever the list said); the PNG
        # size applies to a PNG only.
        png = suffix == ".png"
        return self.export_to(path, opts["view"], opts["style"], opts["width"] if png else None,
                              opts["dpi"] if png else None)

    def export_npz(self) -> bool:
        sel = self.state.selection
        start = os.path.join(self._folder(), f"trace-{self.state.inputs.preset}.npz")
        path, _ = QFileDialog.getSaveFileName(self.window, tr("Export all intermediates"), start, tr(FILTERS[".npz"]))
        if not path:
            return False
        return self.export_to(path if path.lower().endswith(".npz") else path + ".npz", default_view(sel.station))

    def export_to(self, path, view: str, style=None, width=None, dpi=None, size=None) -> bool:
        from widgets.figure import FigureStyle

        if not self._exportable():
            return False
        request = ExportRequest(str(path), view=view, style=style or FigureStyle(), width=width, dpi=dpi, size=size)
        try:
            written = export(self.state.result, self.state.selection, request)
        except ExportError as exc:
            self.state.message.emit("error", tr("Export failed: {why}").format(why=error_text(exc)))
            return False
        except Exception as exc:  # noqa: BLE001 - a figure that cannot be drawn is a message, not a crash
            self.state.message.emit("error", tr("Export failed: {why}").format(why=f"{type(exc).__name__}: {exc}"))
            return False
        self.settings.last_folder = str(written.parent)
        self.state.message.emit("info", tr("Exported {name}.").format(name=written.name))
        return True


def restore_last_session(window, settings: Settings) -> bool:
    """At start-up: reopen what was on screen when the window last closed (no undo entry).
    A broken record is dropped with a message; the lab then starts clean."""
    text = settings.last_session
    if not text:
        return False
    try:
        data = sessions.parse_session(text, tr("the last session"))
    except sessions.SessionError as exc:
        settings.last_session = None
        window.state.message.emit("warning", tr("{why} — starting clean.").format(why=error_text(exc)))
        return False
    if not sessions.apply_session(window.state, data, tr("the last session"), undoable=False):
        return False
    actions = getattr(window, "file_actions", None)
    last_path = settings.get("sessions/last_path", "", str)
    if actions is not None and last_path and os.path.isfile(last_path):
        actions.path = Path(last_path)
        actions._update_title()
    return True
