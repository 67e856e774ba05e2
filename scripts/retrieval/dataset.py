"""Writes a tool-discovery set in the format of `tests/fixtures/retrieval/README.md`:
`NAME.catalog.json` ({"SERVER": [tool, ...]}) and `NAME.queries.jsonl` (one
{"id", "query", "group", "gold"} a line). Shared by the convert_*.py scripts."""

import json


def write_set(out, name, catalog, lines):
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.catalog.json").write_text(
        json.dumps(catalog, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    with open(out / f"{name}.queries.jsonl", "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
