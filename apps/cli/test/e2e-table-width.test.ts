import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, type E2eSandbox, e2eTest as test, waitingIds } from "./e2e-helpers.js";

const LONG = `Looks things up in every index it knows of, ${"then some more, ".repeat(20)}and reports.`;
const WIDTHS = [80, 100, 120, 200];
const QUERY_SCHEMA = { type: "object", properties: { query: { type: "string" } }, required: ["query"] };

/** A state with held, approved and finished calls, so every listing has long rows to fit. */
async function busyState(sandbox: E2eSandbox): Promise<void> {
  sandbox.writeConfig({
    mcpServers: {
      s: sandbox.scriptableServer("s", {
        tools: [{ name: "lookup", description: LONG, inputSchema: QUERY_SCHEMA, result: "found" }],
      }),
    },
  });
  const hold = async (query: string) =>
    waitingIds(
      (
        await sandbox.run([
          "call",
          "mcp__s__lookup",
          "--input",
          JSON.stringify({ query: query.repeat(40) }),
          "--json",
        ])
      ).stdout,
    );
  const [approved] = await Promise.all([hold("first "), hold("second "), hold("third ")]);
  expect((await sandbox.run(["approvals", "approve", String(approved?.requestId)])).code).toBe(0);
  expect((await sandbox.run(["resume", String(approved?.runId)])).code).toBe(0);
}

function expectFits(label: string, stdout: string, width: number): void {
  const lines = stdout.trimEnd().split("\n");
  expect(lines.length, label).toBeGreaterThan(1);
  for (const line of lines) expect(line.length, `${label} at ${width}: ${line}`).toBeLessThanOrEqual(width);
}

describe("tables fit the terminal width", () => {
  test("approvals list, runs list, audit, tools and mcp list: no line wider than COLUMNS, cut with …", {
    timeout: E2E_TIMEOUT_MS * 2,
  }, async ({ sandbox }) => {
    await busyState(sandbox);
    for (const width of WIDTHS) {
      const env = { COLUMNS: String(width) };
      const [approvals, runs, audit, tools, listed] = await Promise.all([
        sandbox.run(["approvals", "list"], { env }),
        sandbox.run(["runs", "list"], { env }),
        sandbox.run(["audit"], { env }),
        sandbox.run(["tools"], { env }),
        sandbox.run(["mcp", "list"], { env }),
      ]);
      for (const result of [approvals, runs, audit, tools, listed])
        expect(result.code, result.stderr).toBe(0);
      expectFits("approvals list", approvals.stdout, width);
      expectFits("runs list", runs.stdout, width);
      expectFits("audit", audit.stdout, width);
      expectFits("tools", tools.stdout, width);
      // mcp list: the tool table's rows (the lines about each server are sentences, not rows).
      const tableRows = listed.stdout.split("\n").filter((line) => /^ {2}(TOOL|mcp__|read_file)/.test(line));
      expect(tableRows.length).toBeGreaterThan(0);
      expectFits("mcp list", tableRows.join("\n"), width);

      // The ids to act on and the free text stay, whatever the width; the free text is cut, not wrapped.
      const [header, ...rows] = approvals.stdout.trimEnd().split("\n");
      expect(header).toMatch(/^ID +STATUS .*SUMMARY$/);
      for (const row of rows) expect(row).toMatch(/^apr_\S+ +(pending|consumed) /);
      expect(rows.some((row) => row.endsWith("…"))).toBe(true);
      expect(runs.stdout.split("\n")[0]).toMatch(/^RUN +KIND +STATUS .*PROMPT \/ TOOL$/);
      expect(tools.stdout).toMatch(/mcp__s__lookup .*Looks things up.*…/);
    }

    // Wide enough, nothing is left out.
    const wide = await sandbox.run(["approvals", "list"], { env: { COLUMNS: "300" } });
    expect(wide.stdout.split("\n")[0]).toMatch(/^ID +STATUS +RUN +TOOL +CREATED +SUMMARY$/);
    // Without a terminal or COLUMNS (a pipe), rows are not cut: scripts get every column whole.
    const piped = await sandbox.run(["approvals", "list"]);
    expect(piped.stdout.split("\n")[0]).toMatch(/^ID +STATUS +RUN +TOOL +CREATED +SUMMARY$/);
  });
});
