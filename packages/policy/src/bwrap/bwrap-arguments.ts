// The bubblewrap command line. Order matters: bwrap applies mounts in argument order, so later
// mounts cover earlier ones. The protected paths come last, so no `read` or `write` grant can
// uncover them; a protected name reached through a link inside a write grant refuses the launch.
// Change this file only with the escape tests in test/bwrap-escape.test.ts (and bwrap-links,
// bwrap-home, bwrap-host-run beside it).
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isSameOrInside, realOrSelf } from "./host-paths.js";
import { refuseReplaceableLinks } from "./replaceable-links.js";
import { namesToReserve } from "./reserved-names.js";
import type { SandboxProfile } from "./sandbox-profile.js";

/** Where the network proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET_IN_SANDBOX = "/tmp/.agent-sandbox/proxy.sock";

/** The loopback port inside the sandbox's own network namespace where the forwarder listens. */
export const PROXY_PORT_IN_SANDBOX = 3128;

/** How the allow-listing proxy is reached from inside: its socket, and the forwarder that exposes it on loopback. */
export interface ProxyBridge {
  /** The proxy's unix socket on the host. */
  socketPath: string;
  /** The Node binary that runs the forwarder inside the sandbox. */
  node: string;
  /** The forwarder script (`proxy-forwarder.mjs`). */
  forwarder: string;
}

/** Everything one bwrap command line is made of. */
export interface BwrapInvocation {
  bwrap: string;
  /** `prlimit` from util-linux, to set the resource limits; without it no rlimit is set. */
  prlimit: string | undefined;
  profile: SandboxProfile;
  command: string;
  args: readonly string[];
  cwd: string | undefined;
  /** Needed exactly when the profile's network is an allow-list. */
  proxy?: ProxyBridge;
}

/** What runs a process inside bubblewrap. */
export interface BwrapCommand {
  command: string;
  args: string[];
  /**
   * Names kept read-only that did not exist: bwrap creates an empty directory at each on the host to
   * mount over. A confinement's `dispose` removes them again once the process has exited.
   */
  reserved: string[];
}

/** The program and arguments that run `command` inside bubblewrap under `profile`. */
export function buildBwrapCommand(invocation: BwrapInvocation): BwrapCommand {
  const { profile } = invocation;
  const args: string[] = [
    ...isolationArguments(profile.network === "allow", profile.limits.tmpBytes),
    // Sockets are not files: a read-only bind still lets a process connect() to the host's
    // D-Bus session (systemd-run runs anything outside), docker.sock or a database's socket. /run
    // is where they live; an empty one replaces it (and /var/run, a link to it or a directory).
    ...runtimeDirectoryMounts(profile.limits.tmpBytes),
  ];
  const home = realOrSelf(profile.home);
  const hidesHome = home !== "/";
  if (hidesHome) args.push(...sizedTmpfs(profile.limits.tmpBytes, home));

  const read = existingRealPaths(profile.read);
  const write = existingRealPaths(profile.write);
  for (const path of read) args.push("--ro-bind", path, path);
  for (const path of write) args.push("--bind", path, path);

  refuseReplaceableLinks([...profile.hide, ...(profile.keepReadOnly ?? [])], write);

  const exposed = [...read, ...write];
  const isVisible = (path: string): boolean =>
    exposed.some((root) => isSameOrInside(root, path)) ||
    (!isSameOrInside("/tmp", path) && !(hidesHome && isSameOrInside(home, path)));
  const hidden = existingRealPaths(profile.hide).filter(isVisible);
  const insideWrite = (path: string): boolean => write.some((root) => isSameOrInside(root, path));
  const { reserve: reserved, keep } = namesToReserve(profile.keepReadOnly ?? [], write);
  const keptReadOnly = [
    ...new Set([...existingRealPaths(profile.keepReadOnly ?? []).filter(insideWrite), ...keep]),
  ];
  // A hidden or read-only path is a mount point, which cannot be renamed, but the directories above
  // it can: `mv sub sub2; mkdir sub` would put a fresh, writable `sub/agent.config.json` where the
  // host looks. Each directory between a write grant and such a path becomes a mount point of its own.
  const pinned = new Set<string>();
  for (const path of [...hidden, ...keptReadOnly, ...reserved]) {
    for (const root of write.filter((candidate) => isSameOrInside(candidate, path) && candidate !== path)) {
      for (let dir = dirname(path); dir !== root && isSameOrInside(root, dir); dir = dirname(dir))
        pinned.add(dir);
    }
  }
  for (const dir of [...pinned].sort((a, b) => a.length - b.length)) args.push("--bind", dir, dir);
  for (const path of keptReadOnly) args.push("--ro-bind", path, path);
  for (const path of reserved) args.push("--size", "4096", "--tmpfs", path, "--remount-ro", path);
  for (const path of hidden) {
    if (statSync(path).isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }

  let command = invocation.command;
  let commandArgs = [...invocation.args];
  const { proxy } = invocation;
  if (typeof profile.network === "object") {
    if (!proxy) throw new Error("An allow-list network needs the proxy bridge.");
    args.push("--bind", proxy.socketPath, PROXY_SOCKET_IN_SANDBOX);
    for (const file of [realOrSelf(proxy.node), realOrSelf(proxy.forwarder)])
      args.push("--ro-bind", file, file);
    const address = `http://127.0.0.1:${PROXY_PORT_IN_SANDBOX}`;
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) {
      args.push("--setenv", name, address);
    }
    commandArgs = [
      realOrSelf(proxy.forwarder),
      PROXY_SOCKET_IN_SANDBOX,
      String(PROXY_PORT_IN_SANDBOX),
      "--",
      command,
      ...commandArgs,
    ];
    command = realOrSelf(proxy.node);
  }
  if (invocation.cwd !== undefined) args.push("--chdir", invocation.cwd);
  args.push("--", command, ...commandArgs);

  if (invocation.prlimit === undefined) return { command: invocation.bwrap, args, reserved };
  const { limits } = profile;
  const rlimits = [`--nproc=${limits.processes}`, `--fsize=${limits.fileBytes}`];
  if (limits.addressSpaceBytes !== undefined) rlimits.push(`--as=${limits.addressSpaceBytes}`);
  return { command: invocation.prlimit, args: [...rlimits, "--", invocation.bwrap, ...args], reserved };
}

