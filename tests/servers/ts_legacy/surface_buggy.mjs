// Official TypeScript SDK server ("ts-surface-buggy"): the twin of surface_correct.mjs with one
// bug per entry, each of a kind real servers ship (issue 25). SURFACE_VERSION=1 (the default)
// or 2 picks one of two releases; only `stats` and `summarize` differ between them.
// Run: `SURFACE_VERSION=2 node surface_buggy.mjs`.
//
// Correct entries (they must pass): resource `readme`, prompt `summarize` within one version.
// Bugs, one per entry:
// - resource `logo`: `blob` is not base64 (the SDK sends it as it is);
// - resource `settings`: `application/json` whose text is a Python repr, not JSON;
// - resource `stats`: its JSON changes shape from version 1 to 2 (`visits` integer -> string,
//   `pages` array -> string);
// - template notes://{name}: the name `archived`, offered only by the `complete` callback (the
//   `list` callback leaves it out), crashes the read callback (TypeError);
// - prompt `translate`: crashes when its optional argument `tone` is absent (TypeError);
// - prompt `summarize`: its required argument `text` is renamed `content` in version 2;
// - prompt `attach_logo`: its message embeds a resource whose `blob` is not base64 (the SDK
//   validates tools/call results, which would refuse this, but not prompts/get results).
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const VERSION = process.env.SURFACE_VERSION ?? "1";
if (VERSION !== "1" && VERSION !== "2") {
  process.stderr.write(`SURFACE_VERSION must be 1 or 2, not ${JSON.stringify(VERSION)}\n`);
  process.exit(2);
}
const RESOURCE_NOT_FOUND = -32002;
// `archived` lost its body in a migration: the read callback does not expect that.
const NOTES = { groceries: { body: "- milk\n- bread\n" }, todo: { body: "- write tests\n" }, archived: {} };
const LISTED_NOTES = ["groceries", "todo"];

const server = new McpServer({ name: "ts-surface-buggy", version: `${VERSION}.0.0` });

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
  "readme",
  "file:///app/readme.md",
  { title: "Readme", description: "The project's readme.", mimeType: "text/markdown" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: "# Demo\n" }] }),
);

server.registerResource(
  "logo",
  "file:///app/logo.png",
  { title: "Logo", description: "The app's logo.", mimeType: "image/png" },
  // The bug: raw text where base64 belongs.
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: "<png bytes go here>" }] }),
);

server.registerResource(
  "settings",
  "file:///app/settings.json",
  { title: "Settings", description: "The user's settings.", mimeType: "application/json" },
  // The bug: a Python repr (single quotes, True) served as JSON.
  async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "application/json", text: "{'theme': 'dark', 'compact': True}" }],
  }),
);

server.registerResource(
  "stats",
  "file:///app/stats.json",
  { title: "Stats", description: "Visit statistics.", mimeType: "application/json" },
  async (uri) => {
    const stats = VERSION === "1" ? { visits: 3, pages: ["home", "about"] } : { visits: "3", pages: "home,about" };
    return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(stats) }] };
  },
);

server.registerResource(
  "note",
  new ResourceTemplate("notes://{name}", {
    list: async () => ({ resources: LISTED_NOTES.map((name) => ({ uri: `notes://${name}`, name: `note ${name}` })) }),
    complete: { name: (value) => Object.keys(NOTES).filter((name) => name.startsWith(value)) },
  }),
  { title: "Note", description: "A note by its name.", mimeType: "text/markdown" },
  async (uri, { name }) => {
    const note = Object.hasOwn(NOTES, name) ? NOTES[name] : undefined; // not __proto__'s
    if (note === undefined) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri.href} not found`);
    }
    return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: note.body.trim() + "\n" }] };
  },
);

server.registerPrompt(
  "translate",
  {
    title: "Translate",
    description: "Translate a text, in a tone if given.",
    argsSchema: { text: z.string().describe("The text."), tone: z.string().optional().describe("formal or casual.") },
  },
  // The bug: `tone` is optional in the schema, but the callback assumes it is there.
  ({ text, tone }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Translate (${tone.toLowerCase()}):\n${text}` } }],
  }),
);

const summarizeText = VERSION === "1" ? "text" : "content";
server.registerPrompt(
  "summarize",
  {
    title: "Summarize",
    description: "Summarize a text.",
    argsSchema: {
      [summarizeText]: z.string().describe("The text to summarize."),
      max_words: z.string().optional().describe("At most this many words."),
    },
  },
  (args) => ({
    messages: [
      {
        role: "user",
        content: { type: "text", text: `Summarize in ${args.max_words ?? "50"} words:\n${args[summarizeText]}` },
      },
    ],
  }),
);

server.registerPrompt(
  "attach_logo",
  { title: "Attach the logo", description: "Ask about the logo, attached." },
  () => ({
    messages: [
      { role: "user", content: { type: "text", text: "What does this logo show?" } },
      {
        role: "user",
        content: { type: "resource", resource: { uri: "file:///app/logo.png", mimeType: "image/png", blob: "<png bytes go here>" } },
      },
    ],
  }),
);

await server.connect(new StdioServerTransport());
