import {
  createFakeModelServer,
  type FakeModelServer,
  type FakeServerStep,
} from "@agent/models/testing/server";
import type { E2eSandbox, ServerEntry } from "./e2e-helpers.js";

/** The key the agent is given in these tests; it must never show in any output, event or state. */
export const TEST_API_KEY = "sk-test-key-7f3c9a1b";

/** The two wire APIs, each driven through its real adapter. */
export const PROVIDERS = ["openai", "anthropic"] as const;

/** One of {@link PROVIDERS}. */
export type Provider = (typeof PROVIDERS)[number];

/** The environment variable the default configuration reads the key from. */
export function keyVariable(provider: Provider): string {
  return provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
}

/**
 * Starts a fake model server with `steps` and writes a configuration whose `model` points at it,
 * with `mcpServers` and `policy` as given. Close the server when the test ends.
 */
export async function setUpAgent(
  sandbox: E2eSandbox,
  provider: Provider,
  steps: FakeServerStep[],
  config: {
    mcpServers?: Record<string, ServerEntry>;
    policy?: unknown;
    model?: Record<string, unknown>;
  } = {},
): Promise<FakeModelServer> {
  const server = await createFakeModelServer(steps);
  writeAgentConfig(sandbox, provider, server, config);
  return server;
}

/** (Re)writes the configuration for a fake model server. */
export function writeAgentConfig(
  sandbox: E2eSandbox,
  provider: Provider,
  server: FakeModelServer,
  config: { mcpServers?: Record<string, ServerEntry>; policy?: unknown; model?: Record<string, unknown> },
): void {
  const baseUrl = provider === "openai" ? server.openAiBaseUrl : server.anthropicBaseUrl;
  sandbox.writeConfig({
    model: { provider, name: "fake-model", baseUrl, ...config.model },
    ...(config.mcpServers ? { mcpServers: config.mcpServers } : {}),
    ...(config.policy ? { policy: config.policy } : {}),
  });
}

/** The environment an agent process gets: the key in the provider's default variable. */
export function agentEnv(provider: Provider): Record<string, string> {
  return { [keyVariable(provider)]: TEST_API_KEY };
}

/** The tool results the model received in request `index`, whatever the wire API: [tool call id or name, text]. */
export function toolResultsSent(server: FakeModelServer, index: number): string[] {
  const body = server.requests[index]?.body as { messages?: unknown[] } | undefined;
  const results: string[] = [];
  for (const message of body?.messages ?? []) {
    const record = message as Record<string, unknown>;
    if (record.role === "tool" && typeof record.content === "string") results.push(record.content);
    if (record.role === "user" && Array.isArray(record.content)) {
      for (const block of record.content as Record<string, unknown>[]) {
        if (block.type !== "tool_result") continue;
        const content = block.content;
        if (typeof content === "string") results.push(content);
        else if (Array.isArray(content)) {
          results.push((content as { text?: string }[]).map((part) => part.text ?? "").join(""));
        }
      }
    }
  }
  return results;
}

/** The tool names offered in request `index`, whatever the wire API. */
export function toolsOffered(server: FakeModelServer, index: number): string[] {
  const body = server.requests[index]?.body as { tools?: Record<string, unknown>[] } | undefined;
  return (body?.tools ?? []).map((tool) =>
    String((tool.function as { name?: string } | undefined)?.name ?? tool.name),
  );
}

/** A tool call of the fake model, to an MCP tool of server `s`. */
export function mcpCall(
  id: string,
  tool: string,
  input: unknown,
): { id: string; name: string; input: unknown } {
  return { id, name: `mcp__s__${tool}`, input };
}
