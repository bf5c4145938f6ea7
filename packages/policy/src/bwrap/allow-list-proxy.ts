// The network allow-list, enforced outside the sandbox: a sandboxed process has no network of its
// own, only this proxy's unix socket. It speaks HTTP CONNECT (for TLS, so the proxy never sees the
// content) and plain HTTP with an absolute URI, and opens a connection only to a listed host name
// (and port, where the entry names one). A plain request's Host header must name the host its
// request line does (a server picks its virtual host by it), and a listed name that resolves to
// the host's loopback is refused unless its entry names the port.
import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, isIP, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AllowEntry,
  isAllowableHostName,
  isLoopbackHost,
  normalizeHostName,
  parseAllowEntry,
} from "../allow-entry.js";

/** One connection the proxy let through or refused, for the audit trail. */
export interface ProxyDecision {
  host: string;
  port: number;
  allowed: boolean;
}

/** Options of {@link startAllowListProxy}. */
export interface AllowListProxyOptions {
  /** The entries that may be reached, `host` or `host:port` (as `allowHostsPolicy` returns them). */
  allowHosts: readonly string[];
  /** Resolves an allowed host name to the address to connect to; defaults to the system resolver. */
  resolve?: (host: string) => Promise<string>;
  /** Receives every decision; must not throw. */
  onDecision?: (decision: ProxyDecision) => void;
}

/** A running proxy: its socket path, and how to stop it. */
export interface AllowListProxy {
  readonly socketPath: string;
  /** Stops accepting, ends every open connection and removes the socket; idempotent. */
  close(): Promise<void>;
}

// A request head larger than this is refused: the proxy never buffers an unbounded amount.
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = "\r\n\r\n";

/** Starts a proxy on a fresh unix socket in a private directory and resolves once it listens. */
export async function startAllowListProxy(options: AllowListProxyOptions): Promise<AllowListProxy> {
  const entries = options.allowHosts.map(toAllowEntry);
  const resolveHost = options.resolve ?? (async (host: string) => (await lookup(host)).address);
  const directory = mkdtempSync(join(tmpdir(), "agent-proxy-"));
  const socketPath = join(directory, "proxy.sock");
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    readHead(client, (head, rest) => {
      const target = parseRequest(head);
      if (typeof target === "string") return refuse(client, 400, target);
      const decide = (allowed: boolean): void =>
        options.onDecision?.({ host: target.host, port: target.port, allowed });
      const matching = entries.filter(
        (entry) => entry.host === target.host && (entry.port === undefined || entry.port === target.port),
      );
      if (matching.length === 0) {
        decide(false);
        const listed = entries.some((entry) => entry.host === target.host);
        return refuse(
          client,
          403,
          listed
            ? `port ${target.port} of ${target.host} is not in the sandbox's network allow-list`
            : `${target.host} is not in the sandbox's network allow-list`,
        );
      }
      const pinned = matching.some((entry) => entry.port !== undefined);
      void resolveHost(target.host).then(
        (address) => {
          // A name allowed on every port may not lead to the host itself (DNS can point anywhere).
          if (!pinned && isLoopbackHost(address)) {
            decide(false);
            return refuse(
              client,
              403,
              `${target.host} resolves to the host's loopback; list it as host:port`,
            );
          }
          decide(true);
          relay(client, target, address, rest, open);
        },
        () => {
          decide(true);
          refuse(client, 502, `${target.host} could not be resolved`);
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => {
          rmSync(directory, { recursive: true, force: true });
          resolve();
        });
      });
      return closing;
    },
  };
}

interface Target {
  host: string;
  port: number;
  /** CONNECT tunnels bytes as they are; plain HTTP forwards the rewritten head first. */
  tunnel: boolean;
  head: string;
}

function readHead(client: Socket, onHead: (head: string, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf(HEAD_END);
    if (end === -1) {
      if (buffered.length > MAX_HEAD_BYTES) {
        client.off("data", onData);
        refuse(client, 431, "request head too large");
      }
      return;
    }
    client.off("data", onData);
    client.pause();
    onHead(buffered.subarray(0, end).toString("latin1"), buffered.subarray(end + HEAD_END.length));
  };
  client.on("data", onData);
}

