#!/usr/bin/env node
// Captures the `tools/list` answers of popular MCP servers from npm into test/fixtures/corpus/, with
// their package names and versions, for the corpus test (test/schema-corpus.test.ts). The servers
// are NOT dependencies of this repository: install them into a directory outside it first, then
// point this script at that directory:
//   npm i --ignore-scripts --prefix /tmp/corpus <the packages of SERVERS below>
//   node packages/mcp-client/scripts/capture-corpus.mjs /tmp/corpus
// Each server runs over stdio with the official SDK client, in a temporary HOME, with a minimal
// environment holding dummy credentials only and every configurable endpoint pointed at a closed
// loopback port, so nothing it might contact is real. A server that fails to start is reported and
// skipped; the manifest lists what was captured.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listAllTools } from "./list-all-tools.mjs";

const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpusDirectory = join(packageDirectory, "test", "fixtures", "corpus");
const localRequire = createRequire(join(packageDirectory, "package.json"));
const { Client } = localRequire("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = localRequire("@modelcontextprotocol/sdk/client/stdio.js");
const { ListRootsRequestSchema } = localRequire("@modelcontextprotocol/sdk/types.js");

/** A closed port on loopback: any request a server makes there fails at once. */
const NOWHERE = "http://127.0.0.1:9";
const CAPTURE_TIMEOUT_MS = 60_000;

/**
 * The servers, each with what it needs to start and list its tools: arguments and environment as its
 * README documents them, with dummy tokens and loopback endpoints.
 */
const SERVERS = [
  { name: "@modelcontextprotocol/server-memory", env: { MEMORY_FILE_PATH: "$HOME/memory.jsonl" } },
  { name: "@modelcontextprotocol/server-sequential-thinking", env: { DISABLE_THOUGHT_LOGGING: "true" } },
  { name: "@modelcontextprotocol/server-puppeteer", env: { PUPPETEER_SKIP_DOWNLOAD: "1" } },
  { name: "@modelcontextprotocol/server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy-token" } },
  { name: "@modelcontextprotocol/server-brave-search", env: { BRAVE_API_KEY: "dummy-key" } },
  {
    name: "@modelcontextprotocol/server-slack",
    env: { SLACK_BOT_TOKEN: "xoxb-dummy", SLACK_TEAM_ID: "T0DUMMY" },
  },
  { name: "@modelcontextprotocol/server-postgres", args: ["postgresql://127.0.0.1:9/none"] },
  {
    name: "@modelcontextprotocol/server-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy-token", GITLAB_API_URL: `${NOWHERE}/api/v4` },
  },
  { name: "@modelcontextprotocol/server-google-maps", env: { GOOGLE_MAPS_API_KEY: "dummy-key" } },
  { name: "@modelcontextprotocol/server-redis", args: ["redis://127.0.0.1:9"] },
  { name: "@playwright/mcp", args: ["--headless", "--isolated"] },
  { name: "@upstash/context7-mcp", env: { CONTEXT7_API_KEY: "dummy-key" } },
  { name: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: "ntn_dummy", BASE_URL: NOWHERE } },
  { name: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: "fc-dummy", FIRECRAWL_API_URL: NOWHERE } },
  { name: "tavily-mcp", env: { TAVILY_API_KEY: "tvly-dummy" } },
  {
    name: "chrome-devtools-mcp",
    bin: "chrome-devtools-mcp",
    args: ["--headless", "--isolated", "--no-usage-statistics"],
    env: { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: "1", CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: "1" },
  },
  {
    name: "@supabase/mcp-server-supabase",
    args: ["--project-ref=dummyref", `--api-url=${NOWHERE}`],
    env: { SUPABASE_ACCESS_TOKEN: "sbp_dummy" },
  },
  { name: "mongodb-mcp-server", env: { MDB_MCP_TELEMETRY: "disabled", DO_NOT_TRACK: "1" } },
  {
    name: "@circleci/mcp-server-circleci",
    env: { CIRCLECI_TOKEN: "dummy-token", CIRCLECI_BASE_URL: NOWHERE },
  },
  {
    name: "@zereight/mcp-gitlab",
    bin: "mcp-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy-token", GITLAB_API_URL: `${NOWHERE}/api/v4` },
  },
  { name: "@wonderwhy-er/desktop-commander", bin: "desktop-commander", args: ["--no-onboarding"] },
  {
    name: "@sentry/mcp-server",
    bin: "sentry-mcp",
    args: ["--access-token=dummy-token", "--host=127.0.0.1:9"],
    env: { SENTRY_ACCESS_TOKEN: "dummy-token" },
  },
  { name: "@launchdarkly/mcp-server", args: ["start", "--api-key", "api-dummy", "--server-url", NOWHERE] },
  { name: "@azure-devops/mcp", args: ["dummy-org"] },
  {
    name: "@stripe/mcp",
    args: ["--tools=all", "--api-key=sk_test_dummy"],
    env: { STRIPE_SECRET_KEY: "sk_test_dummy" },
  },
];

function serverBin(prefix, server) {
  const manifestPath = join(prefix, "node_modules", server.name, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const bins = typeof manifest.bin === "string" ? { [server.name]: manifest.bin } : manifest.bin;
  const bin = server.bin ? bins[server.bin] : Object.values(bins)[0];
  return { path: join(dirname(manifestPath), bin), version: manifest.version };
}

function fileNameOf(name, version) {
  return `${name.replace(/^@/, "").replace("/", "__")}@${version}.tools.json`;
}

async function capture(prefix, server) {
  const bin = serverBin(prefix, server);
  const home = mkdtempSync(join(tmpdir(), "capture-corpus-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" };
  for (const [key, value] of Object.entries(server.env ?? {})) env[key] = value.replace("$HOME", home);
  const client = new Client({ name: "capture-corpus", version: "0.0.0" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${home}` }] }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin.path, ...(server.args ?? [])],
    env,
    cwd: home,
    stderr: "ignore",
  });
  const timer = new Promise((_, reject) =>
    setTimeout(
      () => reject(new Error(`no tool list within ${CAPTURE_TIMEOUT_MS} ms`)),
      CAPTURE_TIMEOUT_MS,
    ).unref(),
  );
  try {
    await Promise.race([client.connect(transport), timer]);
    const tools = await Promise.race([listAllTools(client), timer]);
    const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const fileName = fileNameOf(server.name, bin.version);
    const protocolVersion = transport._protocolVersion ?? client.getServerVersion?.()?.protocolVersion;
    const fixture = { server: server.name, version: bin.version, protocolVersion, tools: sorted };
    writeFileSync(join(corpusDirectory, fileName), `${JSON.stringify(fixture, null, 2)}\n`);
    return { server: server.name, version: bin.version, file: fileName, tools: sorted.length };
  } finally {
    await client.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
}

const prefix = process.argv[2];
if (!prefix) {
  process.stderr.write("usage: capture-corpus.mjs <npm prefix where the servers are installed>\n");
  process.exit(2);
}
mkdirSync(corpusDirectory, { recursive: true });
const captured = [];
for (const server of SERVERS) {
  try {
    const entry = await capture(prefix, server);
    captured.push(entry);
    process.stdout.write(`${entry.file}: ${entry.tools} tools\n`);
  } catch (error) {
    process.stdout.write(
      `${server.name}: skipped (${error instanceof Error ? error.message : String(error)})\n`,
    );
  }
}
const manifest = { capturedWith: "scripts/capture-corpus.mjs", servers: captured };
writeFileSync(join(corpusDirectory, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
process.exit(0);
