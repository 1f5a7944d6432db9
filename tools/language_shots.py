"""The lab as main.py starts it, then (optionally) the shortcut cheat sheet opened over it, for a
screenshot in a real window in another language (run it under tools/screenshot.sh):

    SCREEN=1280x800x24 tools/screenshot.sh docs/i18n/sheet-sv.png 14 -- \\
        .venv/bin/python tools/language_shots.py --sheet -- --clean --lang sv
    options before "--": --sheet (open the cheat sheet once the first view is drawn);
    after it: main.py's own arguments (--lang, --station, --preset ...)
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    argv = sys.argv[1:]
    ours, theirs = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else ([], argv)
    if "--sheet" in ours:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication

        from app.main_window import MainWindow

        shown = MainWindow.show

        def show_then_sheet(self) -> None:
            shown(self)
            QApplication.processEvents()
            QTimer.singleShot(3000, self.file_actions.presentation.show_sheet)
        MainWindow.show = show_then_sheet
    import main as lab

    return lab.main(theirs)


if __name__ == "__main__":
    sys.exit(main())
