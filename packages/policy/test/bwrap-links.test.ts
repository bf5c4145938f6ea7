// Protected names reached through a symbolic link: a bind pins the link's target, never the link,
// so a link inside a write grant refuses the launch. Asserted from the host: the link and what it
// points to are unchanged, nothing planted stands in their place.
import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { PolicyError } from "@agent/policy";
import { type BwrapSandboxOptions, type ConfinementGrants, createBwrapSandbox } from "@agent/policy/bwrap";
import { describe, expect, it } from "vitest";
import { createWorld } from "./bwrap-helpers.js";

const PLANT = `rm -rf "$1"; mkdir -p "$(dirname "$1")"; echo '{"policy":{"rules":[]}}' > "$1"`;

/** Runs the planting command in the sandbox, if it launches at all; the launch error's code otherwise. */
async function plant(options: BwrapSandboxOptions, grants: ConfinementGrants, target: string, cwd: string) {
  let launched: Awaited<ReturnType<ReturnType<ReturnType<typeof createBwrapSandbox>["confine"]>["launch"]>>;
  try {
    launched = await createBwrapSandbox(options)
      .confine(grants)
      .launch({
        command: "/bin/sh",
        args: ["-c", PLANT, "plant", target],
        env: { PATH: "/usr/bin:/bin" },
        cwd,
      });
  } catch (error) {
    return { launched: false, code: PolicyError.isInstance(error) ? error.code : String(error) };
  }
  try {
    spawnSync(launched.command, launched.args, { env: launched.env, encoding: "utf8" });
    return { launched: true };
  } finally {
    await launched.dispose();
  }
}

/** Moves `path` to `store` and leaves a symbolic link to it at `path` (`target`: how the link spells it). */
function replaceWithLink(path: string, store: string, target = store): void {
  renameSync(path, store);
  symlinkSync(target, path);
}

describe("bubblewrap: protected names that are symbolic links", () => {
  it("refuses to launch when the config file is a link inside a write grant; the link stays", async () => {
    const world = createWorld();
    const stored = join(world.root, "stored.config.json");
    replaceWithLink(world.configFile, stored);
    const outcome = await plant(
      { home: world.home, hide: [world.configFile, stored] },
      { network: "deny", write: [world.workspace] },
      world.configFile,
      world.workspace,
    );
    expect(readlinkSync(world.configFile)).toBe(stored);
    expect(readFileSync(world.configFile, "utf8")).toBe('{"policy":{}}');
    expect(outcome).toEqual({ launched: false, code: "replaceable_protected_link" });
  });

  it("refuses when a directory on the way to a launch file is a link inside a write grant", async () => {
    const world = createWorld();
    const tools = join(world.root, "tools");
    mkdirSync(tools);
    const script = join(tools, "server.mjs");
    writeFileSync(script, "// the server\n");
    const linked = join(world.workspace, "tools");
    symlinkSync(tools, linked);
    const outcome = await plant(
      { home: world.home, keepReadOnly: [join(linked, "server.mjs"), script] },
      { network: "deny", write: [world.workspace] },
      join(linked, "server.mjs"),
      world.workspace,
    );
    expect(lstatSync(linked).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(linked, "server.mjs"), "utf8")).toBe("// the server\n");
    expect(outcome).toEqual({ launched: false, code: "replaceable_protected_link" });
  });

  it("refuses when the state directory is a relative link inside a write grant", async () => {
    const world = createWorld();
    const stored = join(world.root, "stored-state");
    replaceWithLink(world.stateDir, stored, "../stored-state");
    const audit = join(world.stateDir, "audit.jsonl");
    const outcome = await plant(
      { home: world.home, hide: [world.stateDir, stored] },
      { network: "deny", write: [world.workspace] },
      audit,
      world.workspace,
    );
    expect(readlinkSync(world.stateDir)).toBe("../stored-state");
    expect(readFileSync(audit, "utf8")).toBe("");
    expect(outcome).toEqual({ launched: false, code: "replaceable_protected_link" });
  });

  it("launches when the link lies outside every write grant, and the link cannot be replaced", async () => {
    const world = createWorld();
    const project = join(world.root, "project");
    const stored = join(world.workspace, "stored.config.json");
    writeFileSync(stored, '{"policy":{}}');
    mkdirSync(project);
    const link = join(project, "agent.config.json");
    symlinkSync(stored, link);
    const outcome = await plant(
      { home: world.home, hide: [link, stored] },
      { network: "deny", write: [world.workspace] },
      link,
      world.workspace,
    );
    expect(readlinkSync(link)).toBe(stored);
    expect(readFileSync(stored, "utf8")).toBe('{"policy":{}}');
    expect(outcome).toEqual({ launched: true });
  });
});
