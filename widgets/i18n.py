"""Window text through Qt's translation system.

`tr("text")` marks a string for `pyside6-lupdate` (which files it under the context "") and looks
it up in the installed translator (app/language.py installs assets/i18n/qkv_lab_<language>.ts,
compiled by `pyside6-lrelease`). `tr("%n token(s)", "", n)` takes Qt's plural forms (numerus): two
in Swedish, one in Indonesian; English, the source language, gets its own by the rule below.
Tables outside widgets mark their texts with `QT_TRANSLATE_NOOP(context, text)` (compute/i18n.py,
no Qt there) and are translated where they are shown: `translate(context, text)`.

Rules (tests/app/test_i18n.py checks them): the first argument of tr() is a plain string literal,
never an f-string or a variable (lupdate reads the source, the runtime the value; values go in
with `.format` after the lookup); names of intermediates and weights (`attn_scores`, `W_Q`,
`ln1_out`) stay as they are in every language: they are the API; only the words around them are
translated (docs/glossary.md).

Numbers a person reads may use the language's decimal comma (`num`); data written for programs
(CSV, NPZ, sessions) is made inside `source_text()`, where every lookup returns the English source.
"""
from __future__ import annotations

import numbers
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QCoreApplication, QEvent

from compute.i18n import QT_TR_NOOP, QT_TRANSLATE_NOOP, Message, Number

CONTEXT = ""                  # the context lupdate gives a bare tr() call
LANGUAGES = ("en", "sv", "id")

_language = "en"              # the language installed now (app/language.py sets it)
_source = threading.local()   # inside source_text(): English source text on this thread
_PLURAL = re.compile(r"\((s|es)\)")


def language() -> str:
    """The language the window shows now: "en", "sv" or "id"."""
    return "en" if getattr(_source, "depth", 0) else _language


def set_language(code: str) -> None:
    """Called by app/language.py once its translators are installed."""
    global _language
    _language = code if code in LANGUAGES else "en"


@contextmanager
def source_text() -> Iterator[None]:
    """English source text (and plain decimal points) for everything made inside, whatever the
    language: the labels of exported data, which programs read."""
    _source.depth = getattr(_source, "depth", 0) + 1
    try:
        yield
    finally:
        _source.depth -= 1


def _english_plural(text: str, n: int) -> str:
    """English numerus without a translator: "%n token(s)" -> "1 token", "5 tokens"."""
    return _PLURAL.sub("" if n == 1 else r"\1", text.replace("%n", str(n)))


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """`text` of `context` in the installed language (the source text where it has none)."""
    if not text:
        return text
    if getattr(_source, "depth", 0):
        return _english_plural(text, n) if n >= 0 else text
    out = QCoreApplication.translate(context, text, disambiguation, n)
    if n >= 0 and out == text.replace("%n", str(n)):
        return _english_plural(text, n)               # not translated: English's own plural
    return out


def tr(text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """Translate window text (context ""). With `n`, "%n" is the count and the plural form follows it."""
    return translate(CONTEXT, text, disambiguation, n)


class Retranslate:
    """Mixin for a QWidget (first in the bases): `retranslate()` runs on every LanguageChange, the
    event Qt sends when a translator is installed or removed (app/language.py). A widget sets its
    texts in `retranslate()` and calls it once at the end of `__init__`."""

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        pass


# -- numbers ---------------------------------------------------------------------------------------------
# Decimal and thousands separators a reader of each language expects (Swedish: 1 024,5; Indonesian
# 1.024,5). Python's own formatting (f"{x:,.2f}") is English; `num` swaps the two marks.
_SEPARATORS = {"sv": str.maketrans({",": "\u00a0", ".": ","}), "id": str.maketrans({",": ".", ".": ","})}


def localise_number(text: str) -> str:
    """A number formatted by Python (English separators) in the reader's separators."""
    table = _SEPARATORS.get(language())
    return text.translate(table) if table else text


def num(value, spec: str = "") -> str:
    """`format(value, spec)` with the language's decimal comma and thousands separator."""
    return localise_number(format(value, spec))


# -- tables of other layers ---------------------------------------------------------------------------
def message(msg: Message | str) -> str:
    """A compute Message (marked template + values) in the window's language."""
    if isinstance(msg, Message):
        return tr(msg.template).format(**{k: _value(v) for k, v in msg.values.items()})
    return str(msg)


def _value(value) -> str:
    """A Message's value as the reader writes it (compute.i18n.english_value in English)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return num(int(value), ",")
    if isinstance(value, Number):
        return num(value.value, value.spec)
    if isinstance(value, Message):
        return message(value)
    if isinstance(value, (list, tuple)):
        return "; ".join(_value(v) for v in value)
    return str(value)


def error_text(exc: BaseException) -> str:
    """An error of compute/ (ConfigError, VocabularyError) in the window's language; other
    exceptions as they are (their text is English: file system and library messages)."""
    from compute import ConfigError, VocabularyError, WeightsError

    if isinstance(exc, WeightsError) and exc.problems and all(isinstance(p, Message) for p in exc.problems):
        return f"{exc.source}: " + "; ".join(message(p) for p in exc.problems)     # the lab's own words
    if isinstance(exc, ConfigError) and exc.message is not None:
        return f"{exc.field}={exc.shown_value}: {message(exc.message)}"
    if isinstance(exc, VocabularyError):
        words = ", ".join(repr(w) for w in exc.unknown)
        return tr("not in the vocabulary: {words}. The {n} words are: {vocab}").format(
            words=words, n=len(exc.vocab), vocab=" ".join(exc.vocab))
    return str(exc)


def page_title(key: str) -> str:
    """A station's or instrument page's title (compute/stations.py), translated."""
    from compute.stations import PAGE

    return translate("Page", PAGE[key].title) if key in PAGE else key


def page_short(key: str) -> str:
    """A page's short name for the station bar, translated."""
    from compute.stations import PAGE

    return translate("PageShort", PAGE[key].short) if key in PAGE else key


__all__ = ["CONTEXT", "LANGUAGES", "QT_TRANSLATE_NOOP", "QT_TR_NOOP", "Retranslate", "error_text", "language",
           "localise_number", "message", "num", "page_short", "page_title", "set_language", "source_text", "tr",
           "translate"]
