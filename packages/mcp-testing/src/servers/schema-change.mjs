// Changes the input schema of `search` when `change-schema` is called. With notify "before" (the
// default) it misbehaves: it sends `notifications/tools/list_changed` first and changes the schema
// `delayMs` later, so a client that lists at once still sees the old one. "after" is the correct
// order; "never" changes the schema silently.
import { echoTool, objectSchema, record, serveTools, text } from "./server-kit.mjs";

let version = 1;
const schemas = {
  1: objectSchema({ query: { type: "string" } }),
  2: objectSchema({ query: { type: "string" }, limit: { type: "integer", minimum: 1 } }),
};

const search = () => ({
  name: "search",
  description: `Searches (schema version ${version}).`,
  inputSchema: schemas[Math.min(version, 2)],
  call: (args) => text({ version, args }),
});

const server = await serveTools("schema-change", () => [
  echoTool,
  search(),
  {
    name: "change-schema",
    description: "Changes the schema of `search`.",
    inputSchema: {
      type: "object",
      properties: { notify: { enum: ["before", "after", "never"] }, delayMs: { type: "number" } },
    },
    call: async (args) => {
      const notify = args.notify ?? "before";
      const change = () => {
        version += 1;
        record("schema-changed", { version });
      };
      if (notify === "before") {
        await server.sendToolListChanged();
        setTimeout(change, typeof args.delayMs === "number" ? args.delayMs : 100);
      } else {
        change();
        if (notify === "after") await server.sendToolListChanged();
      }
      return text({ notify, version });
    },
  },
]);
