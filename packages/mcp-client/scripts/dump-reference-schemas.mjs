#!/usr/bin/env node
// Regenerates test/fixtures/server-*.tools.json from the real reference servers, so the schema
// tests run offline against what those servers actually send. Run from anywhere:
//   node packages/mcp-client/scripts/dump-reference-schemas.mjs
// It spawns each server over stdio with the official SDK client, declares every client capability
// (server-everything registers some tools only for clients that support roots, sampling,
// elicitation or tasks), waits until `notifications/tools/list_changed` stops arriving, then pages
// through `tools/list` and writes the full tool objects, sorted by name.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listAllTools } from "./list-all-tools.mjs";

const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixturesDirectory = join(packageDirectory, "test", "fixtures");
const localRequire = createRequire(join(packageDirectory, "package.json"));
const { Client } = localRequire("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = localRequire("@modelcontextprotocol/sdk/client/stdio.js");
const { ListRootsRequestSchema, ToolListChangedNotificationSchema } = localRequire(
  "@modelcontextprotocol/sdk/types.js",
);

/** How long `tools/list_changed` must stay quiet before the list counts as complete. */
const QUIET_MS = 1500;
/** Upper bound for the whole settling phase of one server. */
const SETTLE_LIMIT_MS = 15_000;

const CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

function serverBin(packageName) {
  const manifestPath = localRequire.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0];
  return { path: join(dirname(manifestPath), bin), version: manifest.version };
}

async function dump(packageName, extraArgs, fileName) {
  const bin = serverBin(packageName);
  const client = new Client(
    { name: "dump-reference-schemas", version: "0.0.0" },
    { capabilities: CAPABILITIES },
  );
  let lastChange = Date.now();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    lastChange = Date.now();
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin.path, ...extraArgs],
    stderr: "ignore",
  });
  await client.connect(transport);
  try {
    const started = Date.now();
    while (Date.now() - lastChange < QUIET_MS && Date.now() - started < SETTLE_LIMIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // List twice: a registration racing the first listing would show up as a difference.
    const first = await listAllTools(client);
    const second = await listAllTools(client);
    if (JSON.stringify(first) !== JSON.stringify(second)) {
      throw new Error(`${packageName}: the tool list was still changing after ${SETTLE_LIMIT_MS} ms`);
    }
    const tools = [...second].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const fixture = { server: packageName, version: bin.version, clientCapabilities: CAPABILITIES, tools };
    writeFileSync(join(fixturesDirectory, fileName), `${JSON.stringify(fixture, null, 2)}\n`);
    process.stdout.write(`${fileName}: ${tools.length} tools from ${packageName}@${bin.version}\n`);
  } finally {
    await client.close();
  }
}

const allowedDirectory = mkdtempSync(join(tmpdir(), "dump-reference-schemas-"));
try {
  await dump("@modelcontextprotocol/server-everything", ["stdio"], "server-everything.tools.json");
  await dump("@modelcontextprotocol/server-filesystem", [allowedDirectory], "server-filesystem.tools.json");
} finally {
  rmSync(allowedDirectory, { recursive: true, force: true });
}
