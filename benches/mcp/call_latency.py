#!/usr/bin/env python3
"""Sequential tool-call latency through `toon mcp serve`, beside the direct call (issue #54).

A client on the official Python SDK (`mcp` 2.3, from the servers' venv) configured as hosts
are (a roots callback; optionally sampling and elicitation too) calls server-everything's
`echo` CALLS times in a row, directly and through the gateway, over stdio and over the
gateway's HTTP front, in the SDK's `auto` mode (2026-07-28 through the gateway, 2025-11-25
directly: server-everything speaks only that) and pinned to `legacy` (2025-11-25). Then two
such clients at once on the HTTP front, and one that keeps no cookies (as a client on
`fetch` keeps none: the gateway's stateless front tells one 2026-07-28 client's POSTs by its
cookie). Prints the median and the 90th percentile of each row,
in milliseconds, and how many calls failed or took over a second.

    TOON_MCP_SERVERS=DIR DIR/venv/bin/python benches/mcp/call_latency.py CALLS TOON [TOON...] 2>/dev/null

With `TOON_BENCH_SERVER=modern` the server is instead the repo's server of revision 2026-07-28
only (`tests/fixtures/mcp/servers/modern_server.py`, its `echo`), which the gateway opens with
`initialize`, is refused, and speaks 2026-07-28 to (`server/discover`, the `_meta` envelope);
directly the SDK in `auto` mode speaks 2026-07-28 to it and `legacy` cannot be used.

With `TOON_BENCH_SERVER=everything-http` the server is server-everything over Streamable HTTP
(`mcp-server-everything streamableHttp` on a free loopback port), a `url` server of the
gateway's, and each call is its `trigger-sampling-request` (the server asks the client to
sample, on the call's answer stream, before it answers); directly the rows are over HTTP too.

DIR is what `scripts/install-mcp-servers.sh` printed (its venv has the SDK). Several TOON
binaries (say, before and after a change) are measured in turn in the same run, each row
named by its binary's path; stderr carries the servers' and the gateway's own lines.
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from http.cookiejar import CookieJar, DefaultCookiePolicy

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CreateMessageResult, ElicitResult, ListRootsResult, Root, TextContent


async def roots(ctx):
    return ListRootsResult(roots=[Root(uri="file:///bench", name="bench")])


async def sample(ctx, params):
    return CreateMessageResult(role="assistant", model="bench",
                               content=TextContent(type="text", text="sampled"))


async def elicit(ctx, params):
    return ElicitResult(action="decline")


def host_callbacks(declared):
    """The callbacks a host gives (each one declares its capability), or none."""
    if not declared:
        return {}
    return {"list_roots_callback": roots, "sampling_callback": sample,
            "elicitation_callback": elicit}


MODERN = os.environ.get("TOON_BENCH_SERVER") == "modern"
EVERYTHING_HTTP = os.environ.get("TOON_BENCH_SERVER") == "everything-http"


async def calls(client, n, label):
    """`n` sequential echo calls; the milliseconds each took."""
    times = []
    for i in range(n):
        text = "%s %d" % (label, i)
        started = time.perf_counter()
        try:
            with anyio.fail_after(10):
                if MODERN:
                    r = await client.call_tool("echo", {"text": text})
                elif EVERYTHING_HTTP:
                    r = await client.call_tool("trigger-sampling-request",
                                               {"prompt": text, "maxTokens": 10})
                else:
                    r = await client.call_tool("echo", {"message": text})
            if EVERYTHING_HTTP:
                ok = not r.is_error and "sampled" in r.content[0].text
            else:
                ok = r.content[0].text == (text if MODERN else "Echo: " + text)
        except Exception:  # noqa: BLE001 - a failed call is counted, not fatal
            ok = False
        ms = (time.perf_counter() - started) * 1000
        times.append(ms if ok else None)
    return times


async def stdio_row(command, args, mode, declared, n):
    server = StdioServerParameters(command=command, args=args)
    async with Client(server, mode=mode, **host_callbacks(declared)) as c:
        await calls(c, 3, "warm")
        return c.protocol_version, await calls(c, n, "call")


def refuse_cookies(h):
    """Makes httpx keep no cookie, as a client on `fetch` (the TypeScript SDK's) keeps none."""
    h.cookies = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


async def http_row(url, mode, declared, n, label="call", cookies=True):
    async with create_mcp_http_client() as h:
        if not cookies:
            refuse_cookies(h)
        async with Client(streamable_http_client(url, http_client=h), mode=mode, cache=None,
                          **host_callbacks(declared)) as c:
            await calls(c, 3, "warm " + label)
            return c.protocol_version, await calls(c, n, label)


async def two_http_clients(url, n):
    results = []

    async def one(label):
        results.append(await http_row(url, "auto", True, n, label))

    async with anyio.create_task_group() as tg:
        tg.start_soon(one, "first")
        tg.start_soon(one, "second")
    return results[0][0], results[0][1] + results[1][1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(command, what, env=None):
    """Starts `command` (PORT in it, or in its environment, is a free loopback port) and waits
    until it listens; the process and its MCP URL."""
    port = free_port()
    command = [c.replace("PORT", str(port)) for c in command]
    env = dict(os.environ, PORT=str(port), **(env or {}))
    proc = subprocess.Popen(command, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            env=env)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return proc, "http://127.0.0.1:%d/mcp" % port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("%s did not listen" % what)


def start_http(toon, config):
    return listening([toon, "mcp", "serve", "--config", config, "--http", "127.0.0.1:PORT"],
                     "the HTTP front")


def report(label, version, times):
    ok = sorted(t for t in times if t is not None)
    failed = len(times) - len(ok)
    slow = sum(1 for t in ok if t > 1000)
    if not ok:
        print("%-58s %-10s %8s %8s  all %d failed" % (label, version, "-", "-", failed))
        return
    p90 = ok[min(len(ok) - 1, int(len(ok) * 0.9))]
    print("%-58s %-10s %8.2f %8.2f  %d failed, %d over 1 s" % (
        label, version, statistics.median(ok), p90, failed, slow))


HOSTS = {False: "no client capabilities", True: "roots, sampling, elicitation"}


async def gateway_rows(toon, config, n):
    gateway = ["mcp", "serve", "--config", config]
    # A client that declares no sampling cannot call the sampling tool (and the first
    # 2026-07-28 request on the HTTP front starts its servers with what it declares).
    hosts = (True,) if EVERYTHING_HTTP else (False, True)
    print(toon)
    for declared in hosts:
        for mode in ("auto", "legacy"):
            report("  stdio, SDK %s, %s" % (mode, HOSTS[declared]),
                   *await stdio_row(toon, gateway, mode, declared, n))
    proc, url = start_http(toon, config)
    try:
        for declared in hosts:
            for mode in ("auto", "legacy"):
                report("  HTTP, SDK %s, %s" % (mode, HOSTS[declared]),
                       *await http_row(url, mode, declared, n))
        report("  HTTP, SDK auto, %s, no cookies kept" % HOSTS[True],
               *await http_row(url, "auto", True, n, cookies=False))
        report("  HTTP, two such clients at once (auto)", *await two_http_clients(url, n))
    finally:
        proc.terminate()
        proc.wait()


async def main():
    n = int(sys.argv[1])
    everything = os.path.join(os.environ["TOON_MCP_SERVERS"], "npm", "node_modules", ".bin",
                              "mcp-server-everything")
    command, args = everything, []
    if MODERN:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                              "fixtures", "mcp", "servers", "modern_server.py")
        command, args = sys.executable, [os.path.normpath(script)]
    server, entry = None, {"command": command, "args": args}
    if EVERYTHING_HTTP:
        server, url = listening([everything, "streamableHttp"], "server-everything")
        entry = {"url": url}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"mcpServers": {"server": entry}}, f)
        config = f.name
    what = "sampling calls" if EVERYTHING_HTTP else "echo"
    print("%-58s %-10s %8s %8s" % ("%s, %d sequential calls" % (what, n), "revision",
                                   "median", "p90 ms"))
    try:
        print("direct")
        for declared in (False, True):
            if EVERYTHING_HTTP:
                # Without sampling declared the server's tool cannot ask: only the host row.
                if declared:
                    report("  HTTP, SDK legacy, %s" % HOSTS[declared],
                           *await http_row(entry["url"], "legacy", declared, n))
                continue
            report("  stdio, SDK auto, %s" % HOSTS[declared],
                   *await stdio_row(command, args, "auto", declared, n))
        for toon in sys.argv[2:]:
            await gateway_rows(toon, config, n)
    finally:
        os.unlink(config)
        if server:
            server.terminate()
            server.wait()


anyio.run(main)
