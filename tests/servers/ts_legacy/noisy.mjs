// Official TypeScript SDK server ("ts-noisy") whose tools write on stdout what is not JSON-RPC,
// as console.log does (microsoft/azure-devops-mcp#147, run-llama/mcp-server-llamacloud#5).
// - `lookup`: console.log of a text line while it runs;
// - `status`: console.log of JSON that is no JSON-RPC message ({"status": ...});
// - `spacer`: console.log() with no argument: a blank line;
// - `greet`: writes nothing but its answer.
// Run: `node noisy.mjs` (after `npm ci` in this folder).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-noisy", version: "1.0.0" });

const text = (t) => ({ content: [{ type: "text", text: t }] });

server.registerTool(
  "lookup",
  { description: "Look a word up.", inputSchema: { word: z.string() } },
  async ({ word }) => {
    console.log(`looking up ${word}`);
    return text(`${word}: found`);
  },
);

server.registerTool(
  "status",
  { description: "Report the status.", inputSchema: {} },
  async () => {
    console.log(JSON.stringify({ status: 200, message: "Success" }));
    return text("ok");
  },
);

server.registerTool(
  "spacer",
  { description: "Answer after a blank line.", inputSchema: {} },
  async () => {
    console.log();
    return text("spaced");
  },
);

server.registerTool(
  "greet",
  { description: "Greet someone.", inputSchema: { name: z.string() } },
  async ({ name }) => text(`Hello, ${name}.`),
);

await server.connect(new StdioServerTransport());
console.error("ts-noisy: listening on stdio");
