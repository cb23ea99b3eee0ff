import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { z } from "zod";
const server = new McpServer({ name: "probe", version: "1.0.0" });
server.registerTool("echo", { inputSchema: { t: z.string() } }, async ({ t }) => ({ content: [{ type: "text", text: t }] }));
server.registerResource("bad", "file:///bad", {}, async (uri) => { throw new Error("disk gone"); });
server.registerResource("profile", new ResourceTemplate("users://{userId}/profile", { list: undefined, complete: { userId: (v) => ["alice", "bob"].filter((x) => x.startsWith(v)) } }), {},
  async (uri, { userId }) => { if (userId === "") throw new Error("empty"); return { contents: [{ uri: uri.href, text: String(userId).x.y }] }; });
server.registerPrompt("p", { argsSchema: { name: completable(z.string(), (v) => ["ann"]), style: z.string().optional() } },
  ({ name, style }) => ({ messages: [{ role: "user", content: { type: "text", text: style.toUpperCase() + name } }] }));
await server.connect(new StdioServerTransport());
