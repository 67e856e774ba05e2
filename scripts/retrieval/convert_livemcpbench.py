#!/usr/bin/env python3
"""Convert LiveMCPBench into the tool-discovery format of tests/fixtures/retrieval/.

Source: github.com/icip-cas/LiveMCPBench @ a928e57d1ee7a25579b9a7036030faffff72d15b
(Apache-2.0), the paper's LiveMCPTool catalog and its 95 annotated tasks:
  tools/LiveMCPTool/tools.json       70 MCP servers, 527 tools as the servers list them
  annotated_data/all_annotations.json  95 tasks: "Question" and the annotator's "Tools"

Usage: convert_livemcpbench.py SOURCE_DIR OUT_DIR
  SOURCE_DIR holds the two files above at their repository paths (a checkout, or
  `git archive` of that commit); OUT_DIR gets livemcpbench.catalog.json and
  livemcpbench.queries.jsonl.

Catalog: {"SERVER": [{"name", "description", "inputSchema"}, ...]}, servers and tools in the
source's order. SERVER is the server's own name (the key of the entry's "tools" object,
i.e. what the server reports), lowercased, each run of characters other than [a-z0-9_-]
made one "-" ("Ant Design Components" -> "ant-design-components"). Tool names unchanged.

Queries: the task's "Question" whole, group = its "category". The annotator's "Tools" is a
numbered list of tool names without servers; each distinct name is one need, met by any
server's tool of that name (several servers share "search", "read_file", ...). A name no
server in the catalog has is dropped from the task's needs (reported on stderr); a task left
with no need is dropped. Standard library only; output is deterministic.
"""

import json
import re
import sys
from pathlib import Path

from dataset import write_set

NAME = "livemcpbench"


def server_name(raw):
    return re.sub(r"[^a-z0-9_-]+", "-", raw.strip().lower()).strip("-")


def tool_def(tool):
    out = {"name": tool["name"], "description": tool.get("description") or ""}
    out["inputSchema"] = tool.get("inputSchema") or {"type": "object", "properties": {}}
    return out


def main(src, out):
    src, out = Path(src), Path(out)
    entries = json.loads((src / "tools/LiveMCPTool/tools.json").read_text(encoding="utf-8"))
    catalog = {}
    by_name = {}
    for entry in entries:
        for raw_server, listing in entry["tools"].items():
            server = server_name(raw_server)
            if server in catalog:
                sys.exit(f"two servers named {server!r}")
            catalog[server] = [tool_def(t) for t in listing["tools"]]
            for t in listing["tools"]:
                by_name.setdefault(t["name"], []).append(f"{server}::{t['name']}")

    tasks = json.loads((src / "annotated_data/all_annotations.json").read_text(encoding="utf-8"))
    lines, dropped_needs, dropped_tasks = [], 0, 0
    for task in tasks:
        meta = task["Annotator Metadata"]
        names = []
        for line in meta["Tools"].splitlines():
            name = re.sub(r"^\s*\d+\s*[.)]\s*", "", line).strip()
            if name and name not in names:
                names.append(name)
        gold = []
        for name in names:
            if name in by_name:
                gold.append(sorted(by_name[name]))
            else:
                dropped_needs += 1
                print(f"{task['task_id']}: no tool {name!r} in the catalog", file=sys.stderr)
        if not gold:
            dropped_tasks += 1
            print(f"{task['task_id']}: dropped, no need left", file=sys.stderr)
            continue
        lines.append({
            "id": f"{NAME}/{task['task_id']}",
            "query": task["Question"],
            "group": task["category"],
            "gold": gold,
        })

    write_set(out, NAME, catalog, lines)
    tools = sum(len(v) for v in catalog.values())
    print(f"{NAME}: {len(catalog)} servers, {tools} tools, {len(lines)} queries "
          f"({dropped_tasks} of {len(tasks)} tasks dropped, {dropped_needs} needs dropped)",
          file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
