import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

// Everything a terminal, an editor or a log viewer may start a new line at.
// biome-ignore lint/suspicious/noControlCharactersInRegex: vertical tab and form feed break lines too.
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/;

/** The lines of `text` as any viewer may break them: none may be one a server wrote. */
function expectNoForgedLine(where: string, text: string): void {
  const forged = text.split(LINE_BREAKS).filter((line) => line.trimStart().startsWith("forged"));
  if (forged.length > 0) throw new Error(`${where} has a forged line:\n${text}`);
  // Not vacuous: the server's text is there, on the line of the field it belongs to.
  expect(text).toContain("forged  ready");
}

describe.concurrent("one-line fields stay on one line", () => {
  test("names, descriptions, reasons and error messages with line breaks cannot forge a listing line", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { defaults: { external: "allow" } },
      mcpServers: {
        forge: sandbox.misbehavingServer("forge", "forge-lines"),
        forgeinit: sandbox.misbehavingServer("forgeinit", "forge-lines", {
          env: { MCP_TESTING_FORGE_INITIALIZE: "1" },
        }),
      },
    });

    const list = await sandbox.run(["mcp", "list"]);
    const call = await sandbox.run(["call", "mcp__forge__ok"]);
    const unavailable = await sandbox.run(["call", "mcp__forgeinit__ok"]);

    expect(list.code).toBe(1);
    expectNoForgedLine("mcp list", list.stdout);
    expect(list.stdout).toMatch(
      /^forgeinit {2}failed {2}untrusted {2}mcp_initialize_failed: .*initialize failed\\nforged/m,
    );
    expect(list.stdout).toMatch(/^ {2}rejected bad\\nforged/m);
    expect(call.code).toBe(1);
    expectNoForgedLine("call", call.stderr);
    expect(call.stderr).toMatch(/^error: mcp_error: .*call failed\\nforged/m);
    expectNoForgedLine("call to a failed server", unavailable.stderr);
  });
});
