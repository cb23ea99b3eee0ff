// Official TypeScript SDK server ("export-roundtrip-ts") whose tools return JSON as text and
// declare no outputSchema, for the export round trip (tests/e2e/test_export.py): a run records
// their contracts, `mcp-contracts export --format zod` turns them into zod objects, and the test
// writes a second copy of this file with those objects pasted in place of the OUTPUT_SCHEMAS
// line below, each one the outputSchema of its tool, whose handler then also returns the value
// as structuredContent (the SDK refuses a declared tool's result without it).
//
// `lookup` takes an argument that varies its output (a validated contract: a strict zod object):
// a nested object that is sometimes null, an array of objects, a field present for some ids only,
// a date-time, and keys that are no identifiers (`first-name`) or are keywords (`class`).
// `status` takes no arguments (an inferred contract: a permissive zod object).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const OUTPUT_SCHEMAS = {};

const server = new McpServer({ name: "export-roundtrip-ts", version: "1.0.0" });

function reply(tool, value) {
  const content = [{ type: "text", text: JSON.stringify(value) }];
  return OUTPUT_SCHEMAS[tool] ? { content, structuredContent: value } : { content };
}

function declared(tool, config) {
  return OUTPUT_SCHEMAS[tool] ? { ...config, outputSchema: OUTPUT_SCHEMAS[tool] } : config;
}

server.registerTool(
  "lookup",
  declared("lookup", {
    description: "A user and their team, as JSON.",
    inputSchema: { user_id: z.number().int() },
  }),
  async ({ user_id }) => {
    const user = Math.abs(user_id) % 1000;
    const value = {
      id: user,
      "first-name": `user${user}`,
      class: ["admin", "member", "guest"][user % 3],
      score: user / 2 + 0.25,
      created: `2026-11-${String((user % 28) + 1).padStart(2, "0")}T10:00:00Z`,
      manager: user % 2 ? null : { id: user + 1, name: `boss${user + 1}` },
      teams: Array.from({ length: user % 3 }, (_, i) => ({ name: `team${i}`, size: i + 1 })),
    };
    if (user % 4 === 0) value.nickname = `u${user}`;
    return reply("lookup", value);
  },
);

server.registerTool(
  "status",
  declared("status", { description: "The service's status, as JSON.", inputSchema: {} }),
  async () => reply("status", { ok: true, version: "1.2.3", uptime: 42, regions: ["eu", "us"] }),
);

await server.connect(new StdioServerTransport());
console.error("export-roundtrip-ts: listening on stdio");