// Only a host name or an IP literal is looked at further: anything else is a bad request, and
// never reaches the allow-list, the resolver or the audit trail.
function isHost(host: string): boolean {
  return isAllowableHostName(host) || isIP(host) !== 0;
}

// The entries come from `allowHostsPolicy`; one that does not parse is a bug of the caller's.
function toAllowEntry(text: string): AllowEntry {
  const parsed = parseAllowEntry(text);
  if (parsed.ok) return parsed.entry;
  // A loopback name without a port was refused by the policy already; here it admits nothing.
  return { host: normalizeHostName(text), port: 0 };
}

// The target, or why the request is refused as a bad request.
function parseRequest(head: string): Target | string {
  const target = parseTarget(head);
  if (typeof target === "string") return target;
  return isHost(target.host) ? target : "the proxy understands CONNECT and absolute http:// requests only";
}

function parseTarget(head: string): Target | string {
  const unsupported = "the proxy understands CONNECT and absolute http:// requests only";
  const [requestLine = "", ...headers] = head.split("\r\n");
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!match) return unsupported;
  const [, method = "", uri = ""] = match;
  const hostHeaders = headers.filter((line) => /^host\s*:/i.test(line));
  if (hostHeaders.length > 1) return "a request may carry one Host header";
  const hostHeader = hostHeaders[0]?.replace(/^host\s*:/i, "").trim();
  let target: Target;
  if (method === "CONNECT") {
    const authority = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(uri);
    if (!authority) return unsupported;
    const port = Number(authority[2]);
    if (port < 1 || port > 65535) return unsupported;
    target = { host: normalizeHostName(authority[1] ?? ""), port, tunnel: true, head: "" };
  } else {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return unsupported;
    }
    if (url.protocol !== "http:" || url.username !== "" || url.password !== "") return unsupported;
    const host = normalizeHostName(url.hostname.replace(/^\[|\]$/g, ""));
    const port = Number(url.port || 80);
    // Origin-form towards the server; hop-by-hop proxy headers stay here; one request per connection,
    // so a second request on it cannot go anywhere but the host already checked. A Host header is
    // added where the client sent none, so the server never picks a host of its own.
    const kept = headers.filter((line) => !/^(proxy-[a-z-]*|connection|keep-alive)\s*:/i.test(line));
    const withHost = hostHeader === undefined ? [`Host: ${url.host}`, ...kept] : kept;
    const rewritten = [`${method} ${url.pathname}${url.search} HTTP/1.1`, ...withHost, "Connection: close"];
    target = { host, port, tunnel: false, head: `${rewritten.join("\r\n")}${HEAD_END}` };
  }
  if (hostHeader !== undefined && !isSameAuthority(hostHeader, target)) {
    return `the Host header (${JSON.stringify(hostHeader)}) names another host than the request (${target.host}:${target.port})`;
  }
  return target;
}

// Whether a Host header's value names the target: the same host, and the same port (a missing one
// is the scheme's default: 80 for plain HTTP; for CONNECT the port the tunnel goes to).
function isSameAuthority(value: string, target: Target): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return false;
  const host = normalizeHostName(match[1] ?? match[2] ?? "");
  const port = match[3] === undefined ? (target.tunnel ? target.port : 80) : Number(match[3]);
  return host === target.host && port === target.port;
}

function relay(client: Socket, target: Target, address: string, rest: Buffer, open: Set<Socket>): void {
  const upstream = createConnection({ host: address, port: target.port });
  open.add(upstream);
  upstream.once("close", () => {
    open.delete(upstream);
    client.destroy();
  });
  client.once("close", () => upstream.destroy());
  upstream.on("error", () => {
    if (upstream.connecting) refuse(client, 502, `${target.host}:${target.port} refused the connection`);
    else client.destroy();
  });
  upstream.once("connect", () => {
    if (target.tunnel) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    else upstream.write(target.head, "latin1");
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}

function refuse(client: Socket, status: number, reason: string): void {
  const body = `${reason}\n`;
  const phrase: Record<number, string> = {
    400: "Bad Request",
    403: "Forbidden",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
  };
  client.end(
    `HTTP/1.1 ${status} ${phrase[status] ?? "Error"}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
