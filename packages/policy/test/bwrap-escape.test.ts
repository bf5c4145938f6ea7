// Servers that try to escape, each under the bubblewrap sandbox; every test asserts the safe outcome
// from the host's side (the file, the listener, the process table), not only what the server says.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { type ConfinementGrants, createBwrapSandbox, type ProxyDecision } from "@agent/policy/bwrap";
import { describe, expect, it, onTestFinished } from "vitest";
import { createWorld, eventually, processesWith, startEscapeServer } from "./bwrap-helpers.js";

// The escape server is a script of this repository, started as a configured server would be: its
// project stays readable (wherever the repository is, /tmp included), everything else as configured.
function sandboxFor(world: ReturnType<typeof createWorld>, limits = {}) {
  const sandbox = createBwrapSandbox({ home: world.home, hide: [world.configFile, world.stateDir], limits });
  return {
    ...sandbox,
    confine: (grants: ConfinementGrants) => sandbox.confine({ exposeScriptProjects: true, ...grants }),
  };
}

async function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.end("reached\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return {
    server,
    port: typeof address === "object" && address ? address.port : 0,
    connections: () => count,
  };
}

describe("bubblewrap: the file system", () => {
  it("hides the home directory: the canary cannot be read", async () => {
    const world = createWorld();
    const server = await startEscapeServer(sandboxFor(world).confine({ network: "deny" }), world);
    const outcome = await server.call("read", { path: world.canary });
    expect(outcome).toMatchObject({ ok: false });
    expect(JSON.stringify(outcome)).not.toContain("canary-secret");
  });

  it("reads the home only where a read grant says, and never writes there", async () => {
    const world = createWorld();
    const confinement = sandboxFor(world).confine({ network: "deny", read: [world.home] });
    const server = await startEscapeServer(confinement, world);
    expect(await server.call("read", { path: world.canary })).toEqual({ ok: true, content: "canary-secret" });
    expect(await server.call("write", { path: world.canary, content: "x" })).toMatchObject({ ok: false });
    expect(readFileSync(world.canary, "utf8")).toBe("canary-secret");
  });

  it("writes only to granted paths and its private /tmp", async () => {
    const world = createWorld();
    const confinement = sandboxFor(world).confine({
      network: "deny",
      read: [world.readOnly],
      write: [world.workspace],
    });
    const server = await startEscapeServer(confinement, world);
    expect(await server.call("write", { path: join(world.workspace, "out.txt"), content: "ok" })).toEqual({
      ok: true,
    });
    expect(readFileSync(join(world.workspace, "out.txt"), "utf8")).toBe("ok");

    const readOnlyTarget = join(world.readOnly, "note.txt");
    expect(await server.call("write", { path: readOnlyTarget, content: "changed" })).toMatchObject({
      ok: false,
      error: "EROFS",
    });
    expect(readFileSync(readOnlyTarget, "utf8")).toBe("read me");

    // The system is read-only; /tmp is the sandbox's own: what lands there never reaches the host.
    const stray = join(world.root, "stray.txt");
    expect(await server.call("write", { path: "/etc/agent-escape", content: "x" })).toMatchObject({
      ok: false,
    });
    await server.call("write", { path: stray, content: "x" });
    expect(existsSync("/etc/agent-escape")).toBe(false);
    expect(existsSync(stray)).toBe(false);
  });

  it("keeps the config file and the state directory out of reach, even inside a writable grant", async () => {
    const world = createWorld();
    const confinement = sandboxFor(world).confine({ network: "deny", write: [world.workspace] });
    const server = await startEscapeServer(confinement, world);
    expect(await server.call("read", { path: world.configFile })).toMatchObject({ ok: false });
    expect(
      await server.call("write", { path: world.configFile, content: '{"policy":{"rules":[]}}' }),
    ).toMatchObject({ ok: false });
    const audit = join(world.stateDir, "audit.jsonl");
    expect(await server.call("write", { path: audit, content: "forged\n" })).toMatchObject({ ok: false });
    expect(
      await server.call("write", { path: join(world.stateDir, "state.db"), content: "x" }),
    ).toMatchObject({
      ok: false,
    });
    expect(readFileSync(world.configFile, "utf8")).toBe('{"policy":{}}');
    expect(readFileSync(audit, "utf8")).toBe("");
    expect(existsSync(join(world.stateDir, "state.db"))).toBe(false);
  });

  it("cannot move aside a directory that holds a protected path deeper inside a writable grant", async () => {
    const world = createWorld();
    const project = join(world.workspace, "sub");
    const nestedConfig = join(project, "agent.config.json");
    mkdirSync(join(project, ".agent"), { recursive: true });
    writeFileSync(nestedConfig, '{"policy":{}}');
    const sandbox = createBwrapSandbox({ home: world.home, hide: [nestedConfig, join(project, ".agent")] });
    const server = await startEscapeServer(
      sandbox.confine({ network: "deny", write: [world.workspace], exposeScriptProjects: true }),
      world,
    );
    // Renaming the folder would let a fresh sub/agent.config.json appear where the host reads it.
    const moved = await server.call("rename", { from: project, to: join(world.workspace, "sub2") });
    expect(moved).toMatchObject({ ok: false });
    expect(existsSync(join(world.workspace, "sub2"))).toBe(false);
    expect(readFileSync(nestedConfig, "utf8")).toBe('{"policy":{}}');
  });

  it("cannot change, replace or move aside a file kept read-only inside a writable grant", async () => {
    const world = createWorld();
    const tools = join(world.workspace, "tools");
    const script = join(tools, "server.mjs");
    mkdirSync(tools);
    writeFileSync(script, "// the server a configuration runs\n");
    const sandbox = createBwrapSandbox({ home: world.home, keepReadOnly: [script] });
    const server = await startEscapeServer(
      sandbox.confine({ network: "deny", write: [world.workspace], exposeScriptProjects: true }),
      world,
    );
    const planted = join(world.workspace, "planted.mjs");
    expect(await server.call("write", { path: planted, content: "evil()\n" })).toEqual({ ok: true });
    expect(await server.call("write", { path: script, content: "evil()\n" })).toMatchObject({ ok: false });
    expect(await server.call("rename", { from: planted, to: script })).toMatchObject({ ok: false });
    expect(await server.call("rename", { from: script, to: join(tools, "old.mjs") })).toMatchObject({
      ok: false,
    });
    expect(await server.call("rename", { from: tools, to: join(world.workspace, "moved") })).toMatchObject({
      ok: false,
    });
    expect(readFileSync(script, "utf8")).toBe("// the server a configuration runs\n");
    expect(existsSync(join(world.workspace, "moved"))).toBe(false);
    // The rest of the grant stays writable.
    expect(readFileSync(planted, "utf8")).toBe("evil()\n");
  });

  it("exposes nothing of a command's own launch paths when told not to: a swapped link reveals no secret", async () => {
    const world = createWorld();
    // A folder the command was checked to run in, swapped for a link into the hidden home meanwhile.
    const secrets = join(world.home, "secrets");
    mkdirSync(secrets);
    writeFileSync(join(secrets, "canary.txt"), "canary-secret");
    const swapped = join(world.workspace, "sub");
    symlinkSync(secrets, swapped);
    const run = async (exposeLaunchPaths: boolean) => {
      const launched = await createBwrapSandbox({ home: world.home })
        .confine({ network: "deny", write: [world.workspace], exposeLaunchPaths })
        .launch({ command: "/bin/cat", args: ["canary.txt"], env: { PATH: "/usr/bin:/bin" }, cwd: swapped });
      try {
        return spawnSync(launched.command, launched.args, { env: launched.env, encoding: "utf8" });
      } finally {
        await launched.dispose();
      }
    };
    const guarded = await run(false);
    expect(guarded.status).not.toBe(0);
    expect(guarded.stdout).not.toContain("canary-secret");
    // What the option prevents: the launch path's bind follows the link.
    expect((await run(true)).stdout).toContain("canary-secret");
  });

  it("cannot remount the read-only system writable (capabilities are dropped, even for root)", async () => {
    const world = createWorld();
    const server = await startEscapeServer(
      sandboxFor(world).confine({ network: "deny", read: [world.readOnly] }),
      world,
    );
    const target = join(world.readOnly, "note.txt");
    const outcome = await server.call("remount", { path: target });
    expect(outcome.mountStatus).not.toBe(0);
    expect(outcome.written).toMatchObject({ ok: false });
    expect(readFileSync(target, "utf8")).toBe("read me");
  });
});

