import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { StdioServerConfig } from "../src/config/index.js";
import { parsePackageRunner } from "../src/packages/package-runner-command.js";
import { type DenialEvidence, sandboxDenialOf } from "../src/runtime/sandbox-denial.js";
import { causeLines } from "../src/terminal/server-failure.js";

const NODE_MISSING_MODULE = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/srv/app/server.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at Module._load (node:internal/modules/cjs/loader:1051:27)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

describe("the cause lines of a server's stderr", () => {
  test("Node's missing module: the Cannot find module line, not the fields after it", () => {
    expect(causeLines(NODE_MISSING_MODULE)).toEqual(["Error: Cannot find module '/srv/app/server.js'"]);
  });

  test("a Python traceback: its last line", () => {
    const traceback = [
      "Traceback (most recent call last):",
      '  File "/srv/server.py", line 1, in <module>',
      "    import missing_dependency",
      "ModuleNotFoundError: No module named 'missing_dependency'",
    ].join("\n");
    expect(causeLines(traceback)).toEqual(["ModuleNotFoundError: No module named 'missing_dependency'"]);
  });

  test("nothing that names a cause: the last lines that are not noise; nothing at all: none", () => {
    expect(causeLines("starting\nlistening on stdio\n")).toEqual(["starting", "listening on stdio"]);
    expect(causeLines("")).toEqual([]);
  });
});

function evidence(
  overrides: Omit<Partial<DenialEvidence>, "server"> & { server?: Partial<StdioServerConfig> },
): DenialEvidence {
  const server: StdioServerConfig = {
    name: "s",
    type: "stdio",
    command: "node",
    args: ["server.js"],
    env: {},
    cwd: "/srv",
    sandbox: { network: "deny", write: [], read: [] },
    disabled: false,
    trust: "untrusted",
    ...overrides.server,
  };
  return {
    isolated: true,
    stderr: "",
    refused: [],
    error: { code: "mcp_initialize_failed", message: "connection closed" },
    home: "/home/user",
    protectedPaths: ["/srv/agent.config.json", "/srv/.agent"],
    packagePlan: parsePackageRunner(server.command, server.args),
    ...overrides,
    server,
  };
}

describe("what the sandbox denied a failed server", () => {
  test("a name it could not resolve, or a connection the proxy refused: the network key", () => {
    expect(
      sandboxDenialOf(evidence({ stderr: "Error: getaddrinfo EAI_AGAIN api.example.com" })),
    ).toMatchObject({
      kind: "network",
      target: "api.example.com",
      grant: "mcpServers.s.sandbox.network",
    });
    const refused = sandboxDenialOf(
      evidence({
        refused: ["uploads.example.com:443"],
        server: { sandbox: { network: { allowHosts: ["api.example.com"] }, write: [], read: [] } },
      }),
    );
    expect(refused?.message).toContain(
      "a connection to uploads.example.com:443 (it has only api.example.com)",
    );
    expect(refused?.message).toContain('add "uploads.example.com" to mcpServers.s.sandbox.network');
  });

  test("a file that exists here but is hidden inside: the read key; a read-only one: the write key", () => {
    const home = mkdtempSync(join(tmpdir(), "denial-home-"));
    try {
      const file = join(home, ".config.json");
      writeFileSync(file, "{}");
      const stderr = `Error: ENOENT: no such file or directory, open '${file}'`;
      expect(sandboxDenialOf(evidence({ stderr, home }))).toMatchObject({
        kind: "path",
        target: file,
        grant: "mcpServers.s.sandbox.read",
      });
      // Missing here too: the server's own problem.
      expect(
        sandboxDenialOf(evidence({ stderr: stderr.replace(".config", ".other"), home })),
      ).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(
      sandboxDenialOf(evidence({ stderr: "Error: EROFS: read-only file system, open '/srv/data/db.json'" })),
    ).toMatchObject({ kind: "path", target: "/srv/data/db.json", grant: "mcpServers.s.sandbox.write" });
  });

  test("the harness's own files are named as never granted", () => {
    const denial = sandboxDenialOf(
      evidence({ stderr: "Error: ENOENT: no such file or directory, open '/srv/.agent/state.db'" }),
    );
    expect(denial?.message).toContain("no grant shows it");
  });

  test("an unisolated server, or a failure that points nowhere, gets no denial", () => {
    expect(
      sandboxDenialOf(evidence({ isolated: false, stderr: "getaddrinfo EAI_AGAIN x.example" })),
    ).toBeUndefined();
    expect(sandboxDenialOf(evidence({ stderr: "TypeError: x is not a function" }))).toBeUndefined();
  });

  test("a silent timeout, and an npx command the cache cannot serve, say what the sandbox withholds", () => {
    expect(
      sandboxDenialOf(
        evidence({
          error: { code: "mcp_initialize_failed", message: "initialize timed out after 30000 ms." },
        }),
      )?.message,
    ).toContain("it wrote nothing before the timeout");
    const npx = sandboxDenialOf(evidence({ server: { command: "npx", args: ["-y", "./local"] } }));
    expect(npx?.message).toContain("npx runs as written inside the sandbox");
    expect(npx?.message).toContain("is not a registry package");
  });
});
