import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { escapeServerPath } from "@agent/mcp-testing/servers";
import type { McpTransport } from "@agent/mcp-transport";
import { createStdioTransport, type StdioMcpTransport } from "@agent/mcp-transport/stdio";
import type { Confinement } from "@agent/policy/bwrap";
import { onTestFinished } from "vitest";
import { loadFactor } from "../../../vitest.shared.js";

/** A test's own little world: a home with a canary, a granted workspace, a config file and a state directory. */
export interface SandboxWorld {
  root: string;
  home: string;
  canary: string;
  workspace: string;
  /** Readable but not writable (granted as `read`). */
  readOnly: string;
  configFile: string;
  stateDir: string;
}

/** Creates a {@link SandboxWorld} under a fresh temporary directory, removed after the test. */
export function createWorld(): SandboxWorld {
  const root = mkdtempSync(join(tmpdir(), "bwrap-test-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  const readOnly = join(root, "read-only");
  const stateDir = join(workspace, ".agent");
  for (const directory of [home, workspace, readOnly, stateDir]) mkdirSync(directory, { recursive: true });
  const canary = join(home, "canary.txt");
  writeFileSync(canary, "canary-secret");
  writeFileSync(join(readOnly, "note.txt"), "read me");
  const configFile = join(workspace, "agent.config.json");
  writeFileSync(configFile, '{"policy":{}}');
  writeFileSync(join(stateDir, "audit.jsonl"), "");
  return { root, home, canary, workspace, readOnly, configFile, stateDir };
}

/** Starts the escape server through `confinement` and completes the handshake; closed after the test. */
export async function startEscapeServer(
  confinement: Confinement,
  world: SandboxWorld,
): Promise<EscapeServer> {
  const transport = createStdioTransport({
    command: process.execPath,
    args: [escapeServerPath()],
    cwd: world.workspace,
    env: { HOME: world.home },
    launch: (spec) => confinement.launch(spec),
  });
  onTestFinished(() => transport.close());
  const response = await transport.request(
    "initialize",
    { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bwrap-tests", version: "0" } },
    { signal: new AbortController().signal, timeoutMs: 20_000 },
  );
  if (!response.ok) {
    throw new Error(`initialize failed: ${response.error.message}\n${transport.stderrTail()}`);
  }
  await transport.notify("notifications/initialized");
  return new EscapeServer(transport);
}

/** The escape server's tools, each returning the JSON its tool answered. */
export class EscapeServer {
  constructor(readonly transport: StdioMcpTransport) {}

  /** Calls `name` and parses the JSON text it answers. */
  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await (this.transport as McpTransport).request(
      "tools/call",
      { name, arguments: args },
      { signal: new AbortController().signal, timeoutMs: 20_000 },
    );
    if (!response.ok) throw new Error(`${name} failed: ${response.error.message}`);
    const [block] = (response.result as { content: { text: string }[] }).content;
    return JSON.parse(block?.text ?? "null") as Record<string, unknown>;
  }
}

/** Host pids of processes whose command line contains `token`. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(token)) found.push(Number(entry));
    } catch {
      // Gone while looking.
    }
  }
  return found;
}

/** Polls `probe` until it is true, failing after `timeoutMs` (a bound on waiting, not a timing assertion). */
export async function eventually(
  probe: () => boolean,
  timeoutMs = Math.round(10_000 * loadFactor()),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
