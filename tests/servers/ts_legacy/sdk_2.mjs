// The tools of sdk_tools.mjs on the TypeScript SDK 2.x's `McpServer`, published as
// @modelcontextprotocol/server (2.4.0, pinned in this folder's package.json).
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { serverName, tools } from "./sdk_tools.mjs";

const server = new McpServer({ name: serverName("ts-server2.4.0"), version: "1.0.0" });
for (const { name, description, argument, run } of tools) {
  const [key, type] = argument;
  const inputSchema = { [key]: type === "integer" ? z.number().int() : z.string() };
  server.registerTool(name, { description, inputSchema }, run);
}
await server.connect(new StdioServerTransport());
