import { fileURLToPath } from "node:url";
import { startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { describe, expect, onTestFinished } from "vitest";
import { E2E_TIMEOUT_MS, observationOf, e2eTest as test } from "./e2e-helpers.js";

/** A loopback MCP endpoint behind a "proxy" that answers some paths with HTML error pages (see the file). */
const ERROR_PAGE_SERVER = fileURLToPath(new URL("./fixtures/error-page-server.mjs", import.meta.url));

// Raw control characters (the pages carry ESC, BEL and CR) and markup must never reach a line of output.
const RAW_CONTROL = /[\p{Cc}\p{Cf}]/u;
const MARKUP = /<\/?(?:html|body|h1|table|tr|td|script|style|center)\b/i;
// The excerpt is at most 200 characters; the status line and the CLI's own words around it are short.
const MAX_LINE = 400;

function expectSummarized(label: string, text: string): void {
  expect(text, label).not.toMatch(MARKUP);
  expect(text, label).not.toContain("window.retry");
  for (const line of text.split("\n")) {
    expect(line, label).not.toMatch(RAW_CONTROL);
    expect(line.length, `${label}: ${line}`).toBeLessThanOrEqual(MAX_LINE);
  }
}

describe.concurrent("HTTP error pages", () => {
  test("mcp list, call and the audit show one line: status, reason and a short escaped excerpt", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const http = await startLoopbackHttpServer(ERROR_PAGE_SERVER, []);
    onTestFinished(() => http.kill());
    const base = http.url.replace(/\/mcp$/, "");
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__flaky__echo", decision: "allow" }] },
      mcpServers: {
        down: { type: "http", url: `${base}/down/mcp` },
        missing: { type: "http", url: `${base}/missing/mcp` },
        flaky: { type: "http", url: `${base}/flaky/mcp` },
      },
    });

    const listed = await sandbox.run(["mcp", "list"]);
    expectSummarized("mcp list", listed.stdout + listed.stderr);
    const lines = listed.stdout.split("\n");
    const down = lines.filter((line) => line.startsWith("down "));
    expect(down).toHaveLength(1);
    expect(down[0]).toMatch(
      /failed .*the server answered HTTP 502 Bad Gateway: "502 Bad Gateway 502 Bad Gateway /,
    );
    expect(down[0]).toContain("\\x1b[31mconnect() failed\\x1b[0m");
    expect(down[0]).toMatch(/…"$/);
    const missing = lines.filter((line) => line.startsWith("missing "));
    expect(missing).toEqual([
      expect.stringMatching(
        /the server answered HTTP 404 Not Found: "Not Found The page \\x1b\]0;pwned\\x07 is gone\."$/,
      ),
    ]);
    expect(lines.some((line) => line.startsWith("flaky ") && line.includes("ready"))).toBe(true);

    const json = await sandbox.run(["mcp", "list", "--json"]);
    const servers = (JSON.parse(json.stdout) as { servers: { name: string; error?: { message: string } }[] })
      .servers;
    const downError = servers.find((server) => server.name === "down")?.error?.message ?? "";
    expect(downError).toContain("HTTP 502 Bad Gateway");
    expectSummarized("mcp list --json", downError);

    const called = await sandbox.run(["call", "mcp__flaky__echo", "--input", '{"message":"hi"}']);
    expect(called.code).toBe(1);
    expectSummarized("call", called.stdout + called.stderr);
    expect((called.stdout + called.stderr).trim().split("\n")).toEqual([
      expect.stringMatching(
        /^error: mcp_error: .*\(-32000\): the server answered HTTP 502 Bad Gateway: "502 Bad/,
      ),
    ]);
    const calledJson = await sandbox.run([
      "call",
      "mcp__flaky__echo",
      "--input",
      '{"message":"hi"}',
      "--json",
    ]);
    expect(observationOf(calledJson.stdout)).toMatchObject({ ok: false, error: "mcp_error", code: -32000 });

    const audit = await sandbox.run(["audit", "--json"]);
    expect(audit.stdout).not.toMatch(MARKUP);
    for (const line of audit.stdout.trim().split("\n")) {
      const { message } = JSON.parse(line) as { message?: unknown };
      if (typeof message === "string") expectSummarized("audit --json message", message);
    }
    const failures = sandbox
      .auditEvents()
      .filter((event) => event.type === "mcp_server_failed" && event.server === "down");
    expect(failures.length).toBeGreaterThan(0);
    // Short enough to be kept as text, not replaced by a size and digest as a large payload is.
    for (const event of failures)
      expect(event.message).toEqual(expect.stringContaining("HTTP 502 Bad Gateway"));
    const human = await sandbox.run(["audit"]);
    expectSummarized("audit", human.stdout);
  });
});
