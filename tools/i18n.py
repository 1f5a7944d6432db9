"""The translations' tool chain: Qt's own (pyside6-lupdate, pyside6-lrelease), with the options
this project uses, so the .ts files come out the same wherever it runs.

    python tools/i18n.py update        # collect the marked strings into assets/i18n/qkv_lab_{sv,id}.ts
    python tools/i18n.py check         # fail if a .ts is out of date, or a string is unfinished
    python tools/i18n.py release DIR   # compile the .ts files to DIR/qkv_lab_<lang>.qm (the app
                                       # compiles them itself, into its cache: app/language.py)

`update` keeps every translation already made; a new or changed source string arrives as
"unfinished" for a translator (Qt Linguist: `pyside6-linguist assets/i18n/qkv_lab_sv.ts`), a
string that left the code is dropped. The .ts files carry no line numbers (`-locations none`), so
they change only when a string does. tests/app/test_i18n.py runs `check`.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS_DIR = ROOT / "assets" / "i18n"
LANGUAGES = {"sv": "sv_SE", "id": "id_ID"}       # the translated ones (English is the source)
SOURCES = ("main.py", "app", "widgets", "compute")
OPTIONS = ("-extensions", "py", "-locations", "none", "-no-obsolete", "-source-language", "en",
           "-tr-function-alias", "tr+=_t")    # widgets/pages/instrument_views.py: _t(template, **values) is tr


def tool(name: str) -> list[str]:
    """pyside6-lupdate / pyside6-lrelease: the binaries inside the PySide6 package."""
    import PySide6

    exe = Path(PySide6.__file__).resolve().parent / (f"{name}.exe" if os.name == "nt" else name)
    if exe.is_file():
        return [str(exe)]
    script = shutil.which(f"pyside6-{name}")
    if script is None:
        sys.exit(f"pyside6-{name} not found: install PySide6-Essentials (requirements.txt)")
    return [script]


def ts_path(lang: str, folder: Path = TS_DIR) -> Path:
    return folder / f"qkv_lab_{lang}.ts"


def lupdate(targets: dict[str, Path]) -> None:
    """Run pyside6-lupdate over the sources into each language's .ts file (created if missing)."""
    for lang, ts in targets.items():
        done = subprocess.run([*tool("lupdate"), *OPTIONS, "-target-language", LANGUAGES[lang], "-silent",
                               *SOURCES, "-ts", str(ts)], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"pyside6-lupdate failed for {ts.name}:\n{done.stdout}{done.stderr}")


def messages(ts: Path) -> list[dict]:
    """The messages of a .ts file: context, source, comment, numerus, translation forms, type."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for msg in context.iter("message"):
            tr = msg.find("translation")
            forms = [f.text or "" for f in tr.iter("numerusform")] if msg.get("numerus") == "yes" else [tr.text or ""]
            out.append({"context": name, "source": msg.findtext("source") or "", "comment": msg.findtext("comment"),
                        "numerus": msg.get("numerus") == "yes", "forms": forms, "type": tr.get("type", "")})
    return out


PLACEHOLDER = re.compile(r"\{[^{}]*\}|%n")
PLURAL_FORMS = {"sv": 2, "id": 1}                  # Swedish: singular and plural; Indonesian: one form


def problems(folder: Path = TS_DIR) -> list[str]:
    """Why the .ts files in `folder` are not ready: out of date with the code (pyside6-lupdate run
    over the sources into a temporary copy changes them), a string unfinished or untranslated, a
    translation that drops or adds a {placeholder} or %n, or the wrong number of plural forms."""
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = {lang: ts_path(lang, Path(tmp)) for lang in LANGUAGES}
        for lang, ts in fresh.items():
            if ts_path(lang, folder).is_file():
                shutil.copy(ts_path(lang, folder), ts)
        lupdate(fresh)
        for lang, ts in fresh.items():
            kept = ts_path(lang, folder)
            if not kept.is_file():
                found.append(f"{kept.name} is missing: run python tools/i18n.py update")
                continue
            if ts.read_bytes() != kept.read_bytes():
                found.append(f"{kept.name} is out of date with the code: run python tools/i18n.py update, then "
                             "translate what is new")
            for m in messages(ts):
                where = f"{kept.name}: [{m['context'] or 'general'}] {m['source']!r}"
                if m["type"] in ("unfinished", "vanished", "obsolete"):
                    found.append(f"{where} is {m['type']}")
                    continue
                if not all(form.strip() for form in m["forms"]):
                    found.append(f"{where} has an empty translation")
                if m["numerus"] and len(m["forms"]) != PLURAL_FORMS[lang]:
                    found.append(f"{where} has {len(m['forms'])} plural forms, {lang} has {PLURAL_FORMS[lang]}")
                wanted = sorted(set(PLACEHOLDER.findall(m["source"])))
                for form in m["forms"]:
                    if form.strip() and sorted(set(PLACEHOLDER.findall(form))) != wanted:
                        found.append(f"{where}: the translation {form!r} does not keep the placeholders {wanted}")
    return found


def release(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for lang in LANGUAGES:
        qm = folder / f"qkv_lab_{lang}.qm"
        subprocess.run([*tool("lrelease"), "-silent", str(ts_path(lang)), "-qm", str(qm)], check=True)
        out.append(qm)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/i18n.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="collect the marked strings into the .ts files")
    sub.add_parser("check", help="fail if a .ts file is out of date or a string is unfinished")
    rel = sub.add_parser("release", help="compile the .ts files to .qm files in a folder")
    rel.add_argument("folder", type=Path)
    args = ap.parse_args(argv)
    if args.command == "update":
        lupdate({lang: ts_path(lang) for lang in LANGUAGES})
        for lang in LANGUAGES:
            ms = messages(ts_path(lang))
            todo = sum(m["type"] == "unfinished" for m in ms)
            print(f"{ts_path(lang).relative_to(ROOT)}: {len(ms)} strings, {todo} to translate")
        return 0
    if args.command == "check":
        found = problems()
        print("\n".join(found) or "the translations are complete and up to date")
        return 1 if found else 0
    for qm in release(args.folder):
        print(f"wrote {qm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