describe("bubblewrap: processes and resources", () => {
  it("leaves no setsid daemon behind once the server is closed", async () => {
    const world = createWorld();
    const server = await startEscapeServer(sandboxFor(world).confine({ network: "deny" }), world);
    const token = `agent-daemon-${process.pid}-${Date.now()}`;
    expect(await server.call("spawn_daemon", { token })).toEqual({ ok: true });
    await eventually(() => processesWith(token).length > 0);
    await server.transport.close();
    await eventually(() => processesWith(token).length === 0);
    expect(processesWith(token)).toEqual([]);
  });

  it("fills only its own size-limited /tmp", async () => {
    const world = createWorld();
    const limit = 1024 * 1024;
    const server = await startEscapeServer(
      sandboxFor(world, { tmpBytes: limit }).confine({ network: "deny" }),
      world,
    );
    const outcome = await server.call("fill", { path: "/tmp/fill", bytes: 64 * limit });
    const written = JSON.parse(String(outcome.stdout)) as { written: number; error?: string };
    expect(written.error).toBe("ENOSPC");
    expect(written.written).toBeLessThanOrEqual(limit);
    // The host's /tmp never saw it.
    expect(existsSync("/tmp/fill")).toBe(false);
  });

  it.each(["/dev/shm", "/run"])("fills only its own size-limited %s", async (directory) => {
    const world = createWorld();
    const limit = 1024 * 1024;
    const server = await startEscapeServer(
      sandboxFor(world, { tmpBytes: limit }).confine({ network: "deny" }),
      world,
    );
    const outcome = await server.call("fill", { path: `${directory}/agent-fill`, bytes: 64 * limit });
    const written = JSON.parse(String(outcome.stdout)) as { written: number; error?: string };
    expect(written.error).toBe("ENOSPC");
    expect(written.written).toBeLessThanOrEqual(limit);
    expect(existsSync(`${directory}/agent-fill`)).toBe(false);
  });

  it("cannot write into /dev itself, a tmpfs bubblewrap leaves unbounded", async () => {
    const world = createWorld();
    const server = await startEscapeServer(sandboxFor(world).confine({ network: "deny" }), world);
    expect(await server.call("write", { path: "/dev/agent-fill", content: "x" })).toEqual({
      ok: false,
      error: "EROFS",
    });
    // Device nodes still work on the read-only /dev.
    expect(await server.call("write", { path: "/dev/null", content: "x" })).toEqual({ ok: true });
  });

  it("cannot write a file past the size limit, even where it may write", async () => {
    const world = createWorld();
    const limit = 512 * 1024;
    const confinement = sandboxFor(world, { fileBytes: limit }).confine({
      network: "deny",
      write: [world.workspace],
    });
    const server = await startEscapeServer(confinement, world);
    const target = join(world.workspace, "big.bin");
    await server.call("fill", { path: target, bytes: 8 * limit });
    expect(statSync(target).size).toBeLessThanOrEqual(limit);
  });

  it("stops a fork bomb at the process limit", async (context) => {
    const world = createWorld();
    const sandbox = sandboxFor(world, { processes: 64 });
    const preflight = await sandbox.preflight();
    // RLIMIT_NPROC never applies to the host's root; as root only a pids cgroup bounds the count.
    const bounded = preflight.ok && (preflight.pidsCgroupParent !== undefined || process.getuid?.() !== 0);
    if (!bounded) context.skip("as root without a writable pids cgroup nothing bounds the process count");
    const server = await startEscapeServer(sandbox.confine({ network: "deny" }), world);
    // Bounded even if the limit failed: at most 500 sleeping children, all killed before it answers.
    const outcome = await server.call("fork_many", { count: 500 });
    expect(outcome.error).toBe("EAGAIN");
    expect(Number(outcome.started)).toBeLessThan(64);
  });
});

