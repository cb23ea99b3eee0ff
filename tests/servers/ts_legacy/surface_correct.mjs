// Official TypeScript SDK server ("ts-surface"): a whole surface of resources, resource templates
// and prompts, every entry correct, registered as SDK 1.32 users write them (issue 25). It must
// pass every check; its buggy twin is surface_buggy.mjs. Run: `node surface_correct.mjs`.
//
// - resources: JSON text, markdown text, a PNG blob (real base64, real PNG bytes);
// - template notes://{name}: a `list` callback (its notes appear in resources/list), a `complete`
//   callback for `name`, and the spec's "Resource not found" (-32002) for a name it does not
//   have: a refusal, not a crash;
// - template echo://{text}: reads any value (the SDK hands the callback the value still
//   percent-encoded, as it matched it in the URI);
// - prompts: one with a required and an optional `completable` argument, one without
//   arguments and two messages, one whose message embeds a resource and an image.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

// A 1x1 PNG: the bytes start with the PNG signature, so a magic-bytes check agrees with image/png.
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
// The SDK has no constant for it. The spec's resources page (2025-06-18, 2025-11-25) names
// -32002 for a missing resource; SEP-2164 moves it to -32602, what the SDK itself answers for
// a URI nothing matches. Either is a refusal.
const RESOURCE_NOT_FOUND = -32002;
const NOTES = { groceries: "- milk\n- bread\n", todo: "- write tests\n" };
const LANGUAGES = ["python", "typescript", "rust"];

const server = new McpServer({ name: "ts-surface", version: "1.0.0" });

server.registerTool(
  "echo",
  {
    description: "Echo the text back.",
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

server.registerResource(
  "config",
  "file:///app/config.json",
  { title: "Configuration", description: "The app's configuration.", mimeType: "application/json" },
  async (uri) => ({
    contents: [
      { uri: uri.href, mimeType: "application/json", text: JSON.stringify({ name: "demo", debug: false, retries: 3 }) },
    ],
  }),
);

server.registerResource(
  "guide",
  "file:///app/guide.md",
  { title: "Guide", description: "How to use the app.", mimeType: "text/markdown" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: "# Guide\n\nRun `demo`.\n" }] }),
);

server.registerResource(
  "logo",
  "file:///app/logo.png",
  { title: "Logo", description: "The app's logo.", mimeType: "image/png" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: PIXEL_PNG }] }),
);

server.registerResource(
  "note",
  new ResourceTemplate("notes://{name}", {
    list: async () => ({
      resources: Object.keys(NOTES).map((name) => ({ uri: `notes://${name}`, name: `note ${name}` })),
    }),
    complete: { name: (value) => Object.keys(NOTES).filter((name) => name.startsWith(value)) },
  }),
  { title: "Note", description: "A note by its name.", mimeType: "text/markdown" },
  async (uri, { name }) => {
    const text = Object.hasOwn(NOTES, name) ? NOTES[name] : undefined; // not __proto__'s
    if (text === undefined) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri.href} not found`);
    }
    return { contents: [{ uri: uri.href, mimeType: "text/markdown", text }] };
  },
);

server.registerResource(
  "echo",
  new ResourceTemplate("echo://{text}", { list: undefined }),
  { title: "Echo", description: "The text of the URI, read back.", mimeType: "text/plain" },
  async (uri, { text }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `echo: ${text}` }] }),
);

server.registerPrompt(
  "review_code",
  {
    title: "Review code",
    description: "Ask for a review of a piece of code.",
    argsSchema: {
      code: z.string().describe("The code to review."),
      language: completable(z.string().optional().describe("Its language."), (value) =>
        LANGUAGES.filter((language) => language.startsWith(value ?? "")),
      ),
    },
  },
  ({ code, language }) => ({
    messages: [
      { role: "user", content: { type: "text", text: `Review this ${language ?? "python"} code:\n${code}` } },
    ],
  }),
);

server.registerPrompt(
  "greet",
  { title: "Greet", description: "Start a friendly conversation." },
  () => ({
    messages: [
      { role: "user", content: { type: "text", text: "Hello!" } },
      { role: "assistant", content: { type: "text", text: "Hello, how can I help?" } },
    ],
  }),
);

server.registerPrompt(
  "explain_logo",
  {
    title: "Explain the logo",
    description: "Ask about the logo, with the guide and the image attached.",
    argsSchema: { question: z.string().describe("What to ask.") },
  },
  ({ question }) => ({
    messages: [
      { role: "user", content: { type: "text", text: question } },
      {
        role: "user",
        content: {
          type: "resource",
          resource: { uri: "file:///app/guide.md", mimeType: "text/markdown", text: "# Guide\n\nRun `demo`.\n" },
        },
      },
      { role: "user", content: { type: "image", data: PIXEL_PNG, mimeType: "image/png" } },
    ],
  }),
);

await server.connect(new StdioServerTransport());
