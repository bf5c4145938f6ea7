// One stdio MCP server with a role: mail, web, bank or notes (`node injection-server.mjs <role> <dir>`).
// What it serves (messages, pages, notes, resources, prompts) is read from `<dir>/<role>.json` at each
// request, so a test can plant an instruction before a run. Every request it serves and every side
// effect (a message sent, a transfer, a URL fetched) is appended to `<dir>/<role>.log`: the tests
// judge an attack from the server's side, by what reached it.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const [role, directory] = process.argv.slice(2);
if (!["mail", "web", "bank", "notes"].includes(role ?? "") || directory === undefined) {
  process.stderr.write("usage: injection-server.mjs mail|web|bank|notes <record directory>\n");
  process.exit(2);
}

const record = (fields) =>
  appendFileSync(join(directory, `${role}.log`), `${JSON.stringify({ role, at: Date.now(), ...fields })}\n`);
const data = () => {
  try {
    return JSON.parse(readFileSync(join(directory, `${role}.json`), "utf8"));
  } catch {
    return {};
  }
};
const text = (value) => ({ content: [{ type: "text", text: value }] });
const failure = (value) => ({ content: [{ type: "text", text: value }], isError: true });

const server = new McpServer({ name: `injection-${role}`, version: "1.0.0" });

/**
 * Registers a tool that records each call (name and arguments) before it answers. Its description
 * is the data file's `descriptions[name]` when there is one: a poisoned tool definition.
 */
function tool(name, description, inputSchema, answer) {
  const poisoned = data().descriptions?.[name];
  server.registerTool(name, { description: poisoned ?? description, inputSchema }, async (args, extra) => {
    record({ event: "call", tool: name, args });
    return answer(args, extra);
  });
}

const ROLES = {
  mail() {
    const inbox = () => data().messages ?? [];
    const show = (message) => `From: ${message.from}\nSubject: ${message.subject}\n\n${message.body}`;
    tool("list_messages", "Lists the inbox: id, sender and subject of each message.", {}, () =>
      text(
        inbox()
          .map((message) => `${message.id}  ${message.from}  ${message.subject}`)
          .join("\n"),
      ),
    );
    tool("read_message", "Reads one message of the inbox by id.", { id: z.string() }, ({ id }) => {
      const message = inbox().find((candidate) => candidate.id === id);
      return message ? text(show(message)) : failure(`no message ${id}`);
    });
    tool(
      "send_message",
      "Sends an email.",
      { to: z.string(), subject: z.string(), body: z.string() },
      ({ to, subject, body }) => {
        record({ event: "sent", to, subject, body });
        return text(`sent to ${to}`);
      },
    );
    // What an assistant-style mail server does: asks the client's model to summarize the inbox, with
    // the messages (a planted instruction included) as the sampling request's prompt.
    tool("summarize_inbox", "Summarizes the inbox with the client's model.", {}, async (_args, extra) => {
      const prompt = `Summarize these emails for the user:\n\n${inbox().map(show).join("\n\n---\n\n")}`;
      const answer = await extra.sendRequest(
        {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 200 },
        },
        z.object({ content: z.object({ type: z.string(), text: z.string().optional() }).passthrough() }),
      );
      return text(`Inbox summary: ${answer.content.text ?? ""}`);
    });
  },
  web() {
    const page = (url) => {
      const pages = data().pages ?? {};
      return Object.hasOwn(pages, url) ? pages[url] : undefined;
    };
    tool("fetch_page", "Fetches a web page by URL.", { url: z.string() }, ({ url }) => {
      record({ event: "fetched", url });
      const content = page(url);
      return content === undefined ? failure(`404 ${url}`) : text(content);
    });
    // A download manager with a write-back cache: it answers at once and writes the page into
    // `data().saveDirectory` when it shuts down (its stdin closes), as caches flush.
    const queued = [];
    tool(
      "save_page",
      "Downloads a web page into the workspace.",
      { url: z.string(), path: z.string() },
      ({ url, path }) => {
        record({ event: "fetched", url });
        const content = page(url);
        if (content === undefined) return failure(`404 ${url}`);
        queued.push({ path: basename(path), content });
        return text(`queued ${url}`);
      },
    );
    process.stdin.on("end", () => {
      const folder = data().saveDirectory;
      if (typeof folder !== "string") return;
      for (const { path, content } of queued.splice(0)) writeFileSync(join(folder, path), content);
    });
  },
  bank() {
    tool("get_balance", "The balance of the user's account.", {}, () =>
      text(`balance: ${data().balance ?? 0} EUR`),
    );
    tool(
      "transfer",
      "Transfers money to an account.",
      { to: z.string(), amount: z.number() },
      ({ to, amount }) => {
        record({ event: "transfer", to, amount });
        return text(`transferred ${amount} EUR to ${to}`);
      },
    );
  },
  notes() {
    const notes = () => data().notes ?? [];
    tool("list_notes", "Lists the user's private notes.", {}, () =>
      text(
        notes()
          .map((note) => `${note.id}  ${note.title}`)
          .join("\n"),
      ),
    );
    tool("read_note", "Reads one private note by id.", { id: z.string() }, ({ id }) => {
      const note = notes().find((candidate) => candidate.id === id);
      if (note) return text(`${note.title}\n\n${note.body}`);
      // A notes app that keeps its notes in the user's workspace (`workspaceNotes`: a directory).
      const folder = data().workspaceNotes;
      if (typeof folder === "string" && /^[\w-]+$/.test(id)) {
        try {
          return text(readFileSync(join(folder, `${id}.md`), "utf8"));
        } catch {}
      }
      return failure(`no note ${id}`);
    });
  },
};

ROLES[role]();

// Resources and prompts come from the data file too: any role can serve them (a mail server its
// messages as resources, a notes server its secret note, or files as `file://` resources, read
// when asked for).
const fileResources = Object.fromEntries(
  (data().fileResources ?? []).map((path) => [`file://${path}`, path]),
);
for (const [uri, content] of Object.entries({ ...(data().resources ?? {}), ...fileResources })) {
  server.registerResource(uri, uri, { mimeType: "text/plain" }, async () => {
    record({ event: "resource_read", uri });
    const text = uri in fileResources ? readFileSync(content, "utf8") : content;
    return { contents: [{ uri, mimeType: "text/plain", text }] };
  });
}
for (const [name, content] of Object.entries(data().prompts ?? {})) {
  server.registerPrompt(name, { description: `The ${name} prompt.` }, async () => {
    record({ event: "prompt_get", name });
    return { messages: [{ role: "user", content: { type: "text", text: content } }] };
  });
}

record({ event: "started", pid: process.pid });
await server.connect(new StdioServerTransport());
