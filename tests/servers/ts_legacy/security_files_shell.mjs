// Two seeded boundary bugs on the official TypeScript SDK 1.x's `McpServer`
// (@modelcontextprotocol/sdk, the 1.32.2 that tests/servers/ts_legacy/package.json pins), with
// their fixed twin: the same file run with MCP_FIXTURE_FIXED=1. The allowed folders are the
// command line's arguments: `node files_shell.mjs DIR...`.
//
// - read_text_file(path) (readOnlyHint): the class of CVE-2025-53110, the check the
//   reference server-filesystem had before 2025.7.1: `path.resolve(p).startsWith(allowed)`, so
//   `/x/allowed_evil/secret.txt` passes for `/x/allowed`. Fixed: the real path
//   (`fs.realpathSync`) compared component by component (`path.relative`).
// - count_lines(filename) (readOnlyHint): the class of CVE-2025-53107
//   (@cyanheads/git-mcp-server before 2.1.5): `child_process.execSync(`wc -l ${filename}`)`, a
//   shell. Fixed: `execFileSync("wc", ["-l", "--", filename])`, no shell. Both twins refuse a
//   filename resolving outside the first allowed folder: a path check does not stop a shell.
// - run_command(command): "Runs a shell command", in both twins, annotated destructive: it
//   runs code by design and is not a bug.
//
// Bundled with the other servers of this folder (tests/fixture_builds.ts_bundles); the
// security fixtures' table is tests/servers/security/README.md.
import { execFileSync, execSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const FIXED = process.env.MCP_FIXTURE_FIXED === "1";
const args = process.argv.slice(2);
const ALLOWED = (args.length ? args : [process.cwd()]).map((folder) => path.resolve(folder));
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function refuse(text) {
  return { isError: true, content: [{ type: "text", text }] };
}

function within(child, parent) {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function realOrSelf(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p; // a path that does not exist yet is compared as written
  }
}

// The path to open, or null when it lies outside every allowed folder.
function checked(requested) {
  const absolute = path.resolve(ALLOWED[0], requested);
  if (FIXED) {
    const real = realOrSelf(absolute);
    return ALLOWED.some((a) => within(real, realOrSelf(a))) ? real : null;
  }
  return ALLOWED.some((a) => absolute.startsWith(a)) ? absolute : null; // the bug: a string prefix
}

const server = new McpServer({ name: "ts-files-shell", version: "1.0.0" });

server.registerTool(
  "read_text_file",
  {
    description: "The text of a file inside an allowed folder.",
    inputSchema: { path: z.string().describe("Path of the file, inside an allowed folder") },
    annotations: READ_ONLY,
  },
  async ({ path: requested }) => {
    const real = checked(requested);
    if (real === null) return refuse(`Access denied - path outside allowed directories: ${requested}`);
    try {
      return { content: [{ type: "text", text: fs.readFileSync(real, "utf8") }] };
    } catch (error) {
      return refuse(`Cannot read ${requested}: ${error.code}`);
    }
  },
);

server.registerTool(
  "count_lines",
  {
    description: "The number of lines of a file in the working folder.",
    inputSchema: { filename: z.string().describe("Name of a file in the working folder") },
    annotations: READ_ONLY,
  },
  async ({ filename }) => {
    const cwd = realOrSelf(ALLOWED[0]);
    if (!within(realOrSelf(path.resolve(cwd, filename)), cwd)) {
      return refuse(`Access denied - ${filename} is outside the working folder`);
    }
    try {
      const out = FIXED
        ? execFileSync("wc", ["-l", "--", filename], { cwd, encoding: "utf8", stdio: "pipe" })
        : execSync(`wc -l ${filename}`, { cwd, encoding: "utf8", stdio: "pipe" }); // the bug: a shell
      return { content: [{ type: "text", text: out }] };
    } catch (error) {
      return refuse(`Command failed: ${error.stdout ?? ""}${error.stderr ?? ""}`.trim());
    }
  },
);

server.registerTool(
  "run_command",
  {
    description: "Runs a shell command in the working folder and returns its output.",
    inputSchema: { command: z.string().describe("The shell command to run") },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  async ({ command }) => {
    try {
      return { content: [{ type: "text", text: execSync(command, { cwd: ALLOWED[0], encoding: "utf8" }) }] };
    } catch (error) {
      return refuse(`Command failed: ${error.stdout ?? ""}${error.stderr ?? ""}`.trim());
    }
  },
);

await server.connect(new StdioServerTransport());
