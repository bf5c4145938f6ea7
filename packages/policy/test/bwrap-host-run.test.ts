// Files the host runs later (git's config and hooks, .envrc) kept read-only inside a write grant,
// including names that do not exist yet. Asserted from the host once the sandbox is gone: the file
// unchanged, the planted name absent.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createBwrapSandbox } from "@agent/policy/bwrap";
import { describe, expect, it, onTestFinished } from "vitest";
import { createWorld, eventually } from "./bwrap-helpers.js";

const GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n";

/** Runs `script` with sh in the workspace, granted write there, with `keepReadOnly`; resolves once disposed. */
async function runIn(world: ReturnType<typeof createWorld>, keepReadOnly: string[], script: string) {
  const launched = await createBwrapSandbox({ home: world.home, keepReadOnly })
    .confine({ network: "deny", write: [world.workspace], exposeLaunchPaths: false })
    .launch({
      command: "/bin/sh",
      args: ["-c", script],
      env: { PATH: "/usr/bin:/bin" },
      cwd: world.workspace,
    });
  try {
    return spawnSync(launched.command, launched.args, { env: launched.env, encoding: "utf8" });
  } finally {
    await launched.dispose();
  }
}

/** How many mount namespaces have a mount at `path`. */
function namespacesMounting(path: string): number {
  const namespaces = new Set<string>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const points = readFileSync(`/proc/${entry}/mountinfo`, "utf8")
        .split("\n")
        .map((line) => line.split(" ")[4]);
      if (points.includes(path)) namespaces.add(readlinkSync(`/proc/${entry}/ns/mnt`));
    } catch {
      // Gone while looking.
    }
  }
  return namespaces.size;
}

function hostRunNames(workspace: string): string[] {
  return [".git/config", ".git/hooks", ".envrc"].map((name) => join(workspace, name));
}

describe("bubblewrap: files the host runs later", () => {
  it("cannot change .git/config, plant a hook or an .envrc, or move .git aside", async () => {
    const world = createWorld();
    mkdirSync(join(world.workspace, ".git", "hooks"), { recursive: true });
    writeFileSync(join(world.workspace, ".git", "config"), GIT_CONFIG);
    const result = await runIn(
      world,
      hostRunNames(world.workspace),
      [
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
        "echo 'touch /tmp/pwned' > .git/hooks/post-checkout",
        "echo 'touch /tmp/pwned' > .envrc",
        "mv .git .git-aside",
        "echo done > ok.txt",
      ].join("; "),
    );
    expect(readFileSync(join(world.workspace, ".git", "config"), "utf8")).toBe(GIT_CONFIG);
    expect(existsSync(join(world.workspace, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(existsSync(join(world.workspace, ".envrc"))).toBe(false);
    expect(existsSync(join(world.workspace, ".git-aside"))).toBe(false);
    // The rest of the grant stays writable.
    expect(readFileSync(join(world.workspace, "ok.txt"), "utf8")).toBe("done\n");
    expect(result.status).toBe(0);
  });

  it("cannot create a .git (directory or gitdir file) where none exists, and leaves no trace of the reservation", async () => {
    const world = createWorld();
    await runIn(
      world,
      hostRunNames(world.workspace),
      "mkdir -p .git/hooks; printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config; rm -rf .git; echo 'gitdir: /tmp/x' > .git",
    );
    expect(existsSync(join(world.workspace, ".git"))).toBe(false);
    expect(existsSync(join(world.workspace, ".envrc"))).toBe(false);
  });

  it("keeps a worktree's .git file read-only where .git/config is asked for", async () => {
    const world = createWorld();
    const gitFile = join(world.workspace, ".git");
    writeFileSync(gitFile, "gitdir: /srv/repo/.git/worktrees/w\n");
    const result = await runIn(
      world,
      hostRunNames(world.workspace),
      "echo 'gitdir: /tmp/evil' > .git; echo ok > ok.txt",
    );
    expect(readFileSync(gitFile, "utf8")).toBe("gitdir: /srv/repo/.git/worktrees/w\n");
    expect(readFileSync(join(world.workspace, "ok.txt"), "utf8")).toBe("ok\n");
    expect(result.status).toBe(0);
  });

  it("does not remove a reservation another live sandbox still mounts", async () => {
    const world = createWorld();
    const envrc = join(world.workspace, ".envrc");
    const sandbox = createBwrapSandbox({ home: world.home, keepReadOnly: [envrc] });
    const confinement = sandbox.confine({
      network: "deny",
      write: [world.workspace],
      exposeLaunchPaths: false,
    });
    const start = async () => {
      const launched = await confinement.launch({
        command: "/bin/sleep",
        args: ["60"],
        env: { PATH: "/usr/bin:/bin" },
        cwd: world.workspace,
      });
      const child: ChildProcess = spawn(launched.command, launched.args, {
        env: launched.env,
        stdio: "ignore",
      });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const stop = async () => {
        child.kill("SIGKILL");
        await exited;
        await launched.dispose();
      };
      onTestFinished(stop);
      return {
        stop,
        mounted: () => readFileSync("/proc/self/mountinfo", "utf8") !== "" && child.pid !== undefined,
      };
    };
    const first = await start();
    await eventually(() => existsSync(envrc));
    const second = await start();
    await eventually(() => namespacesMounting(envrc) >= 2);
    await first.stop();
    expect(statSync(envrc).isDirectory()).toBe(true);
    await second.stop();
  });
});
