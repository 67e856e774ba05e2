#!/usr/bin/env node
// The `toon` command of the npm package toon-gateway: finds the platform package npm installed
// beside it (one of package.json's optionalDependencies, toon-gateway-PLATFORM-ARCH, whose
// `os`/`cpu`/`libc` fields let npm install only the one for this machine, as biome and esbuild
// ship theirs) and runs its compiled `toon` with this command's arguments. The binary gets
// this process's stdin, stdout and stderr themselves (an MCP client speaks to it directly, no
// copy in between), the signals this process is sent, and its exit status is this command's.
"use strict";

const { spawn } = require("child_process");
const path = require("path");
const manifest = require("../package.json");

// Signals a client or a shell stops the gateway with: passed on, so that the binary (not
// only this launcher) stops, and stops the servers it started.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

const INSTEAD =
  "Install toon another way: `cargo install toon-codec --features cli,mcp-proxy,mcp-semantic` " +
  "(Rust 1.88 or later), or the Python wheel: `uvx --from toon-gateway toon`.";

function fail(message) {
  process.stderr.write(`toon-gateway: ${message}\n`);
  process.exit(1);
}

// Linux without glibc (Alpine's musl): the binaries are linked against glibc.
function isMusl() {
  if (process.platform !== "linux") return false;
  const report = process.report && process.report.getReport();
  return Boolean(report) && !report.header.glibcVersionRuntime;
}

// The path of the binary for this machine, or a message that says why there is none.
function binary() {
  const platform = `${process.platform}-${process.arch}`;
  const name = `${manifest.name}-${platform}`;
  const built = Object.keys(manifest.optionalDependencies || {}).map((p) =>
    p.slice(manifest.name.length + 1),
  );
  if (!built.includes(platform)) {
    fail(
      `no prebuilt toon for this platform (${platform}, from Node's process.platform and ` +
        `process.arch); the npm packages have ${built.join(", ")} (glibc 2.17 or later). ${INSTEAD}`,
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    const why = isMusl()
      ? `this Linux has no glibc (musl?), and ${name} is built for glibc 2.17 or later`
      : `npm did not install it: optional dependencies are left out by --omit=optional ` +
        `(--no-optional), and by a lockfile made on another platform; reinstall ` +
        `toon-gateway without those`;
    fail(`the package ${name} that holds toon for ${platform} is not installed: ${why}. ${INSTEAD}`);
  }
  return path.join(dir, "bin", "toon");
}

function run(program, args) {
  const child = spawn(program, args, { stdio: "inherit" });
  const forward = {};
  for (const signal of FORWARDED) {
    forward[signal] = () => child.kill(signal);
    process.on(signal, forward[signal]);
  }
  child.on("error", (error) => fail(`could not run ${program}: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code);
    // Killed by a signal: end the same way, so that whoever started this command sees it.
    for (const s of FORWARDED) process.removeListener(s, forward[s]);
    process.kill(process.pid, signal);
    // A signal whose default is not to end the process (none of those sent above).
    process.exit(1);
  });
}

run(binary(), process.argv.slice(2));
