import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../../scripts/link-agent.sh", import.meta.url));
const NOBODY = 65534;

let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agent-link-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A checkout holding the script and a built CLI (mode 0644), under `parent` of the test's directory. */
function checkout(parent = root): { repository: string; bin: string } {
  const repository = join(parent, "repo");
  mkdirSync(join(repository, "scripts"), { recursive: true });
  mkdirSync(join(repository, "apps", "cli", "dist"), { recursive: true });
  copyFileSync(SCRIPT, join(repository, "scripts", "link-agent.sh"));
  const bin = join(repository, "apps", "cli", "dist", "bin.js");
  writeFileSync(bin, "#!/usr/bin/env node\n", { mode: 0o644 });
  chmodSync(bin, 0o644);
  return { repository, bin };
}

function link(repository: string): { status: number | null; stderr: string; link: string } {
  const linkDir = join(root, "bin");
  const run = spawnSync("bash", [join(repository, "scripts", "link-agent.sh")], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", AGENT_LINK_DIR: linkDir },
  });
  return { status: run.status, stderr: run.stderr, link: join(linkDir, "agent") };
}

describe.skipIf(process.getuid?.() !== 0)("scripts/link-agent.sh run as root", () => {
  it("links a checkout only root can change", () => {
    const { repository, bin } = checkout();
    const result = link(repository);
    expect(result.status, result.stderr).toBe(0);
    expect(readlinkSync(result.link)).toBe(bin);
  });

  it("links nothing, and changes nothing, when another user may change the checkout's code", () => {
    const { repository, bin } = checkout();
    chownSync(join(repository, "apps", "cli", "dist"), NOBODY, NOBODY);
    const result = link(repository);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("not linked as root");
    expect(existsSync(result.link)).toBe(false);
    expect(statSync(bin).mode & 0o777).toBe(0o644);
  });

  it("links nothing when a directory above the checkout is writable by anyone and not sticky", () => {
    const shared = join(root, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const { repository } = checkout(shared);
    const result = link(repository);
    expect(result.stderr).toContain(`someone other than root may change ${shared}`);
    expect(existsSync(result.link)).toBe(false);
  });
});