describe("bubblewrap: the network", () => {
  it("has no network with network none: a listener on the host's loopback sees nothing", async () => {
    const world = createWorld();
    const listener = await listen();
    const server = await startEscapeServer(sandboxFor(world).confine({ network: "deny" }), world);
    const outcome = await server.call("connect", { host: "127.0.0.1", port: listener.port });
    expect(outcome).toMatchObject({ ok: false });
    expect(listener.connections()).toBe(0);
  });

  it("cannot reach the host's unix sockets under /run, even with the network allowed", async () => {
    const world = createWorld();
    const path = `/run/agent-escape-${process.pid}-${Date.now()}.sock`;
    let connections = 0;
    const listener = createServer((socket) => {
      connections += 1;
      socket.end("reached\n");
    });
    await new Promise<void>((resolve) => listener.listen(path, resolve));
    onTestFinished(() => new Promise<void>((resolve) => listener.close(() => resolve())));
    const server = await startEscapeServer(sandboxFor(world).confine({ network: "allow" }), world);
    const outcome = await server.call("connect_unix", { path });
    expect(outcome).toMatchObject({ ok: false });
    expect(connections).toBe(0);
  });

  it("reaches an allowed host through the proxy and never a forbidden one", async () => {
    const world = createWorld();
    const allowed = await listen();
    const forbidden = await listen();
    const sandbox = createBwrapSandbox({
      home: world.home,
      hide: [world.configFile, world.stateDir],
      // Both names are served on loopback for the test.
      resolveHost: async (host) => {
        if (host === "allowed.test" || host === "forbidden.test") return "127.0.0.1";
        throw new Error(`unknown host ${host}`);
      },
    });
    const decisions: ProxyDecision[] = [];
    const confinement = sandbox.confine({
      exposeScriptProjects: true,
      // Loopback only with its port: both names resolve there.
      network: { allowHosts: [`allowed.test:${allowed.port}`] },
      onProxyDecision: (decision) => decisions.push(decision),
    });
    expect(confinement.sandbox.network).toEqual({ allowHosts: [`allowed.test:${allowed.port}`] });
    const server = await startEscapeServer(confinement, world);

    const tunnel = await server.call("proxy_connect", { host: "allowed.test", port: allowed.port });
    expect(String(tunnel.received)).toMatch(/^HTTP\/1\.1 200 /);
    expect(String(tunnel.received)).toContain("reached");
    expect(allowed.connections()).toBe(1);

    const refused = await server.call("proxy_connect", { host: "forbidden.test", port: forbidden.port });
    expect(String(refused.received)).toMatch(/^HTTP\/1\.1 403 /);
    const plain = await server.call("proxy_get", { url: `http://forbidden.test:${forbidden.port}/` });
    expect(String(plain.received)).toMatch(/^HTTP\/1\.1 403 /);
    // Around the proxy: the host's loopback is not reachable directly.
    expect(await server.call("connect", { host: "127.0.0.1", port: forbidden.port })).toMatchObject({
      ok: false,
    });
    expect(forbidden.connections()).toBe(0);

    const get = await server.call("proxy_get", { url: `http://allowed.test:${allowed.port}/` });
    expect(String(get.received)).toContain("reached");
    expect(allowed.connections()).toBe(2);
    expect(decisions).toEqual([
      { host: "allowed.test", port: allowed.port, allowed: true },
      { host: "forbidden.test", port: forbidden.port, allowed: false },
      { host: "forbidden.test", port: forbidden.port, allowed: false },
      { host: "allowed.test", port: allowed.port, allowed: true },
    ]);
  });
});

describe("bubblewrap: failing closed", () => {
  it("refuses to launch anything when bubblewrap is not where AGENT_BWRAP points", async () => {
    const world = createWorld();
    const sandbox = createBwrapSandbox({
      env: { ...process.env, AGENT_BWRAP: join(world.root, "no-bwrap") },
    });
    expect(await sandbox.preflight()).toMatchObject({
      ok: false,
      reason: expect.stringContaining("AGENT_BWRAP"),
    });
    const confinement = sandbox.confine({ network: "deny" });
    await expect(
      confinement.launch({ command: "true", args: [], env: {}, cwd: undefined }),
    ).rejects.toMatchObject({ code: "sandbox_unavailable", message: expect.stringContaining("sandbox") });
  });

  it("refuses, naming it, a command that is no executable file, instead of a bare exit code 1", async () => {
    const world = createWorld();
    const confinement = sandboxFor(world).confine({ network: "deny" });
    for (const command of [join(world.root, "no-such-server"), "no-such-program-on-path", "./missing"]) {
      await expect(
        confinement.launch({ command, args: [], env: { PATH: "/usr/bin:/bin" }, cwd: world.workspace }),
      ).rejects.toMatchObject({ code: "command_not_found", message: expect.stringContaining(command) });
    }
  });
});
