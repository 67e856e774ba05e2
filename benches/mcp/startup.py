#!/usr/bin/env python3
"""Start-up of `toon mcp serve` in front of the eleven real servers of
`tool_list_tokens.py` (issue #60): the time from spawning the gateway to its `initialize`
answer, to its first `tools/list` answer, and until every server's tools are listed (the
first list, or the list after the `notifications/tools/list_changed` that brings the last
server), each server started alone for comparison.

    python3 benches/mcp/startup.py CACHE_DIR ROUNDS TOON [TOON...]

CACHE_DIR is what `benches/mcp/install-tool-list-servers.sh CACHE_DIR` printed. Rows:
- `eleven`: the eleven servers;
- `eleven + slow`: and a twelfth that answers `initialize` after 20 s;
- `eleven + stuck`: and a twelfth that never answers (the gateway gives up at
  `--startup-timeout`, 30 s by default).
Each TOON is run with its default start-up and, when ARGS is given in $STARTUP_ARGS (for
example `--startup-grace wait`), with those too. A TOON that has a catalog cache
(`--catalog-cache`) is run `cold` (an empty cache each round) and `cached` (the cache one
untimed run with every server up left behind); its default row is the cold one. The client is the wire itself (JSON-RPC lines over
stdio, revision 2025-11-25, roots declared as hosts do): what is timed is the gateway's
answers, not a client library. Medians over ROUNDS, in seconds; progress on stderr.
"""

import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

if len(sys.argv) < 4:
    raise SystemExit("usage: startup.py CACHE_DIR ROUNDS TOON [TOON...]")
