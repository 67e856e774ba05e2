#!/usr/bin/env python3
"""Tool-list size, in o200k tokens, of eleven real MCP servers: directly, through
`toon mcp serve` (passthrough, lean, compact) and through Atlassian's mcp-compressor 0.38.2
(low, medium, high, max); and whether the gateway changes a few deterministic call results.

    CACHE_DIR/venv/bin/python benches/mcp/tool_list_tokens.py CACHE_DIR TOON_BINARY

CACHE_DIR is what `benches/mcp/install-tool-list-servers.sh CACHE_DIR` printed. Markdown tables go to stdout, progress to
stderr, the servers' and fronts' own stderr to CACHE_DIR/../tool_list_tokens.log (or
$TOOL_LIST_TOKENS_LOG); $TOOL_LIST_TOKENS_DUMP=FILE also writes every row's raw tools/list
results there as JSON. About two minutes on 2 cores; no network (tiktoken's o200k table is
in CACHE_DIR/tiktoken).

A client on the official Python SDK (`mcp` 2.3, `from mcp import Client`, stdio, protocol
negotiated in `auto` mode unless said otherwise) lists each row's tools, following
`nextCursor` to the last page. Each tools/list result is recorded as it came off the wire
(the JSON-RPC `result`, before the SDK's models drop fields they do not know, such as
chrome-devtools' `annotations.category`). What is counted:

    json.dumps(tools, separators=(",", ":"), ensure_ascii=False)

the `tools` arrays of a row's pages joined into one array, as compact JSON: the part of the
result a host hands the model. Of the serialisations tried (side table printed for the direct
row: whole result objects, default separators, indent=2, the SDK's parsed models) this one
reproduces the earlier reference numbers best (lean exactly, mcp-compressor within 0.7%).

Rows:
- direct: each server on its own; the row is the sum of the eleven counts (per-server table
  too), and the next row counts the eleven lists joined in one array, as a front lists them.
- toon passthrough | lean | compact: one `TOON mcp serve --config FILE --mode M` in front of
  all eleven servers (FILE a standard `{"mcpServers": {...}}` file this script writes).
  The SDK negotiates 2026-07-28 with the gateway; such a client has no tasks, so the gateway
  does not list tools that run only as a task (everything's `simulate-research-query`). So
  passthrough is also listed by a client pinned to 2025-11-25 (`mode="legacy"`), which gets
  every tool; a table says which direct tools each toon row lacks, which it adds, and how
  many passthrough definitions are byte-for-byte the direct ones.
- mcp-compressor low | medium | high | max: one `mcp-compressor -c LEVEL --config FILE` in
  front of the same eleven servers (its documented multi-server form), default transform
  mode (compressed tools: `<server>_get_tool_schema`, `<server>_invoke_tool`, and at max
  `<server>_list_tools`).

Then a few read-only calls (everything `echo`, calculator `calculate`, time `convert_time`,
filesystem `list_directory`, memory `read_graph`, sqlite `read_query`, git `git_status`) are
made directly and through the gateway in passthrough and compact mode, and the results
compared: content blocks as JSON (less the gateway's own `_meta` key
`rs.toon-codec/conversion`), a text block's text parsed as JSON where it is JSON, and the
gateway's text decoded from TOON (`TOON -d`) where the direct text is JSON and the gateway's is
not; `structuredContent` and `isError` as they are.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from contextlib import asynccontextmanager

CACHE = os.path.abspath(sys.argv[1]) if len(sys.argv) == 3 else None
if CACHE is None:
    raise SystemExit("usage: tool_list_tokens.py CACHE_DIR TOON_BINARY")
TOON = os.path.abspath(sys.argv[2])
os.environ.setdefault("TIKTOKEN_CACHE_DIR", os.path.join(CACHE, "tiktoken"))

import anyio  # noqa: E402
import tiktoken  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.types import JSONRPCResponse, Tool  # noqa: E402

ENC = tiktoken.get_encoding("o200k_base")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
COMPRESSOR = os.path.join(CACHE, "venv", "bin", "mcp-compressor")
LOG_PATH = os.environ.get("TOOL_LIST_TOKENS_LOG",
                          os.path.join(os.path.dirname(CACHE), "tool_list_tokens.log"))
LIST_TIMEOUT = 180  # seconds for one row: start every server, list every page


def progress(*args):
    print(*args, file=sys.stderr, flush=True)


def why(ex):
    """The leaf exceptions of an exception (group), as one line."""
    if isinstance(ex, BaseExceptionGroup):
        return "; ".join(why(e) for e in ex.exceptions)
    return "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0] if str(ex) else "")


def tokens(text):
    return len(ENC.encode(text, disallowed_special=()))


def servers(work):
    """The eleven servers, as mcpServers entries, with their scratch files under `work`."""
    npm = os.path.join(CACHE, "npm", "node_modules", ".bin")
    venv = os.path.join(CACHE, "venv", "bin")
    mcp1 = os.path.join(CACHE, "mcp1-venv", "bin")  # calculator and sqlite need mcp<2
    return {
        "everything": {"command": os.path.join(npm, "mcp-server-everything"), "args": ["stdio"]},
        "filesystem": {"command": os.path.join(npm, "mcp-server-filesystem"),
                       "args": [os.path.join(work, "files")]},
        "memory": {"command": os.path.join(npm, "mcp-server-memory"),
                   "env": {"MEMORY_FILE_PATH": os.path.join(work, "memory.jsonl")}},
        "sequential-thinking": {"command": os.path.join(npm, "mcp-server-sequential-thinking")},
        "time": {"command": os.path.join(venv, "mcp-server-time"),
                 "args": ["--local-timezone", "UTC"]},
        "git": {"command": os.path.join(venv, "mcp-server-git"),
                "args": ["--repository", os.path.join(work, "repo")]},
        "fetch": {"command": os.path.join(venv, "mcp-server-fetch")},
        "sqlite": {"command": os.path.join(mcp1, "mcp-server-sqlite"),
                   "args": ["--db-path", os.path.join(work, "bench.db")]},
        "calculator": {"command": os.path.join(mcp1, "mcp-server-calculator")},
        # Neither browser server starts a browser before a tool needs one; the flags make the
        # one it would start the system Chromium, headless, with a throwaway profile.
        "playwright": {"command": os.path.join(npm, "playwright-mcp"),
                       "args": ["--headless", "--browser", "chromium", "--executable-path",
                                CHROMIUM, "--isolated", "--no-sandbox"]},
        "chrome-devtools": {"command": os.path.join(npm, "chrome-devtools-mcp"),
                            "args": ["--headless", "--isolated", "--executablePath", CHROMIUM,
                                     "--no-usage-statistics"],
                            "env": {"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1"}},
    }


def make_work():
    """A scratch folder: files to list, a git repository, an SQLite database, a memory graph."""
    work = tempfile.mkdtemp(prefix="tool-list-tokens-")
    files = os.path.join(work, "files")
    os.makedirs(os.path.join(files, "sub"))
    for name, text in (("a.txt", "alpha\n"), ("b.json", '{"b": 2}\n'), ("sub/c.md", "# c\n")):
        with open(os.path.join(files, name), "w") as f:
            f.write(text)
    repo = os.path.join(work, "repo")
    git = ["git", "-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, "README"), "w") as f:
        f.write("bench\n")
    subprocess.run(git + ["add", "README"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "first"], check=True)
    with open(os.path.join(repo, "README"), "a") as f:
        f.write("changed\n")
    db = sqlite3.connect(os.path.join(work, "bench.db"))
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)")
    db.executemany("INSERT INTO items VALUES (?, ?, ?)",
                   [(i, "item %d" % i, i * 1.25) for i in range(1, 9)])
    db.commit()
    db.close()
    with open(os.path.join(work, "memory.jsonl"), "w") as f:
        for i in range(1, 6):
            f.write(json.dumps({"type": "entity", "name": "node%d" % i, "entityType": "thing",
                                "observations": ["observation %d" % i]}) + "\n")
        for i in range(1, 5):
            f.write(json.dumps({"type": "relation", "from": "node%d" % i,
                                "to": "node%d" % (i + 1), "relationType": "links"}) + "\n")
    return work


def write_config(work, entries):
    path = os.path.join(work, "mcp.json")
    with open(path, "w") as f:
        json.dump({"mcpServers": entries}, f, indent=2)
    return path


@asynccontextmanager
async def recording_stdio(params, errlog, results):
    """stdio_client whose incoming JSON-RPC results carrying `tools` are appended to `results`
    as received (plain dicts), before the SDK validates them into its models."""
    async with stdio_client(params, errlog=errlog) as (read, write):
        relay_send, relay_read = anyio.create_memory_object_stream(0)

        async def relay():
            async with relay_send:
                async for item in read:
                    msg = getattr(item, "message", None)
                    if isinstance(msg, JSONRPCResponse) and isinstance(msg.result, dict) \
                            and "tools" in msg.result:
                        results.append(json.loads(json.dumps(msg.result)))
                    await relay_send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            try:
                yield relay_read, write
            finally:
                tg.cancel_scope.cancel()


async def list_tools(client, pages):
    """Every page of tools/list (bypassing the SDK's cache); the raw results land in `pages`."""
    cursor, n = None, 0
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        n += len(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return n


def joined_tools(pages):
    return [t for p in pages for t in p["tools"]]


def count(pages):
    return tokens(json.dumps(joined_tools(pages), separators=(",", ":"), ensure_ascii=False))


def serialisations(pages):
    tools = joined_tools(pages)
    return {
        "compact JSON of the tools array (counted)":
            json.dumps(tools, separators=(",", ":"), ensure_ascii=False),
        "compact JSON, ensure_ascii=True": json.dumps(tools, separators=(",", ":")),
        "compact JSON of the SDK's parsed Tool models (exclude_none)": json.dumps(
            [Tool.model_validate(t).model_dump(mode="json", by_alias=True, exclude_none=True)
             for t in tools], separators=(",", ":"), ensure_ascii=False),
        "compact JSON of each whole result":
            "".join(json.dumps(p, separators=(",", ":"), ensure_ascii=False) for p in pages),
        "json.dumps(tools) default separators": json.dumps(tools, ensure_ascii=False),
        "indent=2 JSON of the tools array": json.dumps(tools, indent=2, ensure_ascii=False),
    }


def stdio_params(command, args=(), env=None):
    return StdioServerParameters(command=command, args=list(args), env=env)


@asynccontextmanager
async def session(params, log, mode="auto"):
    pages = []
    async with Client(recording_stdio(params, log, pages), mode=mode, cache=None) as c:
        yield c, pages


async def list_row(params, log, calls=None):
    """(tool list pages, tools listed, seconds, call results or None) of one server/front."""
    started = time.perf_counter()
    with anyio.fail_after(LIST_TIMEOUT):
        async with session(params, log) as (c, pages):
            n = await list_tools(c, pages)
            elapsed = time.perf_counter() - started
            results = await make_calls(c, calls) if calls else None
    return pages, n, elapsed, results


# (server, tool, arguments) of the read-only calls compared; work is filled in later.
def call_specs(work):
    return [
        ("everything", "echo", {"message": "hello from the toon benchmark"}),
        ("calculator", "calculate", {"expression": "2*(3+4)**2/7"}),
        ("time", "convert_time", {"source_timezone": "America/New_York", "time": "14:30",
                                  "target_timezone": "Asia/Tokyo"}),
        ("filesystem", "list_directory", {"path": os.path.join(work, "files")}),
        ("memory", "read_graph", {}),
        ("sqlite", "read_query", {"query": "SELECT * FROM items ORDER BY id"}),
        ("git", "git_status", {"repo_path": os.path.join(work, "repo")}),
    ]


def dump_result(r):
    d = r.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"content": d.get("content", []), "structuredContent": d.get("structuredContent"),
            "isError": bool(d.get("isError", False))}


async def make_calls(client, specs):
    """{(server, tool): dumped result or "error: ..."} for each spec; `specs` maps each
    (server, tool) to the name the front lists the tool under."""
    out = {}
    for (server, tool, args), name in specs:
        try:
            with anyio.fail_after(60):
                out[(server, tool)] = dump_result(await client.call_tool(name, args))
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out[(server, tool)] = "error: %s: %s" % (type(e).__name__, e)
    return out


def as_json(text):
    try:
        return True, json.loads(text)
    except ValueError:
        return False, text


def toon_decode(text):
    p = subprocess.run([TOON, "-d", "--indent", "0"], input=text, capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        return None
    ok, value = as_json(p.stdout)
    return value if ok else None


OWN_META = "rs.toon-codec/"


def strip_own_meta(block):
    """A content block less the gateway's own `_meta` entries (rs.toon-codec/conversion)."""
    meta = block.get("_meta")
    if not isinstance(meta, dict) or not any(k.startswith(OWN_META) for k in meta):
        return block
    block = dict(block)
    rest = {k: v for k, v in meta.items() if not k.startswith(OWN_META)}
    if rest:
        block["_meta"] = rest
    else:
        del block["_meta"]
    return block


def compare(direct, through):
    """"identical", "equal as JSON", "equal after TOON decode", or what differs."""
    if isinstance(direct, str) or isinstance(through, str):
        return "call failed (direct: %s; gateway: %s)" % (
            direct if isinstance(direct, str) else "ok",
            through if isinstance(through, str) else "ok")
    if direct == through:
        return "identical"
    how = "equal as JSON"
    if direct["isError"] != through["isError"]:
        return "isError differs"
    if direct["structuredContent"] != through["structuredContent"]:
        return "structuredContent differs"
    a, b = direct["content"], [strip_own_meta(y) for y in through["content"]]
    if len(a) != len(b):
        return "content has %d blocks directly, %d through the gateway" % (len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if x.get("type") != "text" or y.get("type") != "text" or \
                {k: v for k, v in x.items() if k != "text"} != \
                {k: v for k, v in y.items() if k != "text"}:
            return "content block %d differs beyond its text" % i
        xj, xv = as_json(x["text"])
        yj, yv = as_json(y["text"])
        if xj and yj and xv == yv:
            continue
        if xj and not yj and toon_decode(y["text"]) == xv:
            how = "equal after TOON decode"
            continue
        return "content block %d differs: %r vs %r" % (i, x["text"][:80], y["text"][:80])
    if b != through["content"]:
        how += " (+ gateway's conversion _meta)"
    return how


def gateway_names(pages, specs):
    """Maps each call spec to the name the gateway lists that tool under."""
    names = [t["name"] for t in joined_tools(pages)]
    out = []
    for server, tool, args in specs:
        candidates = [n for n in names if n == tool] or \
                     [n for n in names if n.endswith(tool) and server.replace("-", "_") in
                      n.replace("-", "_")] or [n for n in names if n.endswith(tool)]
        out.append(((server, tool, args), candidates[0] if len(candidates) == 1 else tool))
    return out


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(" --- " if i == 0 else " ---: " for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


async def main():
    started = time.perf_counter()
    work = make_work()
    entries = servers(work)
    config = write_config(work, entries)
    specs = call_specs(work)
    log = open(LOG_PATH, "w")
    progress("scratch folder %s, config %s, servers' stderr to %s" % (work, config, LOG_PATH))

    # Direct: each server on its own, its calls made in the same session.
    direct, direct_pages, direct_calls, problems = {}, [], {}, []
    for name, e in entries.items():
        mine = [((s, t, a), t) for s, t, a in specs if s == name]
        try:
            pages, n, secs, res = await list_row(stdio_params(e["command"], e.get("args", ()),
                                                              e.get("env")), log, mine)
        except Exception as ex:  # noqa: BLE001
            problems.append("direct %s: %s" % (name, why(ex)))
            progress("direct %-20s FAILED: %s" % (name, why(ex)))
            continue
        direct[name] = (count(pages), n, len(pages))
        direct_pages += pages
        direct_calls.update(res or {})
        progress("direct %-20s %6d tokens %3d tools %d page(s) %.1f s" % (
            name, direct[name][0], n, len(pages), secs))

    rows = [("direct (sum of %d servers)" % len(direct), sum(v[0] for v in direct.values()),
             sum(v[1] for v in direct.values())),
            # One array of all of them, as a front lists them: no per-list brackets.
            ("direct, the %d lists joined in one array" % len(direct), count(direct_pages),
             len(joined_tools(direct_pages)))]
    listed = {"direct": [t["name"] for t in joined_tools(direct_pages)]}
    gw_calls, listed_pages = {}, {}
    toon = [TOON, "mcp", "serve", "--config", config, "--startup-timeout", "120", "--mode"]
    fronts = [("toon " + m, toon + [m], m, "auto") for m in ("passthrough", "lean", "compact")]
    # A 2026-07-28 client has no tasks, so the gateway lists it no tool that runs only as a
    # task (everything's simulate-research-query); a 2025-11-25 client gets every tool.
    fronts.append(("toon passthrough, 2025-11-25 client", toon + ["passthrough"], None,
                   "legacy"))
    fronts += [("mcp-compressor " + lv, [COMPRESSOR, "-c", lv, "--config", config], None,
                "auto") for lv in ("low", "medium", "high", "max")]
    versions = {}
    for label, argv, mode, proto in fronts:
        try:
            want_calls = mode in ("passthrough", "compact")
            pages_holder = {}

            async def run_front():
                t0 = time.perf_counter()
                with anyio.fail_after(LIST_TIMEOUT):
                    async with session(stdio_params(argv[0], argv[1:]), log, proto) \
                            as (c, pages):
                        n = await list_tools(c, pages)
                        versions[label] = c.protocol_version
                        secs = time.perf_counter() - t0
                        res = await make_calls(c, gateway_names(pages, specs)) \
                            if want_calls else None
                pages_holder.update(pages=pages, n=n, secs=secs, res=res)

            await run_front()
            pages, n = pages_holder["pages"], pages_holder["n"]
        except Exception as ex:  # noqa: BLE001
            problems.append("%s: %s" % (label, why(ex)))
            progress("%-26s FAILED: %s" % (label, why(ex)))
            rows.append((label, None, None))
            continue
        rows.append((label, count(pages), n))
        listed[label] = [t["name"] for t in joined_tools(pages)]
        if pages_holder["res"] is not None:
            gw_calls[label] = pages_holder["res"]
        listed_pages[label] = pages
        progress("%-36s %6d tokens %3d tools %d page(s) %.1f s (%s)" % (
            label, count(pages), n, len(pages), pages_holder["secs"], versions[label]))

    base = rows[0][1] or 1
    print("## Tool list, o200k tokens (compact JSON of the `tools` array)\n")
    print(md_table(["row", "tool list tokens", "ratio to direct", "tools listed"],
                   [(r, "failed" if t is None else "{:,}".format(t),
                     "-" if t is None else "%.3f" % (t / base), "-" if n is None else n)
                    for r, t, n in rows]))
    print("\n## Direct, per server\n")
    print(md_table(["server", "tool list tokens", "tools", "pages"],
                   [(s, "{:,}".format(t), n, p) for s, (t, n, p) in direct.items()]))
    dump = os.environ.get("TOOL_LIST_TOKENS_DUMP")
    if dump:
        with open(dump, "w") as f:
            json.dump({"direct": direct_pages, **listed_pages}, f, ensure_ascii=False)
    print("\n## Direct (sum), by serialisation\n")
    print(md_table(["serialisation", "o200k tokens"],
                   [(k, "{:,}".format(sum(tokens(serialisations([p])[k])
                                          for p in direct_pages)))
                    for k in serialisations(direct_pages)]))

    # Tools: passthrough and compact should list every direct tool (under its own name, as
    # no two servers share a tool name), passthrough each definition unchanged.
    print("\n## Tools through the gateway vs direct\n")
    by_name = {t["name"]: t for t in joined_tools(direct_pages)}
    check_rows = []
    for label in ("toon passthrough", "toon passthrough, 2025-11-25 client", "toon compact"):
        if label not in listed:
            continue
        d, g = listed["direct"], listed[label]
        missing = [t for t in d if t not in g]
        extra = [t for t in g if t not in d]
        same = sum(1 for t in joined_tools(listed_pages[label])
                   if by_name.get(t["name"]) == t)
        check_rows.append((label, versions[label], len(g), ", ".join(missing) or "none",
                           ", ".join(extra) or "none",
                           "%d of %d" % (same, len(d)) if "passthrough" in label else "-"))
    print(md_table(["row", "protocol", "tools", "direct tools not listed", "tools added",
                    "definitions identical to direct"], check_rows))

    print("\n## Call results, gateway vs direct\n")
    cmp_rows = []
    for server, tool, _ in specs:
        key = (server, tool)
        cells = [compare(direct_calls.get(key, "not called"), gw_calls[label].get(key, "not called"))
                 if label in gw_calls else "gateway failed"
                 for label in ("toon passthrough", "toon compact")]
        cmp_rows.append(("%s `%s`" % (server, tool), *cells))
    print(md_table(["call", "toon passthrough", "toon compact"], cmp_rows))

    if problems:
        print("\n## Problems\n")
        for p in problems:
            print("- " + p)
    log.close()
    shutil.rmtree(work, ignore_errors=True)
    progress("done in %.0f s" % (time.perf_counter() - started))


if __name__ == "__main__":
    anyio.run(main)
