// Official TypeScript SDK server (McpServer, zod 4) whose tool `locate` has the outputSchema
// Claude Desktop/Code refuse: SDK 1.32.2 converts zod 4 with the draft-7 target, so the listed
// outputSchema declares "$schema": "http://json-schema.org/draft-07/schema#" and `z.tuple`
// becomes `items: [...]` (claude/output-dialect, claude/output-tuple-items; docs/clients.md).
// `echo` declares no outputSchema and follows every default rule, for contrast.
// Run: `node client_rules.mjs` (after `npm ci` in this folder). stdout carries protocol only.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-client-rules", version: "1.0.0" });

server.registerTool(
  "locate",
  {
    description: "Where a named place is, as a [lat, lon] pair.",
    inputSchema: { place: z.string() },
    outputSchema: { place: z.string(), point: z.tuple([z.number(), z.number()]) },
    annotations: { readOnlyHint: true },
  },
  async ({ place }) => {
    const structured = { place, point: [place.length % 90, place.length % 180] };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

server.registerTool(
  "echo",
  {
    description: "Echo the text back.",
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

await server.connect(new StdioServerTransport());
