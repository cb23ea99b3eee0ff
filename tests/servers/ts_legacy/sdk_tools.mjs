// The tools every TypeScript SDK generation fixture serves (sdk_1_0_1.mjs, sdk_1_32.mjs,
// sdk_2.mjs), written once: what differs between them on the wire is the SDK's doing.
// - `refuse_raise({limit})`: the tool's own code throws `new Error("limit must be at least 1")`
//   for a limit below 1;
// - `refuse_sdk({limit})`: the same refusal the SDK's way, an `isError: true` result;
// - `crash_key({key})`: a runtime crash, `Cannot read properties of undefined (reading
//   'text')`, for any key but "a";
// - `error_dict({name})`: an error returned as a result: the object `{error: "nothing is
//   open"}` as structured content, and as JSON text;
// - `ok({text})`: echoes its text.
// MCP_FIXTURE_LOG_TRACEBACKS=1: every tool writes its exception's stack to stderr
// (console.error) before throwing it on, as many published servers do.
// Each tool takes one argument, "integer" or "string": a server turns that into its SDK's
// schema (a zod shape, or JSON Schema for the low-level Server of SDK 1.0).

const LOG_TRACEBACKS = process.env.MCP_FIXTURE_LOG_TRACEBACKS === "1";
const NOTES = { a: { text: "first note" } };

const text = (value) => ({ content: [{ type: "text", text: value }] });

const logged = (name, run) =>
  LOG_TRACEBACKS
    ? async (args) => {
        try {
          return await run(args);
        } catch (error) {
          console.error(`tool ${name} failed: ${error.stack}`);
          throw error;
        }
      }
    : run;

const TOOLS = [
  {
    name: "refuse_raise",
    description: "Lists `limit` items; a limit below 1 is refused.",
    argument: ["limit", "integer"],
    run: async ({ limit }) => {
      if (limit < 1) throw new Error("limit must be at least 1");
      return text(`${limit} items`);
    },
  },
  {
    name: "refuse_sdk",
    description: "Lists `limit` items; a limit below 1 is refused.",
    argument: ["limit", "integer"],
    run: async ({ limit }) =>
      limit < 1 ? { ...text("limit must be at least 1"), isError: true } : text(`${limit} items`),
  },
  {
    name: "crash_key",
    description: "The note stored under `key`.",
    argument: ["key", "string"],
    run: async ({ key }) => text(NOTES[key].text), // THE BUG: undefined.text
  },
  {
    name: "error_dict",
    description: "Opens the document `name`.",
    argument: ["name", "string"],
    run: async () => {
      const answer = { error: "nothing is open" };
      return { ...text(JSON.stringify(answer)), structuredContent: answer };
    },
  },
  {
    name: "ok",
    description: "Echoes `text`.",
    argument: ["text", "string"],
    run: async ({ text: value }) => text(value),
  },
];

// The server's name: its SDK generation, and whether it logs stacks, so that one run can test
// every generation side by side.
export const serverName = (generation) => (LOG_TRACEBACKS ? `${generation}-logged` : generation);

export const tools = TOOLS.map((tool) => ({ ...tool, run: logged(tool.name, tool.run) }));
