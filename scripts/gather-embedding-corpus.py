#!/usr/bin/env python3
"""Gathers the text corpus `scripts/tokenlearn-embeddings.py` fits the static embedding table on:
short English texts about software, none of them from the retrieval evaluation sets
(/work/sets, ../shared/retrieval, tests/fixtures/retrieval are never read).

    python3 scripts/gather-embedding-corpus.py --out target/embedding-corpus.tsv

Sources (all local once the machine's Debian package lists are present; recorded per line):
- `deb`:  the one-line Description (synopsis) of every package `apt-cache dumpavail` lists
          (Debian bookworm + its updates/security, plus whatever other apt sources are set up);
- `man`:  the NAME line of every page under /usr/share/man/man{1,5,8} ("ls - list directory
          contents" -> "list directory contents");
- `py`:   the first sentence of the docstring of every public module, class and function of the
          Python standard library modules this interpreter can import without side effects;
- `req`:  request-like text: a synopsis of `deb`/`man` (every third one, in sorted order) put
          into one of a fixed set of request templates ("Can you help me ...", "I need a tool
          to ...") picked by a hash of the text, so that chatty request words are seen too.
Texts are normalised (whitespace collapsed), deduplicated case-insensitively, kept if they have
3-40 words, and written sorted by (source, text): the output is deterministic for the same
package lists, man pages and Python version (the script prints their counts and a sha256).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

TEMPLATES = [
    "Can you help me {x}?",
    "I need a tool to {x}.",
    "Is there something that can {x}?",
    "I want to {x}.",
    "Please {x}.",
    "How do I {x}?",
    "Find me a tool for {y}.",
    "I'm looking for {y}.",
    "Do you have anything for {y}?",
    "Show me options for {y}.",
]


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def debian() -> list[str]:
    out = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    return [clean(m) for m in re.findall(r"^Description: (.*)$", out, flags=re.M)]


def man_names() -> list[str]:
    texts = []
    for section in ("man1", "man5", "man8"):
        for page in sorted(Path("/usr/share/man", section).glob("*.gz")):
            try:
                src = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
            except (OSError, EOFError):
                continue
            m = re.search(r"^\.S[Hh] \"?NAME\"?\s*\n(.*?)(?=^\.S[Hh] )", src, flags=re.M | re.S)
            if not m:
                continue
            body = " ".join(l for l in m.group(1).splitlines() if not l.startswith(".") or l.startswith(".Nd"))
            body = re.sub(r"\\f[BIRP]|\\\(em|\\\(en|\\&|^\.Nd", "", body)
            body = body.replace("\\-", "-").replace("\\", "")
            if " - " in body:
                texts.append(clean(body.split(" - ", 1)[1]))
    return texts


def stdlib_docs() -> list[str]:
    texts = []
    names = sorted(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in {
        "antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "ensurepip", "venv",
        "lib2to3", "pydoc_data", "test", "xxlimited", "msilib", "winreg", "winsound", "_msi"})
    warnings.simplefilter("ignore")
    for name in names:
        try:
            mod = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - platform-specific modules
            continue
        objs = [mod] + [v for k, v in sorted(vars(mod).items()) if not k.startswith("_")
                        and (inspect.isclass(v) or inspect.isfunction(v) or inspect.isbuiltin(v))]
        for obj in objs:
            doc = inspect.getdoc(obj) or ""
            para = clean(doc.split("\n\n")[0])
            first = re.split(r"(?<=[.!?])\s", para)[0]
            if first and not re.match(r"^[\w.]+\(", first):
                texts.append(first)
    return texts


def request(text: str, verb: bool) -> str:
    """Man page NAME lines mostly start with a verb ("list directory contents"), Debian
    synopses with a noun phrase: each gets the templates its grammar fits."""
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    pool = [t for t in TEMPLATES if ("{x}" in t) == verb]
    t = pool[h % len(pool)]
    x = text.rstrip(".")
    return t.format(x=x[0].lower() + x[1:], y=x[0].lower() + x[1:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("target/embedding-corpus.tsv"))
    args = ap.parse_args()
    rows = [("deb", t) for t in debian()] + [("man", t) for t in man_names()] + [("py", t) for t in stdlib_docs()]
    seen, kept = set(), []
    for src, text in sorted(rows):
        n = len(text.split())
        if 3 <= n <= 40 and text.lower() not in seen:
            seen.add(text.lower())
            kept.append((src, text))
    synopses = [(s, t) for s, t in kept if s in ("deb", "man")]
    for s, t in synopses[::3]:
        r = request(t, s == "man")
        if r.lower() not in seen:
            seen.add(r.lower())
            kept.append(("req", r))
    kept.sort()
    data = "".join(f"{s}\t{t}\n" for s, t in kept).encode()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    counts = {s: sum(1 for k, _ in kept if k == s) for s in ("deb", "man", "py", "req")}
    print(f"{args.out}: {len(kept)} texts {counts}, {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
