"""Preferences kept between runs: plain text, numbers and true/false, read through a typed schema.

A preferences file is only ever parsed as text here. QSettings is not used to read it: PySide6's
QSettings turns an `@Variant(...)` value back into the Python object it holds by unpickling it,
so a preferences file handed over with QKV_LAB_SETTINGS could run code at start-up. The store
reads and writes the same INI dialect QSettings writes (so existing preferences carry over), but a
value that is not plain text (`@Variant(…)`, `@ByteArray(…)`, `@Rect(…)`, a list) is ignored with a
warning, and a known key whose text does not fit its type falls back to its default.

Where preferences live: `main.py` gives the window the user's store (`Settings.user()`); tests use
a temporary INI file (`Settings.at(path)`); anything else gets a store in memory, so nothing but
the real app ever touches the user's preferences. `QKV_LAB_SETTINGS=/path/file.ini` points the app
at a file of its own (CI, kiosks, demos). The Settings object is always handed in
(`MainWindow(state, settings=...)`); nothing finds it through a global.
"""
from __future__ import annotations

import json
import logging
import math
import os
import re
from pathlib import Path
from typing import Any

from compute import safe_io

RECENT_MAX = 8
LANGUAGE_CHOICES = ("", "en", "sv", "id")    # "": follow the system (app/language.py)
ENV_VAR = "QKV_LAB_SETTINGS"
MAX_BYTES = 16 << 20              # the last session is a few kB; anything near this is not ours
log = logging.getLogger("qkv_lab.settings")

# Every key the app keeps, with its type. Values are stored as text; JSON-valued keys hold text too.
SCHEMA: dict[str, type] = {
    "appearance/theme": str,
    "appearance/language": str,       # "" (follow the system), "en", "sv" or "id" (app/language.py)
    "sessions/recent": str,           # JSON list of paths
    "sessions/last": str,             # the session JSON of the last window
    "sessions/last_path": str,
    "sessions/restore_last": bool,
    "export/defaults": str,           # JSON object
    "files/last_folder": str,
}
Plain = str | bool | int | float


def _check_plain(key: str, value: Any) -> Plain:
    if not isinstance(key, str) or not key or any(c in key for c in "[]=\n\r;#"):
        raise ValueError(f"settings key {key!r}: use letters, digits, '_' and '/'")
    if isinstance(value, float) and not math.isfinite(value):
        raise TypeError(f"settings value for {key!r}: {value} is not a finite number")
    if not isinstance(value, (str, bool, int, float)):
        raise TypeError(f"settings hold text, numbers and true/false only, not {type(value).__name__} ({key!r})")
    return value


# -- the INI dialect QSettings writes, as text only -----------------------------------------------------
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            '"': '"', "'": "'", "?": "?", "\\": "\\"}
_QT_TYPED = ("@ByteArray(", "@Variant(", "@DateTime(", "@Rect(", "@RectF(", "@Size(", "@SizeF(",
             "@Point(", "@PointF(", "@Invalid(")


def _unescape(raw: str) -> tuple[list[str], bool]:
    """The value text of an INI line as QSettings reads it: quotes, backslash escapes, and commas
    outside quotes separating a list. Returns (items, is_list)."""
    items, cur, quoted, i, is_list = [], [], False, 0, False
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in _ESCAPES:
                cur.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "x" or nxt in "01234567":
                digits, base = ("0123456789abcdefABCDEF", 16) if nxt == "x" else ("01234567", 8)
                j = i + 2 if nxt == "x" else i + 1
                while j < len(raw) and raw[j] in digits and j < i + 8:
                    j += 1
                code = int(raw[i + 2 if nxt == "x" else i + 1:j] or "0", base)
                # a code point only (no surrogates): the text must encode again as UTF-8
                cur.append(chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd")
                i = j
                continue
            i += 1                                    # an unknown escape: the character itself
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append("".join(cur).strip())
            cur, is_list = [], True
        else:
            cur.append(ch)
        i += 1
    items.append("".join(cur) if not is_list else "".join(cur).strip())
    return items, is_list


def _escape(text: str) -> str:
    """Text as QSettings writes it, so QSettings (an older QKV Lab) reads the same string back."""
    if text.startswith("@"):
        text = "@" + text                             # "@@..." reads back as "@..."
    out = []
    after_hex = False                                  # a hex digit after "\\x.." must be escaped too
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(ch)])
        elif code < 0x20 or code == 0x7F or (after_hex and ch in "0123456789abcdefABCDEF"):
            out.append(f"\\x{code:x}")
            after_hex = True
            continue
        else:
            out.append(ch)
        after_hex = False
    body = "".join(out)
    if any(c in text for c in ";,=#") or text != text.strip() or not text:
        body = f'"{body}"'
    return body


