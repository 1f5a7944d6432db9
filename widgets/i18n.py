"""Text for translation with Qt's system: `tr("text")` marks a string and looks it up in the
installed translator (main.install_translator loads assets/i18n/qkv_lab_<language>.qm). English
is the source language; `pyside6-lupdate` collects the marked strings into a .ts file to translate."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

CONTEXT = "QKV Lab"


def tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)
