// The tools of sdk_tools.mjs on the TypeScript SDK 1.0.1 (an npm alias in this folder's
// package.json, "sdk-1.0.1"), whose only server is the low-level `Server`: the handler of
// tools/call dispatches by name, and what a tool throws is the SDK's to answer.
import { Server } from "sdk-1.0.1/server/index.js";
import { StdioServerTransport } from "sdk-1.0.1/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "sdk-1.0.1/types.js";
import { serverName, tools } from "./sdk_tools.mjs";

const server = new Server({ name: serverName("ts-sdk1.0.1"), version: "1.0.0" }, { capabilities: { tools: {} } });
const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tools.map(({ name, description, argument: [key, type] }) => ({
    name,
    description,
    inputSchema: { type: "object", properties: { [key]: { type } }, required: [key] },
  })),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) =>
  byName[request.params.name].run(request.params.arguments ?? {}),
);
await server.connect(new StdioServerTransport());
