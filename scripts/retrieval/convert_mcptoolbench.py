#!/usr/bin/env python3
"""Convert MCPToolBench++'s single-step tasks into the tool-discovery format of
tests/fixtures/retrieval/.

Source: github.com/mcp-tool-bench/MCPToolBenchPP @ 323725c417b43a02bea5a1421662e299dbadeb77
(no license file in the repository at that commit: see tests/fixtures/retrieval/README.md),
the four categories whose files are in the repository whole:
  data/browser/browser_0724_single_v3.json      187 tasks (playwright, puppeteer)
  data/file_system/filesystem_0723_single.json  241 tasks (filesystem)
  data/finance/finance_0724_single_v3.json       90 tasks (finance-agent-mcp-server)
  data/search/search_0725_single_v2.json        181 tasks (tavily-mcp, google-search)
(map and pay are not: their files are over the mirror's size limit.)

Usage: convert_mcptoolbench.py SOURCE_DIR OUT_DIR
  SOURCE_DIR holds the four files above at their repository paths; OUT_DIR gets
  mcptoolbench.catalog.json and mcptoolbench.queries.jsonl.

Catalog: each task lists its category's servers ("mcp_tools_dict": server -> tool names) and
the tools' definitions ("tools", input_schema renamed inputSchema); the catalog is the union,
servers and tools in order of first appearance: 6 servers, 49 tools. Server and tool names as
the source writes them.

Queries: the task's "query" whole, group = its category. Every task is a single call: one
need, met by the labelled tool ("function_call_label": name + mcp_server) or by any tool the
label lists as equivalent ("similar_tools", e.g. google-search::search for
tavily-mcp::tavily-search). A task whose labelled tool is not in the catalog is dropped
(reported on stderr; none are at this commit). Standard library only; deterministic.
"""

import json
import sys
from pathlib import Path

from dataset import write_set

NAME = "mcptoolbench"
FILES = [
    "data/browser/browser_0724_single_v3.json",
    "data/file_system/filesystem_0723_single.json",
    "data/finance/finance_0724_single_v3.json",
    "data/search/search_0725_single_v2.json",
]


def main(src, out):
    src, out = Path(src), Path(out)
    tasks = []
    for path in FILES:
        tasks.extend(json.loads((src / path).read_text(encoding="utf-8")))

    order = {}  # server -> tool names, first appearance
    defs = {}  # tool name -> definition (names are unique across these servers)
    for task in tasks:
        for server, names in task["mcp_tools_dict"].items():
            listed = order.setdefault(server, [])
            listed.extend(n for n in names if n not in listed)
        for tool in task["tools"]:
            d = {
                "name": tool["name"],
                "description": tool.get("description") or "",
                "inputSchema": tool.get("input_schema") or {"type": "object", "properties": {}},
            }
            if defs.setdefault(tool["name"], d) != d:
                sys.exit(f"two definitions of {tool['name']!r}")
    catalog = {}
    for server, names in order.items():
        missing = [n for n in names if n not in defs]
        if missing:
            sys.exit(f"{server}: no definition for {missing}")
        catalog[server] = [defs[n] for n in names]
    known = {f"{s}::{t['name']}" for s, ts in catalog.items() for t in ts}

    lines, dropped = [], 0
    for task in tasks:
        (label,) = task["function_call_label"]  # single-step tasks: one call each
        need = [f"{label['mcp_server']}::{label['name']}"]
        for alt in label.get("similar_tools") or []:
            key = f"{alt['mcp_server']}::{alt['name']}"
            if key in known and key not in need:
                need.append(key)
        if need[0] not in known:
            dropped += 1
            print(f"{task['uuid']}: no tool {need[0]!r} in the catalog", file=sys.stderr)
            continue
        lines.append({
            "id": f"{NAME}/{task['category']}/{task['uuid']}",
            "query": task["query"],
            "group": task["category"],
            "gold": [need],
        })

    write_set(out, NAME, catalog, lines)
    print(f"{NAME}: {len(catalog)} servers, {len(known)} tools, {len(lines)} queries "
          f"({dropped} of {len(tasks)} dropped)", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