/**
 * The namespaces and base mounts of every sandbox, before any grant: a read-only host, its own
 * /dev, /proc and sized /tmp, no capabilities. The preflight probes exactly these.
 */
export function isolationArguments(shareNetwork: boolean, tmpBytes: number): string[] {
  return [
    "--unshare-all",
    ...(shareNetwork ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    // Root (of the host, or of the sandbox's user namespace) would otherwise keep capabilities that
    // let it remount the read-only binds writable.
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    // bwrap's /dev is a tmpfs of no size limit, and its /dev/shm a directory in it: a sized
    // world-writable /dev/shm of its own, then /dev read-only (device nodes stay usable).
    "--dev",
    "/dev",
    ...sizedTmpfs(tmpBytes, "/dev/shm", "1777"),
    "--remount-ro",
    "/dev",
    "--proc",
    "/proc",
    ...sizedTmpfs(tmpBytes, "/tmp"),
  ];
}

// An empty /run (and /var/run when it is a directory of its own), with the resolver's file kept
// readable where /etc/resolv.conf points into /run (systemd-resolved), so DNS still works when the
// network is allowed.
function runtimeDirectoryMounts(sizeBytes: number): string[] {
  const mounts: string[] = [];
  for (const directory of ["/run", "/var/run"]) {
    if (existsSync(directory) && realOrSelf(directory) === directory && statSync(directory).isDirectory()) {
      mounts.push(...sizedTmpfs(sizeBytes, directory));
    }
  }
  const resolver = realOrSelf("/etc/resolv.conf");
  if (resolver !== "/etc/resolv.conf" && isSameOrInside("/run", resolver) && existsSync(resolver)) {
    mounts.push("--ro-bind", resolver, resolver);
  }
  return mounts;
}

// Every writable tmpfs has a size: an unbounded one lets a sandboxed process fill the host's memory.
function sizedTmpfs(sizeBytes: number, path: string, mode?: string): string[] {
  return [...(mode === undefined ? [] : ["--perms", mode]), "--size", String(sizeBytes), "--tmpfs", path];
}

// Symbolic links resolved, so a bind lands where the kernel will look; missing paths are left out
// (there is nothing to expose, and bwrap cannot bind what does not exist).
function existingRealPaths(paths: readonly string[]): string[] {
  const real = new Set<string>();
  for (const path of paths) {
    const absolute = resolve(path);
    if (existsSync(absolute)) real.add(realpathSync(absolute));
  }
  return [...real];
}
