import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { echoSecretsHttpServerPath, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { describe, expect, onTestFinished } from "vitest";
import {
  type AgentResult,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

// A 5-digit env secret (under the old 6-character floor), an env secret given through ${VAR}, a
// header token, a token in the URL path and a query value, and a token-like stdio argument.
const SECRETS = {
  env: "48213",
  variable: "vAr-S3cret-9",
  header: "hdr-7Q2x",
  urlPath: "p4thT0ken9Zx81Lm2",
  query: "q-K3y-55",
  argument: "argT0ken4Hj2KdLq9x",
};

/** Each secret and each encoding a server might echo it in (as echoForms in @agent/mcp-testing). */
function forbiddenForms(): string[] {
  return Object.values(SECRETS).flatMap((value) => {
    const bytes = Buffer.from(value, "utf8");
    return [
      value,
      encodeURIComponent(value),
      [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
      bytes.toString("hex"),
      bytes.toString("base64").replace(/=+$/, ""),
      bytes.toString("base64url"),
    ];
  });
}

function expectNoSecret(where: string, text: string): void {
  for (const form of forbiddenForms()) {
    if (text.includes(form)) throw new Error(`${where} shows ${JSON.stringify(form)}:\n${text}`);
  }
}

/** Every file under the state directory, read as bytes. */
function stateFiles(root: string): { path: string; text: string }[] {
  const files: { path: string; text: string }[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) files.push(...stateFiles(path));
    else files.push({ path, text: readFileSync(path).toString("latin1") });
  }
  return files;
}

function hostileConfig(sandbox: E2eSandbox, httpUrl: string): Record<string, unknown> {
  const leaky = sandbox.misbehavingServer("leaky", "echo-secrets", {
    env: {
      API_TOKEN: SECRETS.env,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: expanded by the CLI.
      OTHER: "${E2E_VARIABLE}",
      MCP_TESTING_ECHO_VARIABLES: "API_TOKEN,OTHER",
    },
  });
  return {
    policy: {
      rules: [
        { tool: "mcp__leaky__*", decision: "allow" },
        { tool: "mcp__leaky__error_result", decision: "ask" },
      ],
    },
    mcpServers: {
      leaky: { ...leaky, args: [...(leaky.args as string[]), SECRETS.argument] },
      exits: sandbox.misbehavingServer("exits", "echo-secrets", {
        env: { API_TOKEN: SECRETS.env, MCP_TESTING_ECHO_EXIT: "1" },
      }),
      web: {
        type: "http",
        url: `${httpUrl}/${SECRETS.urlPath}?key=${SECRETS.query}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: expanded by the CLI.
        headers: { Authorization: "Bearer ${E2E_HEADER}" },
      },
      good: sandbox.scriptableServer("good"),
    },
  };
}

// One after the other: each test alone keeps a loaded machine busy (many CLI runs; 32 MiB of listing).
describe("no configured value is ever shown", () => {
  test("a server echoing its credentials in every encoding, everywhere, shows none of them", {
    timeout: E2E_TIMEOUT_MS * 3,
  }, async ({ sandbox }) => {
    const http = await startLoopbackHttpServer(echoSecretsHttpServerPath(), [], { path: "/mcp" });
    onTestFinished(() => http.kill());
    sandbox.writeConfig(hostileConfig(sandbox, http.url));
    const env = { E2E_VARIABLE: SECRETS.variable, E2E_HEADER: SECRETS.header };

    // Three rounds, each run concurrently: listings, then calls (which write the state), then the
    // commands that read what the calls left in the state directory.
    const rounds = [
      [
        ["mcp", "list"],
        ["mcp", "list", "--json"],
        ["tools", "--format", "json"],
        ["tools", "--format", "openai"],
      ],
      [
        ["call", "mcp__leaky__leak", "--json"],
        ["call", "mcp__leaky__leak"],
        ["call", "mcp__leaky__fail"],
        ["call", "mcp__leaky__fail", "--json"],
        ["call", "mcp__leaky__error_result", "--json"],
        ["call", "mcp__web__anything"],
        ["call", "mcp__exits__leak"],
      ],
      [["approvals", "list"], ["approvals", "list", "--json"], ["audit"], ["audit", "--json"]],
    ];
    const runs: [string, AgentResult][] = [];
    for (const round of rounds) {
      const results = await Promise.all(round.map((args) => sandbox.run(args, { env })));
      results.forEach((result, index) => {
        runs.push([(round[index] ?? []).join(" "), result]);
      });
    }

    for (const [command, result] of runs) {
      expectNoSecret(`stdout of ${command}`, result.stdout);
      expectNoSecret(`stderr of ${command}`, result.stderr);
    }
    for (const file of stateFiles(sandbox.stateDir)) expectNoSecret(file.path, file.text);

    // Not vacuous: the hostile servers did reach every path, and what they sent is there, redacted.
    const output = (command: string) => {
      const result = runs.find(([name]) => name === command)?.[1];
      return `${result?.stdout ?? ""}${result?.stderr ?? ""}`;
    };
    const listed = parseSingleJson(runs[1]?.[1].stdout ?? "") as {
      servers: {
        name: string;
        status: string;
        tools: { name: string; description: string }[];
        rejected: { remoteName: string; reason: string }[];
      }[];
    };
    expect(listed.servers.map((server) => [server.name, server.status])).toEqual([
      ["leaky", "ready"],
      ["exits", "failed"],
      ["web", "failed"],
      ["good", "ready"],
    ]);
    const leakTool = listed.servers[0]?.tools.find((tool) => tool.name === "mcp__leaky__leak");
    expect(leakTool?.description).toMatch(/^Leaks \[redacted\]/);
    // A tool named after a credential arrives redacted, so its name is invalid and it is rejected visibly.
    expect(listed.servers[0]?.rejected).toContainEqual({
      remoteName: "t_[redacted]",
      reason: expect.stringContaining("invalid_tool_name"),
    });
    expect(output("mcp list")).toMatch(/stderr: starting with credentials: \[redacted\]/);
    expect(output("call mcp__leaky__leak --json")).toContain("result [redacted]");
    expect(output("call mcp__leaky__fail")).toContain("failed [redacted]");
    expect(output("call mcp__web__anything")).toContain("[redacted]");
    expect(output("approvals list")).toContain("mcp__leaky__error_result");
    expect(output("audit --json")).toContain("tool_call_finished");
    expect(runs.find(([name]) => name === "call mcp__leaky__leak --json")?.[1].code).toBe(0);
  });

  test("a budget-busting server fails alone; the CLI stays alive and the other servers work", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { defaults: { external: "allow" } },
      mcpServers: {
        buster: sandbox.misbehavingServer("buster", "budget-buster"),
        good: sandbox.scriptableServer("good"),
      },
    });

    const listing = await sandbox.run(["mcp", "list", "--json"]);
    const call = await sandbox.run(["call", "mcp__good__echo", "--input", '{"message":"hi"}', "--json"]);

    expect(listing.signal).toBeNull();
    expect(listing.code).toBe(1);
    const { servers } = parseSingleJson(listing.stdout) as {
      servers: { name: string; status: string; error: { code: string } | null }[];
    };
    expect(servers).toEqual([
      expect.objectContaining({
        name: "buster",
        status: "failed",
        error: expect.objectContaining({ code: "mcp_tools_list_too_large" }),
      }),
      expect.objectContaining({ name: "good", status: "ready" }),
    ]);
    // Stopped within the budget (32 MiB: about 11 pages of 3 MB), not after a thousand pages.
    expect(sandbox.records("buster").filter((record) => record.event === "page").length).toBeLessThan(20);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("hi");
  });

  test("a credential too short to redact is refused before any server can echo it", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const SHORT = "Q7z";
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__leaky__*", decision: "allow" }] },
      mcpServers: {
        leaky: sandbox.misbehavingServer("leaky", "echo-secrets", {
          env: { API_TOKEN: SHORT, MCP_TESTING_ECHO_VARIABLES: "API_TOKEN" },
        }),
      },
    });
    const results = await Promise.all([
      sandbox.run(["call", "mcp__leaky__leak", "--json"]),
      sandbox.run(["mcp", "list"]),
    ]);
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "mcpServers.leaky.env.API_TOKEN: is a credential shorter than 4 characters",
      );
      expect(result.stdout + result.stderr).not.toContain(SHORT);
    }
    expect(sandbox.records("leaky")).toEqual([]);
  });
});