CACHE = os.path.abspath(sys.argv[1])
ROUNDS = int(sys.argv[2])
TOONS = [os.path.abspath(t) for t in sys.argv[3:]]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SLOW = """import json, sys, time
delay = float(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        time.sleep(delay)
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "slow", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "slow_echo", "inputSchema": {"type": "object"}}]}
    else:
        r = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""


def servers(work):
    """The eleven servers of tool_list_tokens.py, as mcpServers entries."""
    npm = os.path.join(CACHE, "npm", "node_modules", ".bin")
    venv = os.path.join(CACHE, "venv", "bin")
    mcp1 = os.path.join(CACHE, "mcp1-venv", "bin")
    files = os.path.join(work, "files")
    os.makedirs(files, exist_ok=True)
    repo = os.path.join(work, "repo")
    if not os.path.isdir(repo):
        subprocess.run(["git", "init", "-q", repo], check=True)
    return {
        "everything": {"command": os.path.join(npm, "mcp-server-everything"), "args": ["stdio"]},
        "filesystem": {"command": os.path.join(npm, "mcp-server-filesystem"), "args": [files]},
        "memory": {"command": os.path.join(npm, "mcp-server-memory"),
                   "env": {"MEMORY_FILE_PATH": os.path.join(work, "memory.jsonl")}},
        "sequential-thinking": {"command": os.path.join(npm, "mcp-server-sequential-thinking")},
        "time": {"command": os.path.join(venv, "mcp-server-time"),
                 "args": ["--local-timezone", "UTC"]},
        "git": {"command": os.path.join(venv, "mcp-server-git"), "args": ["--repository", repo]},
        "fetch": {"command": os.path.join(venv, "mcp-server-fetch")},
        "sqlite": {"command": os.path.join(mcp1, "mcp-server-sqlite"),
                   "args": ["--db-path", os.path.join(work, "bench.db")]},
        "calculator": {"command": os.path.join(mcp1, "mcp-server-calculator")},
        "playwright": {"command": os.path.join(npm, "playwright-mcp"),
                       "args": ["--headless", "--browser", "chromium", "--executable-path",
                                CHROMIUM, "--isolated", "--no-sandbox"]},
        "chrome-devtools": {"command": os.path.join(npm, "chrome-devtools-mcp"),
                            "args": ["--headless", "--isolated", "--executablePath", CHROMIUM,
                                     "--no-usage-statistics"],
                            "env": {"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1"}},
    }


class Wire:
    """JSON-RPC lines to and from a child's stdio."""

    def __init__(self, argv, env=None):
        self.child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, env=env)
        self.buffer = b""
        self.notes = []

    def send(self, message):
        self.child.stdin.write((json.dumps(message) + "\n").encode())
        self.child.stdin.flush()

    def next(self, deadline):
        """The next message, or None at the deadline."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.child.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.child.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def answer(self, rid, deadline):
        """The answer to `rid`; notifications met on the way are kept in `notes`."""
        while True:
            m = self.next(deadline)
            if m is None:
                raise TimeoutError("no answer to %s" % rid)
            if m.get("id") == rid and "method" not in m:
                return m
            if "method" in m and "id" not in m:
                self.notes.append(m["method"])
            elif "method" in m:
                # roots/list and the like: answered, as a host would.
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": {"roots": []}})

    def close(self):
        self.child.stdin.close()
        try:
            self.child.wait(10)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()


INIT = {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
        "clientInfo": {"name": "startup-bench", "version": "1"}}


def listed(wire, rid, deadline):
    """Every tool of one tools/list (all pages)."""
    tools, cursor = [], None
    while True:
        params = {"cursor": cursor} if cursor else {}
        wire.send({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params})
        result = wire.answer(rid, deadline)["result"]
        tools += [t["name"] for t in result["tools"]]
        cursor = result.get("nextCursor")
        rid += 1
        if not cursor:
            return tools, rid


def has_cache(toon):
    """Whether `toon mcp serve` has a catalog cache."""
    out = subprocess.run([toon, "mcp", "serve", "--help"], capture_output=True, text=True)
    return "--catalog-cache" in out.stdout


def fill_cache(toon, config, cache, expected):
    """One untimed run with every server up, which leaves their tools in `cache`."""
    shutil.rmtree(cache, ignore_errors=True)
    through_gateway(toon, config, expected, ["--startup-grace", "wait", "--catalog-cache", cache])


def through_gateway(toon, config, expected, extra):
    """(to initialize, to first tools/list, to every tool listed) in seconds."""
    started = time.monotonic()
    deadline = started + 120
    wire = Wire([toon, "mcp", "serve", "--config", config] + extra)
    try:
        wire.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        wire.answer(1, deadline)
        to_init = time.monotonic() - started
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, rid = listed(wire, 2, deadline)
        to_list = time.monotonic() - started
        while len(tools) < expected:
            wire.notes.clear()
            while "notifications/tools/list_changed" not in wire.notes:
                m = wire.next(deadline)
                if m is None:
                    return to_init, to_list, None
                if "method" in m and "id" not in m:
                    wire.notes.append(m["method"])
            tools, rid = listed(wire, rid, deadline)
        return to_init, to_list, time.monotonic() - started
    finally:
        wire.close()


def alone(entry):
    """Seconds for one server, spawned directly, to answer initialize and tools/list."""
    env = dict(os.environ, **entry.get("env", {}))
    started = time.monotonic()
    wire = Wire([entry["command"]] + entry.get("args", []), env)
    try:
        deadline = started + 60
        wire.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        wire.answer(1, deadline)
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, _ = listed(wire, 2, deadline)
        return time.monotonic() - started, len(tools)
    finally:
        wire.close()


def fmt(seconds):
    return "never" if seconds is None else "%.2f" % seconds


def main():
    work = tempfile.mkdtemp(prefix="startup-bench-")
    entries = servers(work)
    slow = os.path.join(work, "slow_server.py")
    with open(slow, "w") as f:
        f.write(SLOW)
    print("| server alone | seconds to its tools (median of %d) | tools |" % ROUNDS)
    print("|---|---:|---:|")
    total = 0
    for name, entry in entries.items():
        runs = [alone(entry) for _ in range(ROUNDS)]
        total += runs[0][1]
        print("| %s | %.2f | %d |" % (name, statistics.median(r[0] for r in runs), runs[0][1]),
              flush=True)
    rows = {
        "eleven": (entries, total),
        "eleven + slow (20 s)": (dict(entries, slow={"command": "python3", "args": [slow, "20"]}),
                                 total + 1),
        "eleven + stuck": (dict(entries, stuck={"command": "python3", "args": [slow, "3600"]}),
                           total),
    }
    cold = os.path.join(work, "cold-cache")
    cache = os.path.join(work, "cache")
    variants = []
    for toon in TOONS:
        if has_cache(toon):
            variants += [(toon, ["--catalog-cache", cold], "cold"),
                         (toon, ["--catalog-cache", cache], "cached")]
        else:
            variants.append((toon, [], ""))
    if os.environ.get("STARTUP_ARGS"):
        variants += [(toon, os.environ["STARTUP_ARGS"].split(), "") for toon in TOONS]
    print()
    print("| row | gateway | to initialize | to first tools/list | to every tool |")
    print("|---|---|---:|---:|---:|")
    for row, (config_entries, expected) in rows.items():
        config = os.path.join(work, "mcp.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": config_entries}, f)
        for toon, extra, kind in variants:
            if kind == "cached":
                fill_cache(toon, config, cache, expected)
            runs = []
            for i in range(ROUNDS):
                print("%s, %s %s, round %d" % (row, toon, " ".join(extra), i + 1),
                      file=sys.stderr, flush=True)
                shutil.rmtree(cold, ignore_errors=True)
                runs.append(through_gateway(toon, config, expected, extra))
            med = [statistics.median(r[k] for r in runs) if all(r[k] is not None for r in runs)
                   else None for k in range(3)]
            label = os.path.basename(toon) + " " + (kind or " ".join(extra))
            print("| %s | %s | %s | %s | %s |" % (row, label, fmt(med[0]), fmt(med[1]),
                                                 fmt(med[2])), flush=True)


if __name__ == "__main__":
    main()
