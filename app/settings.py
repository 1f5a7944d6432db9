"""Preferences kept between runs: a thin typed wrapper over a QSettings store that is injectable.

`main.py` installs the user's store (`Settings.user()`); tests install a temporary INI file
(`Settings.at(path)`); anything else gets a store in memory — so nothing but the real app
ever touches the user's preferences. `QKV_LAB_SETTINGS=/path/file.ini` points the app at a
file of its own (CI, kiosks, demos).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

RECENT_MAX = 8
ENV_VAR = "QKV_LAB_SETTINGS"


class _MemoryStore:
    """The four QSettings methods we use, in a dict (nothing persists)."""

    def __init__(self):
        self._data: dict[str, Any] = {}

    def value(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def setValue(self, key: str, value: Any) -> None:  # noqa: N802 - QSettings' name
        self._data[key] = value

    def remove(self, key: str) -> None:
        self._data.pop(key, None)

    def sync(self) -> None:
        pass

    def fileName(self) -> str:  # noqa: N802 - QSettings' name
        return ""


class Settings:
    """Typed preferences. Every getter survives a missing or hand-broken value (default back)."""

    _current: Settings | None = None

    def __init__(self, store: QSettings | _MemoryStore | None = None):
        self.store = store if store is not None else _MemoryStore()

    # -- which store ----------------------------------------------------------------------------
    @classmethod
    def at(cls, path: str | os.PathLike) -> Settings:
        """An INI file of its own (tests, QKV_LAB_SETTINGS)."""
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    @classmethod
    def user(cls) -> Settings:
        """The user's store (QKV_LAB_SETTINGS overrides it). Only main.py calls this."""
        path = os.environ.get(ENV_VAR)
        return cls.at(path) if path else cls(QSettings("QKV Lab", "QKV Lab"))

    @classmethod
    def memory(cls) -> Settings:
        return cls(_MemoryStore())

    @classmethod
    def install(cls, settings: Settings | None) -> None:
        cls._current = settings

    @classmethod
    def current(cls) -> Settings:
        if cls._current is None:
            cls._current = cls.memory()
        return cls._current

    # -- raw access ----------------------------------------------------------------------------
    def get(self, key: str, default: Any = None, kind: type | None = None) -> Any:
        value = self.store.value(key, default)
        if kind is None or value is None:
            return value
        try:
            if kind is bool:
                return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
            return kind(value)
        except (TypeError, ValueError):
            return default

    def set(self, key: str, value: Any) -> None:
        self.store.setValue(key, value)

    def sync(self) -> None:
        self.store.sync()

    # -- typed preferences -------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        value = self.get("appearance/theme", "light", str)
        return value if value in ("light", "dark") else "light"

    @theme.setter
    def theme(self, value: str) -> None:
        self.set("appearance/theme", value)

    def recent_files(self) -> list[str]:
        raw = self.get("sessions/recent", "[]")
        try:
            items = json.loads(raw) if isinstance(raw, str) else list(raw or [])
        except (TypeError, ValueError):
            return []
        if not isinstance(items, list):                 # a hand-edited value: ignore it
            return []
        return [str(p) for p in items if isinstance(p, str) and p][:RECENT_MAX]

    def add_recent(self, path: str | os.PathLike) -> list[str]:
        path = str(Path(path).expanduser().resolve())
        items = [path] + [p for p in self.recent_files() if p != path]
        self.set("sessions/recent", json.dumps(items[:RECENT_MAX]))
        return items[:RECENT_MAX]

    def remove_recent(self, path: str) -> None:
        self.set("sessions/recent", json.dumps([p for p in self.recent_files() if p != path]))

    def clear_recent(self) -> None:
        self.set("sessions/recent", "[]")

    @property
    def last_session(self) -> str | None:
        """The session JSON saved when the window last closed (restored at start-up)."""
        value = self.get("sessions/last")
        return value if isinstance(value, str) and value else None

    @last_session.setter
    def last_session(self, text: str | None) -> None:
        if text:
            self.set("sessions/last", text)
        else:
            self.store.remove("sessions/last")

    @property
    def restore_last(self) -> bool:
        return self.get("sessions/restore_last", True, bool)

    @restore_last.setter
    def restore_last(self, on: bool) -> None:
        self.set("sessions/restore_last", bool(on))

    def export_defaults(self) -> dict[str, Any]:
        raw = self.get("export/defaults", "{}")
        try:
            value = json.loads(raw) if isinstance(raw, str) else {}
        except ValueError:
            value = {}
        return value if isinstance(value, dict) else {}

    def set_export_defaults(self, values: dict[str, Any]) -> None:
        self.set("export/defaults", json.dumps(values))

    @property
    def last_folder(self) -> str:
        return self.get("files/last_folder", "", str) or ""

    @last_folder.setter
    def last_folder(self, folder: str) -> None:
        self.set("files/last_folder", str(folder))