def parse_ini(text: str, source: str = "settings") -> tuple[dict[str, str], list[str], bool]:
    """Plain string values by "group/key" from INI text, the problems met (in words), and whether
    the text looks like something else than a preferences file (lines that are not INI).
    Nothing in the text is ever turned into anything but a string."""
    values: dict[str, str] = {}
    problems: list[str] = []
    foreign = False
    section = ""
    # Lines end at \n or \r only, as QSettings reads them (str.splitlines also breaks at U+0085 and
    # U+2028, which may stand unescaped inside a value).
    for number, line in enumerate(re.split(r"\r\n|\n|\r", text), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in ";#":
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
            section = "" if section.lower() == "general" else section
            continue
        key, sep, raw = stripped.partition("=")
        key = key.strip().replace("\\", "/")
        if not sep or not key:
            problems.append(f"{source}, line {number}: not a 'key=value' line; ignored")
            foreign = True
            continue
        full = f"{section}/{key}" if section else key
        items, is_list = _unescape(raw.strip())
        if is_list:
            problems.append(f"{source}: {full} is a list, not plain text; ignored")
            continue
        value = items[0]
        if value.startswith("@@"):
            value = value[1:]
        elif value.startswith("@String(") and value.endswith(")"):   # QSettings' form for odd text
            value = value[len("@String("):-1]
        elif value.startswith(_QT_TYPED):
            kind = value[1:value.index("(")]
            problems.append(f"{source}: {full} holds a Qt {kind} value, not plain text; ignored "
                            "(@Variant values can carry Python objects that run code when read)")
            continue
        values[full] = value
    return values, problems, foreign


def format_ini(values: dict[str, Plain]) -> str:
    groups: dict[str, list[tuple[str, Plain]]] = {}
    for key in sorted(values):
        group, _, name = key.rpartition("/")
        groups.setdefault(group, []).append((name if group else key, values[key]))
    lines: list[str] = []
    for group in sorted(groups, key=lambda g: (g != "", g)):
        if lines:
            lines.append("")
        lines.append(f"[{group or 'General'}]")
        for name, value in groups[group]:
            text = ("true" if value else "false") if isinstance(value, bool) else \
                repr(value) if isinstance(value, (int, float)) else _escape(value)
            lines.append(f"{name.replace('/', chr(92))}={text}")
    return "\n".join(lines) + "\n"


# -- stores -----------------------------------------------------------------------------------------------
class MemoryStore:
    """Plain values in a dict (nothing persists). The methods are QSettings' names, so a store can
    be swapped without touching callers."""

    def __init__(self):
        self._data: dict[str, Plain] = {}
        self.problems: list[str] = []

    def value(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def setValue(self, key: str, value: Any) -> None:  # noqa: N802 - QSettings' name
        value = _check_plain(key, value)
        if self._data.get(key) != value or type(self._data.get(key)) is not type(value):
            self._data[key] = value
            self._changed()

    def remove(self, key: str) -> None:
        if self._data.pop(key, None) is not None:
            self._changed()

    def sync(self) -> None:
        pass

    def fileName(self) -> str:  # noqa: N802 - QSettings' name
        return ""

    def _changed(self) -> None:
        pass


class IniStore(MemoryStore):
    """An INI file of plain values, rewritten through the project's one writer on every change
    (the file is a few kB: a crash or a full disk never leaves it half written)."""

    def __init__(self, path: str | os.PathLike):
        super().__init__()
        self.path = Path(path).expanduser()
        self.read_only = False          # a file that is not ours is never overwritten
        try:
            text = safe_io.read_text(self.path, MAX_BYTES)
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError) as exc:
            reason = safe_io.describe(exc) if isinstance(exc, OSError) else "it is not UTF-8 text"
            self._problem(f"cannot read the preferences {str(self.path)!r} ({reason}): using defaults, "
                          "and the file is left as it is")
            text, self.read_only = "", True
        values, problems, foreign = parse_ini(text, str(self.path))
        for problem in problems:
            self._problem(problem)
        if foreign:
            self._problem(f"{str(self.path)!r} does not look like a preferences file: it is read, never written")
            self.read_only = True
        self._data.update(values)

    def _problem(self, text: str) -> None:
        self.problems.append(text)
        log.warning("qkv-lab: %s", text)

    def _changed(self) -> None:
        if self.read_only:
            return
        try:
            # A fresh account has no ~/.config/QKV Lab/ yet: the writer refuses a missing folder
            # (for exports a typo), so the preferences' own folder is made here, private.
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            self._problem(f"could not keep the preferences: cannot make the folder {str(self.path.parent)!r} "
                          f"({safe_io.describe(exc)})")
            return
        try:
            safe_io.write_file(self.path, format_ini(self._data), check="text")
        except safe_io.FileError as exc:               # preferences must never break the lab
            self._problem(f"could not keep the preferences: {exc}")

    def sync(self) -> None:
        self._changed()

    def fileName(self) -> str:  # noqa: N802 - QSettings' name
        return str(self.path)


def default_path() -> Path:
    """Where QSettings("QKV Lab", "QKV Lab") kept preferences on Linux (so they carry over), and
    the same layout under the platform's configuration folder elsewhere."""
    from PySide6.QtCore import QStandardPaths

    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(base or Path.home() / ".config") / "QKV Lab" / "QKV Lab.conf"


# -- typed preferences --------------------------------------------------------------------------------
class Settings:
    """Typed preferences. Every getter survives a missing or hand-broken value (default back)."""

    def __init__(self, store: MemoryStore | None = None):
        self.store = store if store is not None else MemoryStore()

    @property
    def problems(self) -> list[str]:
        """What was ignored when the preferences were read (shown as warnings)."""
        return list(getattr(self.store, "problems", []))

    # -- which store ----------------------------------------------------------------------------
    @classmethod
    def at(cls, path: str | os.PathLike) -> Settings:
        """An INI file of its own (tests, QKV_LAB_SETTINGS)."""
        return cls(IniStore(path))

    @classmethod
    def user(cls) -> Settings:
        """The user's store (QKV_LAB_SETTINGS overrides it). Only main.py calls this."""
        path = os.environ.get(ENV_VAR)
        return cls.at(path if path else default_path())

    @classmethod
    def memory(cls) -> Settings:
        return cls(MemoryStore())

    # -- raw access ----------------------------------------------------------------------------
    def get(self, key: str, default: Any = None, kind: type | None = None) -> Any:
        """The value of `key` as `kind` (the schema's type for a known key), or `default` when it
        is missing or does not convert."""
        kind = kind or SCHEMA.get(key)
        value = self.store.value(key, default)
        if kind is None or value is None:
            return value
        if kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            return True if text in ("1", "true", "yes", "on") else False if text in ("0", "false", "no", "off") \
                else default
        if kind is str:
            return value if isinstance(value, str) else str(value)
        try:
            number = kind(value)
        except (TypeError, ValueError, OverflowError):
            return default
        return number if not isinstance(number, float) or math.isfinite(number) else default

    def set(self, key: str, value: Plain) -> None:
        """Store a plain value (text, number, true/false); anything else is a TypeError."""
        kind = SCHEMA.get(key)
        if kind is not None and not isinstance(value, kind):
            raise TypeError(f"settings key {key!r} holds {kind.__name__}, not {type(value).__name__}")
        self.store.setValue(key, value)

    def sync(self) -> None:
        self.store.sync()

    # -- typed preferences -------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        value = self.get("appearance/theme", "light")
        return value if value in ("light", "dark") else "light"

    @theme.setter
    def theme(self, value: str) -> None:
        self.set("appearance/theme", str(value))

    @property
    def language(self) -> str:
        """The window's language as chosen in View ▸ Language: "en", "sv", "id", or "" to follow
        the system (also for a value this version does not know)."""
        value = self.get("appearance/language", "")
        return value if value in LANGUAGE_CHOICES else ""

    @language.setter
    def language(self, value: str) -> None:
        if value not in LANGUAGE_CHOICES:
            raise ValueError(f"language {value!r}: choose one of {', '.join(map(repr, LANGUAGE_CHOICES))}")
        self.set("appearance/language", value)

    def recent_files(self) -> list[str]:
        raw = self.get("sessions/recent", "[]")
        try:
            items = json.loads(raw)
        except (TypeError, ValueError, RecursionError):
            return []
        if not isinstance(items, list):                 # a hand-edited value: ignore it
            return []
        return [p for p in items if isinstance(p, str) and p][:RECENT_MAX]

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
        return self.get("sessions/restore_last", True)

    @restore_last.setter
    def restore_last(self, on: bool) -> None:
        self.set("sessions/restore_last", bool(on))

    def export_defaults(self) -> dict[str, Any]:
        raw = self.get("export/defaults", "{}")
        try:
            value = json.loads(raw)
        except (TypeError, ValueError, RecursionError):
            value = {}
        return value if isinstance(value, dict) else {}

    def set_export_defaults(self, values: dict[str, Any]) -> None:
        self.set("export/defaults", json.dumps(values))

    @property
    def last_folder(self) -> str:
        return self.get("files/last_folder", "") or ""

    @last_folder.setter
    def last_folder(self, folder: str) -> None:
        self.set("files/last_folder", str(folder))
