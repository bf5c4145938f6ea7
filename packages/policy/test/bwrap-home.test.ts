// What a server's own launch paths expose under the hidden home: a file its arguments name, or its
// package, never the home itself. Asserted by what the sandboxed process could print.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBwrapSandbox, type ProcessSpec } from "@agent/policy/bwrap";
import { describe, expect, it } from "vitest";
import { createWorld } from "./bwrap-helpers.js";

const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- planted";

/** A world whose home holds an SSH key, as a real home does. */
function homeWithKey() {
  const world = createWorld();
  mkdirSync(join(world.home, ".ssh"));
  const key = join(world.home, ".ssh", "id_rsa");
  writeFileSync(key, KEY);
  return { world, key };
}

async function runConfigured(home: string, spec: Omit<ProcessSpec, "env">) {
  const launched = await createBwrapSandbox({ home })
    .confine({ network: "deny", exposeScriptProjects: true })
    .launch({ ...spec, env: { PATH: "/usr/bin:/bin", HOME: home } });
  try {
    return spawnSync(launched.command, launched.args, { env: launched.env, encoding: "utf8" });
  } finally {
    await launched.dispose();
  }
}

describe("bubblewrap: a server's own files under the hidden home", () => {
  it("grants a file named in $HOME as that file alone: ~/.ssh stays hidden", async () => {
    const { world, key } = homeWithKey();
    const envFile = join(world.home, ".server.env");
    writeFileSync(envFile, "TOKEN=server-env");
    const result = await runConfigured(world.home, {
      command: "/bin/sh",
      args: ["-c", `cat "${envFile}"; cat "${key}"`, "--env-file", envFile],
      cwd: world.workspace,
    });
    expect(result.stdout).toContain("TOKEN=server-env");
    expect(result.stdout).not.toContain(KEY);
  });

  it("grants a script under a home with a ~/node_modules its package below the home, not the home", async () => {
    const { world, key } = homeWithKey();
    mkdirSync(join(world.home, "node_modules"));
    const project = join(world.home, "tools", "server");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "package.json"), "{}");
    writeFileSync(join(project, "lib.sh"), "echo library-loaded\n");
    const script = join(project, "server.sh");
    writeFileSync(script, `. "${join(project, "lib.sh")}"\ncat "${key}"\n`);
    const result = await runConfigured(world.home, { command: "/bin/sh", args: [script], cwd: world.home });
    expect(result.stdout).toContain("library-loaded");
    expect(result.stdout).not.toContain(KEY);
  });

  it("grants a loose script in the home itself alone, even when the server runs from the home", async () => {
    const { world, key } = homeWithKey();
    mkdirSync(join(world.home, "node_modules"));
    const script = join(world.home, "server.sh");
    writeFileSync(script, `echo started\ncat "${key}"\n`);
    const result = await runConfigured(world.home, { command: "/bin/sh", args: [script], cwd: world.home });
    expect(result.stdout).toContain("started");
    expect(result.stdout).not.toContain(KEY);
  });
});
