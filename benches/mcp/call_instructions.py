#!/usr/bin/env python3
"""Instructions the gateway runs per proxied `tools/call` (issue #54), by path and result.

Runs `toon mcp serve` under `valgrind --tool=callgrind` (the gateway only: its server is not
traced) in front of the repo's wild fixture server, as a client would: over stdio with a
2025-11-25 session and with 2026-07-28 requests (the per-request `_meta` envelope, roots
declared as hosts do), and over `--http` with a 2025-11-25 session and with 2026-07-28
stateless POSTs. Each path runs with 0 and with CALLS sequential calls of a tool whose result
the gateway converts to TOON (`ordered`) and of one it keeps (`echo_request`, too small), so
that start-up and exit cancel out: per call = (I(CALLS) - I(0)) / CALLS. Several binaries
(before and after a change) are measured in turn, each path's rounds alternating between
them; the medians are printed.

    python3 benches/mcp/call_instructions.py CALLS ROUNDS TOON [TOON...]

Build each TOON with `cargo build --profile profiling --features cli,mcp-proxy`.
"""

import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
}
INIT = {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
        "clientInfo": {"name": "bench", "version": "1"}}


def call_params(tool, modern):
    params = {"name": tool, "arguments": {}}
    if modern:
        params["_meta"] = ENVELOPE
    return params


def collected(stderr):
    found = re.search(r"Collected : (\d+)", stderr)
    assert found, stderr[-2000:]
    return int(found.group(1))


def callgrind(toon, config, extra):
    out = tempfile.NamedTemporaryFile(suffix=".callgrind", delete=False)
    out.close()
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out.name,
         toon, "mcp", "serve", "--config", config] + extra,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out.name


def stdio_run(toon, config, calls, tool, modern):
    proc, out = callgrind(toon, config, [])

    def ask(i, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == i:
                return reply

    if not modern:
        ask(0, "initialize", INIT)
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
    ask(1, "tools/list", {"_meta": ENVELOPE} if modern else {})
    for i in range(calls):
        reply = ask(2 + i, "tools/call", call_params(tool, modern))
        assert "result" in reply, reply
    proc.stdin.close()
    stderr = proc.stderr.read()
    proc.wait()
    os.unlink(out)
    return collected(stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, body, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    hdrs = {"Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"}
    hdrs.update(headers)
    conn.request("POST", "/mcp", json.dumps(body), hdrs)
    r = conn.getresponse()
    data = r.read().decode()
    session = r.getheader("Mcp-Session-Id")
    conn.close()
    if not data.strip():
        return None, session
    if data.startswith("{"):
        return json.loads(data), session
    events = [json.loads(line[5:]) for line in data.splitlines() if line.startswith("data:")]
    return next(e for e in events if "id" in e and ("result" in e or "error" in e)), session


def http_run(toon, config, calls, tool, modern):
    port = free_port()
    proc, out = callgrind(toon, config, ["--http", "127.0.0.1:%d" % port])
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    if modern:
        headers = {"MCP-Protocol-Version": MODERN}

        def ask(i, method, params):
            h = dict(headers, **{"Mcp-Method": method})
            if method == "tools/call":
                h["Mcp-Name"] = params["name"]
            return post(port, {"jsonrpc": "2.0", "id": i, "method": method,
                               "params": params}, h)[0]
        ask(1, "tools/list", {"_meta": ENVELOPE})
    else:
        reply, session = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                     "params": INIT}, {})
        headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)

        def ask(i, method, params):
            return post(port, {"jsonrpc": "2.0", "id": i, "method": method,
                               "params": params}, headers)[0]
        ask(1, "tools/list", {})
    for i in range(calls):
        reply = ask(2 + i, "tools/call", call_params(tool, modern))
        assert "result" in reply, reply
    proc.send_signal(signal.SIGTERM)
    stderr = proc.stderr.read()
    proc.wait()
    os.unlink(out)
    return collected(stderr)


def main():
    calls, rounds = int(sys.argv[1]), int(sys.argv[2])
    binaries = sys.argv[3:]
    server = os.path.join(ROOT, "tests/fixtures/mcp/servers/wild_server.py")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
        json.dump({"mcpServers": {"wild": {"command": "python3", "args": [server]}}}, config)
    paths = [("stdio", "2025-11-25", stdio_run, False), ("stdio", MODERN, stdio_run, True),
             ("HTTP", "2025-11-25 session", http_run, False),
             ("HTTP", MODERN + " stateless", http_run, True)]
    print("instructions per call (median of %d rounds, %d calls)" % (rounds, calls))
    for n, b in enumerate(binaries, 1):
        print("  [%d] %s" % (n, b))
    print("%-34s %-9s %s" % ("path", "result", "  ".join("%14s" % ("[%d]" % n)
                                                          for n in range(1, len(binaries) + 1))))
    for front, revision, run, modern in paths:
        for tool, kind in (("ordered", "converted"), ("echo_request", "kept")):
            per_call = {b: [] for b in binaries}
            for _ in range(rounds):
                for b in binaries:
                    base = run(b, config.name, 0, tool, modern)
                    loaded = run(b, config.name, calls, tool, modern)
                    per_call[b].append((loaded - base) / calls)
            cells = "  ".join("%14.0f" % statistics.median(per_call[b]) for b in binaries)
            print("%-34s %-9s %s" % (front + ", " + revision, kind, cells), flush=True)
    os.unlink(config.name)


if __name__ == "__main__":
    main()
