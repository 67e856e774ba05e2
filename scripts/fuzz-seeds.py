#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into OUT/<target>/ (scripts/fuzz.sh calls it).

Seeds come from the official fixtures (tests/fixtures/toon-spec, and ../shared/toon-spec with
its examples when it is there), our own fixtures (spec-fixtures), the data sets
(tests/fixtures/datasets, ../shared/datasets) and the MCP captures (tests/fixtures/mcp,
../shared/mcp). Nothing is committed: the corpora are made again on each run, the same bytes
every time. Texts longer than MAX bytes are cut (TOON at a line boundary; JSON by keeping the
first elements of long arrays) so that the fuzzer mutates inputs it can run fast.

TOON targets read a first byte of options (fuzz/src/checks/input.rs): a fixture's own
strictness and indent are written there; `json` takes the text alone; `wire` a first byte
(how to cut the stream) and JSON-RPC lines.
"""

import hashlib
import json
import sys
from pathlib import Path

MAX = 16 * 1024
ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TOON_TARGETS = ["decode_bytes", "typed_decode", "validate", "events", "parser"]


def flags(strict=True, indent=2):
    """The options byte: bit 0 non-strict, bits 1-2 the indent less one."""
    return bytes([(0 if strict else 1) | (((indent - 1) & 3) << 1)])


def head(text):
    """At most MAX bytes of TOON text, cut after a whole line."""
    data = text.encode()
    if len(data) <= MAX:
        return data
    cut = data.rfind(b"\n", 0, MAX)
    return data[: cut if cut > 0 else MAX]


def shrink(value, depth=0):
    """A JSON value with long arrays and objects cut to their first few members."""
    if isinstance(value, list):
        return [shrink(v, depth + 1) for v in value[:4]]
    if isinstance(value, dict):
        return {k: shrink(v, depth + 1) for k, v in list(value.items())[:12]}
    return value


def compact(value):
    """JSON text of at most MAX bytes: the value itself, else it shrunk."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text.encode()) > MAX:
        text = json.dumps(shrink(value), ensure_ascii=False)
    return text.encode()[:MAX]


def fixture_dirs():
    dirs = [ROOT / "tests/fixtures/toon-spec", ROOT / "spec-fixtures"]
    shared = SHARED / "toon-spec/tests/fixtures"
    if shared.is_dir():
        dirs.append(shared)
    return dirs


def fixtures():
    """(TOON seeds, JSON seeds) from the conformance fixtures."""
    toon, js = [], []
    for base in fixture_dirs():
        for path in sorted(base.glob("decode/*.json")):
            for case in json.loads(path.read_text())["tests"]:
                opts = case.get("options") or {}
                strict = opts.get("strict", True)
                indent = opts.get("indentSize", 2)
                toon.append(flags(strict, indent) + head(case["input"]))
                if not case.get("shouldError"):
                    js.append(compact(case.get("expected")))
        for path in sorted(base.glob("encode/*.json")):
            for case in json.loads(path.read_text())["tests"]:
                js.append(compact(case["input"]))
                if isinstance(case.get("expected"), str):
                    indent = (case.get("options") or {}).get("indent", 2)
                    toon.append(flags(True, indent if 1 <= indent <= 4 else 2) + head(case["expected"]))
    return toon, js


def data_sets():
    """(TOON seeds, JSON seeds) from the data sets and the spec's examples."""
    toon, js = [], []
    dirs = [ROOT / "tests/fixtures/datasets", SHARED / "datasets", SHARED / "toon-spec/examples"]
    for base in dirs:
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.toon")):
            toon.append(flags() + head(path.read_text()))
        for path in sorted(base.rglob("*.json")):
            js.append(compact(json.loads(path.read_text())))
    return toon, js


def captures():
    """(JSON seeds, wire seeds) from the MCP captures: each tool list and result as JSON,
    and as the lines a server and a client exchange for it."""
    js, wire = [], []
    dirs = [ROOT / "tests/fixtures/mcp", SHARED / "mcp"]
    n = 0
    for base in dirs:
        if not base.is_dir():
            continue
        for path in sorted(base.glob("lists/*.json")):
            listed = json.loads(path.read_text())
            js.append(compact(listed))
            for tool in listed["tools"][:8]:
                n += 1
                request = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                           "params": {"name": tool["name"], "arguments": {},
                                      "_meta": {"progressToken": f"p{n}"}}}
                response = {"jsonrpc": "2.0", "id": n, "result": {"tools": [tool]}}
                wire.append(b"\x02" + compact(request) + b"\n" + compact(response) + b"\n")
        for path in sorted(base.glob("results/*.jsonl")):
            for line in path.read_text().splitlines():
                call = json.loads(line)
                js.append(compact(call))
                n += 1
                request = {"jsonrpc": "2.0", "id": f"r-{n}", "method": "tools/call",
                           "params": {"name": call["call"], "arguments": {}}}
                progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": n, "progress": 1, "total": 2}}
                response = {"jsonrpc": "2.0", "id": f"r-{n}", "result": call["result"]}
                lines = [compact(request), compact(progress), compact(response)]
                wire.append(b"\xc2" + b"\r\n".join(lines) + b"\r\n")
        if (base / "cfn-quicksight-dashboard.json").is_file():
            js.append(compact(json.loads((base / "cfn-quicksight-dashboard.json").read_text())))
    return js, wire


def write(out, target, seeds):
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    names = set()
    for seed in seeds:
        name = hashlib.sha1(seed).hexdigest()
        if name not in names:
            names.add(name)
            (folder / name).write_bytes(seed)
    return len(names)


def main():
    out = Path(sys.argv[1])
    toon, js = fixtures()
    more_toon, more_js = data_sets()
    cap_js, wire = captures()
    toon += more_toon
    js += more_js + cap_js
    counts = {t: write(out, t, toon) for t in TOON_TARGETS}
    counts["json"] = write(out, "json", js)
    counts["wire"] = write(out, "wire", wire)
    counts["roundtrip"] = write(out, "roundtrip", [])
    print(" ".join(f"{t}:{n}" for t, n in counts.items()))


if __name__ == "__main__":
    main()
