// The tools of sdk_tools.mjs on the TypeScript SDK 1.x's `McpServer` (the version this
// folder's package.json pins as @modelcontextprotocol/sdk, 1.32.2).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { serverName, tools } from "./sdk_tools.mjs";

const server = new McpServer({ name: serverName("ts-sdk1.32.2"), version: "1.0.0" });
for (const { name, description, argument, run } of tools) {
  const [key, type] = argument;
  const inputSchema = { [key]: type === "integer" ? z.number().int() : z.string() };
  server.registerTool(name, { description, inputSchema }, run);
}
await server.connect(new StdioServerTransport());
