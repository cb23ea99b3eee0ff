// Official TypeScript SDK server ("ts-reach") whose bugs only a client that reaches its tools
// finds: one behind an existing file inside the client's roots, one behind an id only a create
// makes, one hidden in a successful result. With MCP_FIXTURE_BUGS unset (or "1") the bugs are
// in; with MCP_FIXTURE_BUGS=0 it is the same server, correct; a comma list of tool names puts
// in those tools' bugs only.
// - `file_info(path)`: asks the client for its roots (as server-filesystem does) and refuses any
//   path outside them ("Access denied - path outside allowed directories"), or one that does not
//   exist; outputSchema {path, bytes: number, kind}; the bug: a CSV file's `bytes` comes out as
//   a string, which the SDK refuses ("Output validation error").
// - `create_item(title)` -> {item_id, title}; `read_item(item_id)` -> {item_id, title, initial};
//   unknown ids are refused (isError); the bug: an item created with an empty title breaks
//   `read_item` (`title[0].toUpperCase()`, a TypeError the SDK wraps into isError).
// - `word_count(text)`: catches its own exceptions and answers "Error: <message>" as an
//   ordinary result (isError false); the bug: text with no word reads `undefined.length`.
// Run: `node reach.mjs` (after `npm ci` in this folder). stdout carries protocol only.
import { statSync } from "node:fs";
import { extname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const WANTED = process.env.MCP_FIXTURE_BUGS ?? "1";
const bug = (tool) => WANTED === "1" || WANTED.split(",").includes(tool);
const server = new McpServer({ name: "ts-reach", version: "1.0.0" });

function refuse(text) {
  return { content: [{ type: "text", text }], isError: true };
}

async function allowedFolders() {
  const { roots } = await server.server.listRoots();
  return roots.map((root) => fileURLToPath(root.uri));
}

server.registerTool(
  "file_info",
  {
    description: "Size and kind of a file inside the client's roots. `path`: the file's path.",
    inputSchema: { path: z.string() },
    outputSchema: { path: z.string(), bytes: z.number().int(), kind: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ path }) => {
    const folders = await allowedFolders();
    const target = resolve(path.startsWith("file://") ? fileURLToPath(path) : path);
    const inside = folders.some((folder) => {
      const rel = relative(folder, target);
      return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
    });
    if (!inside) return refuse("Access denied - path outside allowed directories");
    let stats;
    try {
      stats = statSync(target);
    } catch {
      return refuse(`No such file: ${path}`);
    }
    const kind = stats.isDirectory() ? "directory" : extname(target).slice(1) || "file";
    const bytes = bug("file_info") && kind === "csv" ? `${stats.size}` : stats.size;
    const structured = { path: target, bytes, kind };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

const items = new Map();
let made = 0;

server.registerTool(
  "create_item",
  {
    description: "Store an item; returns its new id.",
    inputSchema: { title: z.string() },
    outputSchema: { item_id: z.string(), title: z.string() },
    annotations: { destructiveHint: false },
  },
  async ({ title }) => {
    made += 1;
    const item = { item_id: `item-${made}`, title };
    items.set(item.item_id, item);
    return { content: [{ type: "text", text: JSON.stringify(item) }], structuredContent: item };
  },
);

server.registerTool(
  "read_item",
  {
    description: "An item by the id `create_item` returned, with its title's initial.",
    inputSchema: { item_id: z.string() },
    outputSchema: { item_id: z.string(), title: z.string(), initial: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ item_id }) => {
    const item = items.get(item_id);
    if (item === undefined) return refuse(`Item ${item_id} does not exist`);
    const initial = bug("read_item") ? item.title[0].toUpperCase() : (item.title[0] ?? "").toUpperCase();
    const structured = { ...item, initial };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

server.registerTool(
  "word_count",
  {
    description: "How many words a text has, and its longest word's length.",
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => {
    try {
      const words = text.split(/\s+/).filter((w) => w.length > 0);
      const longest = bug("word_count") ? words.sort((a, b) => b.length - a.length)[0].length : Math.max(0, ...words.map((w) => w.length));
      return { content: [{ type: "text", text: `${words.length} words; the longest has ${longest} letters.` }] };
    } catch (error) {
      // The style of many real servers: the error comes back as an ordinary result.
      return { content: [{ type: "text", text: `Error: ${error.message}` }] };
    }
  },
);

await server.connect(new StdioServerTransport());
