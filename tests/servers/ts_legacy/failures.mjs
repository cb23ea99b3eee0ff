// Official TypeScript SDK server ("ts-failures") whose failures the SDK wraps into isError
// results. With MCP_FIXTURE_BUGS unset (or "1") it has three planted bugs; with
// MCP_FIXTURE_BUGS=0 it is the same server, correct:
// - `price_quote`: outputSchema {quantity, total: number}; for quantity > 40 the bug returns a
//   string total, which the SDK refuses ("Output validation error: ...");
// - `initial`: reads `word[0].toUpperCase()`, a TypeError on the empty string;
// - `health`: no arguments, always throws (correct variant: answers "ok");
// - `lookup`: refuses every sku but "A-1" with an isError result of its own (a clean refusal).
// Run: `node failures.mjs` (after `npm ci` in this folder). stdout carries protocol only.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const BUGS = process.env.MCP_FIXTURE_BUGS !== "0";
const server = new McpServer({ name: "ts-failures", version: "1.0.0" });

server.registerTool(
  "price_quote",
  {
    description: "Price of `quantity` units at 2.50 each.",
    inputSchema: { quantity: z.number().int() },
    outputSchema: { quantity: z.number().int(), total: z.number() },
  },
  async ({ quantity }) => {
    const total = BUGS && quantity > 40 ? `${(quantity * 2.5).toFixed(2)} EUR` : quantity * 2.5;
    const structured = { quantity, total };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

server.registerTool(
  "initial",
  { description: "The first letter of a word, upper-cased.", inputSchema: { word: z.string() } },
  async ({ word }) => {
    const letter = BUGS ? word[0].toUpperCase() : (word[0] ?? "").toUpperCase();
    return { content: [{ type: "text", text: letter }] };
  },
);

server.registerTool(
  "health",
  { description: "Whether the service is up." },
  async () => {
    if (BUGS) {
      const pool = undefined;
      return { content: [{ type: "text", text: String(pool.size) }] };
    }
    return { content: [{ type: "text", text: "ok" }] };
  },
);

server.registerTool(
  "lookup",
  { description: "Look up a product by sku; unknown skus are refused.", inputSchema: { sku: z.string() } },
  async ({ sku }) => {
    if (sku !== "A-1") {
      return { content: [{ type: "text", text: `unknown sku: ${JSON.stringify(sku)}` }], isError: true };
    }
    return { content: [{ type: "text", text: "A-1: blue widget" }] };
  },
);

await server.connect(new StdioServerTransport());
console.error("ts-failures: listening on stdio");
