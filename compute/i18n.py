"""Markers for text the window translates, in a package that never imports Qt.

`QT_TRANSLATE_NOOP("Page", "Scores")` returns its text unchanged; `pyside6-lupdate` finds the call
by its name and puts ("Page", "Scores") in the .ts files, and the UI translates the text where it
shows it (widgets.i18n.translate). compute/ keeps English source text: its API, its errors' `str()`
and the CLI stay as they were; only what a window shows goes through a translator.

A message with values (`ConfigError`, compute/config.py) is a `Message`: the English text as a
str, which also keeps its marked template and values, so the UI can translate the template and
fill it in.
"""
from __future__ import annotations

import numbers
from typing import Any


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate knows
    """Mark `text` for translation in `context`; returns it unchanged."""
    return text


def QT_TR_NOOP(text: str) -> str:  # noqa: N802 - the name lupdate knows
    """Mark `text` for translation in the window's general context (""); returns it unchanged."""
    return text


class Message(str):
    """English text that remembers the template marked for translation and the values it was
    filled with, so a window can say it in its own language (widgets.i18n.message). It is a str:
    every caller that compares, searches or prints it gets the English text, as before. Whole
    numbers are written with thousands separators (a window uses its language's).

        Message(QT_TR_NOOP("is above the limit of {limit}"), limit=65536)   # "is above the limit of 65,536"
    """

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any):
        text = template.format(**{k: english_value(v) for k, v in values.items()}) if values else template
        self = super().__new__(cls, text)
        self.template, self.values = template, values
        return self

    def __repr__(self) -> str:
        return f"Message({self.template!r}, **{self.values!r})"


class Number:
    """A number and its format spec in a Message (`Number(2.345, ".2f")`): "2.35" in English, with
    the reader's decimal comma in a window that speaks Swedish or Indonesian."""

    __slots__ = ("spec", "value")

    def __init__(self, value: float, spec: str = ""):
        self.value, self.spec = value, spec

    def __str__(self) -> str:
        return format(self.value, self.spec)

    def __eq__(self, other) -> bool:
        return isinstance(other, Number) and (self.value, self.spec) == (other.value, other.spec)

    __hash__ = None


def english_value(value: Any) -> str:
    """How a Message writes a value in English: 65,536 for a whole number; the parts of a list or
    tuple joined by "; "; anything else (a Number, a nested Message, text) as its str()."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    if isinstance(value, (list, tuple)):
        return "; ".join(english_value(v) for v in value)
    return str(value)


__all__ = ["Message", "Number", "QT_TRANSLATE_NOOP", "QT_TR_NOOP", "english_value"]
