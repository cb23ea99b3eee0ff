// Official TypeScript SDK server ("ts-library"): correct prompts, resources and a resource
// template beside one tool, registered as SDK 1.32 users do (registerResource with a URI and
// with a ResourceTemplate, registerPrompt with a zod argsSchema: one required argument, one
// optional). Every listing entry follows the spec. Run: `node prompts_resources.mjs`.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-library", version: "1.0.0" });

server.registerTool(
  "echo",
  {
    description: "Echo the text back.",
    inputSchema: { text: z.string().describe("The text to echo.") },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

server.registerResource(
  "readme",
  "file:///docs/readme.md",
  { title: "Readme", description: "The project's readme.", mimeType: "text/markdown" },
  async (uri) => ({ contents: [{ uri: uri.href, text: "# Demo\n" }] }),
);

server.registerResource(
  "profile",
  new ResourceTemplate("users://{userId}/profile", { list: undefined }),
  { description: "A user's profile.", mimeType: "application/json" },
  async (uri, { userId }) => ({ contents: [{ uri: uri.href, text: JSON.stringify({ id: userId }) }] }),
);

server.registerPrompt(
  "review_code",
  {
    title: "Review code",
    description: "Ask for a review of a piece of code.",
    argsSchema: { code: z.string(), style: z.string().optional() },
  },
  ({ code, style }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Review (${style ?? "concise"}):\n${code}` } }],
  }),
);

await server.connect(new StdioServerTransport());
