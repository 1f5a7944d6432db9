"""The window's language: English (the source), Svenska or Bahasa Indonesia.

The translations are kept as Qt Linguist sources, `assets/i18n/qkv_lab_<language>.ts` (updated
from the code by `python tools/i18n.py update`, i.e. `pyside6-lupdate`). They are compiled with
`pyside6-lrelease` (part of PySide6-Essentials, which the app needs anyway) the first time a
language is used, into a cache folder, under a name that carries a hash of the .ts file: an edited
translation is compiled again at the next start, and an unchanged one never is. Nothing compiled
is kept in the repository, so a clean clone and a `pip install` (the .ts files are package data)
work alike, and a .qm can never be older than its source.

`install(code)` loads the app's translator and Qt's own (`qtbase_sv` for the standard dialogs and
buttons; Qt ships none for Indonesian, so those stay in English there), sets QLocale's default
(spin boxes, Qt's number formatting) and tells widgets.i18n. Installing a translator sends every
widget a LanguageChange event: each one sets its texts again (`retranslate()`), so View ▸ Language
switches the whole window without a restart.

The choice: `--lang` on the command line, else the preference (app/settings.py, "ui/language",
"" = follow the system), else QKV_LAB_LANGUAGE, else the system locale; English when none of
those is a language the lab has.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from widgets import i18n

LANGUAGES = i18n.LANGUAGES
# Each language's name in itself (a menu lists them so: a reader finds their own language).
NAMES = {"en": "English", "sv": "Svenska", "id": "Bahasa Indonesia"}
LOCALES = {"en": "en_US", "sv": "sv_SE", "id": "id_ID"}
ENV_VAR = "QKV_LAB_LANGUAGE"
CACHE_ENV = "QKV_LAB_CACHE_DIR"
TS_DIR = Path(__file__).resolve().parent.parent / "assets" / "i18n"

_installed: list[QTranslator] = []
_problems: list[str] = []


def ts_file(code: str) -> Path:
    return TS_DIR / f"qkv_lab_{code}.ts"


def code_of(name: str | None) -> str:
    """"sv_SE.UTF-8", "sv-SE", "SV" -> "sv"; "" for nothing."""
    return (name or "").replace("-", "_").split(".")[0].split("_")[0].strip().lower()


def system_language(environ=os.environ) -> str:
    """QKV_LAB_LANGUAGE, else the system locale's language, if the lab has it; else "en"."""
    for name in (environ.get(ENV_VAR), QLocale.system().name()):
        code = code_of(name)
        if code in LANGUAGES:
            return code
    return "en"


def resolve(choice: str | None, environ=os.environ) -> str:
    """A language code for a choice: "en" / "sv" / "id" as they are; "" or "system": the system's."""
    code = code_of(choice)
    return code if code in LANGUAGES else system_language(environ)


def cache_dir() -> Path:
    """Where compiled translations go: QKV_LAB_CACHE_DIR, else the platform's cache folder."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser() / "i18n"
    from PySide6.QtCore import QStandardPaths

    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericCacheLocation)
    return Path(base or Path.home() / ".cache") / "qkv-lab" / "i18n"


def lrelease_command() -> list[str]:
    """pyside6-lrelease: the binary inside the PySide6 package (what the pyside6-lrelease script runs)."""
    import PySide6

    exe = Path(PySide6.__file__).resolve().parent / ("lrelease.exe" if os.name == "nt" else "lrelease")
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from PySide6.scripts.pyside_tool import lrelease; "
            "sys.argv[0] = 'lrelease'; lrelease()"]


def compile_ts(ts: Path, qm: Path) -> None:
    """`pyside6-lrelease ts -qm qm`; RuntimeError with its output if it fails."""
    qm.parent.mkdir(parents=True, exist_ok=True)
    tmp = qm.with_name(f".{qm.name}.{os.getpid()}.tmp")
    try:
        done = subprocess.run([*lrelease_command(), "-silent", str(ts), "-qm", str(tmp)], capture_output=True,
                              text=True, timeout=120)
        if done.returncode != 0 or not tmp.is_file():
            raise RuntimeError(f"pyside6-lrelease failed on {ts.name}: {(done.stderr or done.stdout).strip()}")
        os.replace(tmp, qm)
    finally:
        tmp.unlink(missing_ok=True)


def compiled(code: str, folder: Path | None = None) -> Path | None:
    """The .qm of a language, compiled from its .ts if this version of it has not been yet; None
    for English (the source) or a language without a .ts. RuntimeError/OSError if it cannot be made."""
    ts = ts_file(code)
    if code == "en" or not ts.is_file():
        return None
    digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    qm = (folder or cache_dir()) / f"qkv_lab_{code}-{digest}.qm"
    if not qm.is_file():
        compile_ts(ts, qm)
    return qm


def problems() -> list[str]:
    """What went wrong while installing a language (shown as a warning; the window stays English)."""
    return list(_problems)


def current() -> str:
    return i18n.language()


def install(code: str, app=None) -> str:
    """Make `code` the window's language now (every widget retranslates itself); returns the
    language installed ("en" if its translation could not be loaded, with a problem recorded)."""
    app = app or QCoreApplication.instance()
    code = code if code in LANGUAGES else "en"
    del _problems[:]
    for old in _installed:
        app.removeTranslator(old)
    del _installed[:]
    loaded = "en"
    if code != "en":
        try:
            qm = compiled(code)
            translator = QTranslator(app)
            if qm is None or not translator.load(str(qm)):
                raise RuntimeError(f"no translation for {code!r} in {TS_DIR}")
            qt = QTranslator(app)                            # Qt's own: standard buttons and dialogs
            if qt.load(f"qtbase_{code}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
                _installed.append(qt)
            _installed.append(translator)
            loaded = code
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            _problems.append(f"the {NAMES.get(code, code)} translation could not be loaded ({exc}); "
                             "the window stays in English")
    locale = QLocale(LOCALES[loaded])
    locale.setNumberOptions(QLocale.NumberOption.OmitGroupSeparator)
    QLocale.setDefault(locale)
    i18n.set_language(loaded)
    # Qt posts a LanguageChange to every top-level widget when a translator is added or removed
    # (also the removal above, for English): the widgets retranslate once the event loop runs,
    # all of them with the language set here.
    for translator in _installed:
        app.installTranslator(translator)
    return loaded


__all__ = ["LANGUAGES", "NAMES", "cache_dir", "compiled", "current", "install", "problems", "resolve",
           "system_language"]
