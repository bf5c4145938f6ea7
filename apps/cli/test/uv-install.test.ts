import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePackageRunner } from "../src/packages/package-runner-command.js";
import { installWithUv } from "../src/packages/uv-install.js";

let directory = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agent-uv-install-"));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The arguments `uv` was run with: a stand-in on PATH records them, then fails as a missing package would. */
async function uvArguments(scripts: boolean): Promise<string[]> {
  const record = join(directory, "uv-args");
  const uv = join(directory, "uv");
  writeFileSync(
    uv,
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\necho 'error: no such package' >&2\nexit 2\n`,
  );
  chmodSync(uv, 0o755);
  mkdirSync(join(directory, "install"), { recursive: true });
  const plan = parsePackageRunner("uvx", ["mcp-server-fetch"]);
  if (plan.kind !== "package") throw new Error("expected a package-runner command");
  await expect(
    installWithUv({
      command: plan.command,
      dir: join(directory, "install"),
      cwd: directory,
      env: { PATH: `${directory}:/usr/bin:/bin` },
      scripts,
      refresh: false,
    }),
  ).rejects.toMatchObject({ code: "install_failed" });
  return readFileSync(record, "utf8").trimEnd().split("\n");
}

describe("installing a uvx server's package", () => {
  it("builds no source distribution (its build runs the package's code, outside the sandbox) unless installScripts allows it", async () => {
    expect(await uvArguments(false)).toContain("--no-build");
    expect(await uvArguments(true)).not.toContain("--no-build");
  });
});
