#!/usr/bin/env python3
"""The proxy's instructions per tool call with and without its metrics (issue #45).

Runs `toon mcp serve` under `valgrind --tool=callgrind` (the proxy process only: its server
is not traced) in front of the repo's wild fixture server, as a stdio client would: initialize,
then CALLS sequential `tools/call`s of TOOL, then stdin closed. Each setting runs with 0 and
with CALLS calls, so that start-up and exit cancel out: per call = (I(CALLS) - I(0)) / CALLS.
Settings alternate (with, without, with, without, ...) ROUNDS times; the medians are printed,
and the ratio with/without.

    python3 benches/mcp/metrics_overhead.py target/profiling/toon [CALLS] [ROUNDS] [TOOL]
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(toon, config, calls, tool, flags):
    """Instructions the proxy ran for `calls` calls of `tool`."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out.name,
             toon, "mcp", "serve", "--config", config] + flags,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)

        def ask(i, method, params):
            proc.stdin.write(json.dumps(
                {"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            while True:
                reply = json.loads(proc.stdout.readline())
                if reply.get("id") == i:
                    return reply

        ask(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}})
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        ask(1, "tools/list", {})
        for i in range(calls):
            reply = ask(2 + i, "tools/call", {"name": tool, "arguments": {}})
            assert "result" in reply, reply
        proc.stdin.close()
        stderr = proc.stderr.read()
        proc.wait()
        found = re.search(r"Collected : (\d+)", stderr)
        assert found, stderr
        return int(found.group(1))


def main():
    toon = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    tool = sys.argv[4] if len(sys.argv) > 4 else "ordered"
    server = os.path.join(ROOT, "tests/fixtures/mcp/servers/wild_server.py")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
        json.dump({"mcpServers": {"wild": {"command": "python3", "args": [server]}}}, config)
    settings = {"with metrics": [], "--no-metrics": ["--no-metrics"]}
    per_call = {name: [] for name in settings}
    for _ in range(rounds):
        for name, flags in settings.items():
            base = run(toon, config.name, 0, tool, flags)
            loaded = run(toon, config.name, calls, tool, flags)
            per_call[name].append((loaded - base) / calls)
    os.unlink(config.name)
    medians = {name: statistics.median(v) for name, v in per_call.items()}
    for name, values in per_call.items():
        print(f"{name:>14}: {medians[name]:>10.0f} instructions per call "
              f"(rounds: {', '.join(f'{v:.0f}' for v in values)})")
    ratio = medians["with metrics"] / medians["--no-metrics"]
    print(f"with / without: {ratio:.4f} ({calls} calls of {tool}, {rounds} rounds)")


if __name__ == "__main__":
    main()
