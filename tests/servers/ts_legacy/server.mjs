// Official TypeScript SDK server ("ts-legacy"): legacy `initialize` handshake only; `server/discover` is an error.
// Two zod-typed tools: `word_stats` (outputSchema + structuredContent) and `greet` (plain text only).
// Run: `node server.mjs` (after `npm ci` in this folder). Logs go to stderr; stdout carries protocol only.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-legacy", version: "1.0.0" });

server.registerTool(
  "word_stats",
  {
    description: "Count the words and characters of a text and report its longest word.",
    inputSchema: { text: z.string() },
    outputSchema: {
      words: z.number().int(),
      characters: z.number().int(),
      longest: z.string(),
    },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => {
    const words = text.split(/\s+/).filter((w) => w.length > 0);
    const longest = words.reduce((best, w) => (w.length > best.length ? w : best), "");
    const structured = { words: words.length, characters: [...text].length, longest };
    // structuredContent mirrored into a text block as JSON
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

server.registerTool(
  "greet",
  {
    description: "Greet someone, as plain text (no outputSchema).",
    inputSchema: { name: z.string(), excited: z.boolean().optional() },
  },
  async ({ name, excited }) => ({
    content: [{ type: "text", text: `Hello, ${name}${excited ? "!" : "."}` }],
  }),
);

await server.connect(new StdioServerTransport());
console.error("ts-legacy: listening on stdio");
