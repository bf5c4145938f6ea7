// The network allow-list, enforced outside the sandbox: a sandboxed process has no network of its
// own, only this proxy's unix socket. It speaks HTTP CONNECT (for TLS, so the proxy never sees the
// content) and plain HTTP with an absolute URI, and opens a connection only to a listed host name.
import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, isIP, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAllowableHostName, normalizeHostName } from "../network-policy.js";

/** One connection the proxy let through or refused, for the audit trail. */
export interface ProxyDecision {
  host: string;
  port: number;
  allowed: boolean;
}

/** Options of {@link startAllowListProxy}. */
export interface AllowListProxyOptions {
  /** The host names that may be reached (normalized, as `allowHostsPolicy` returns them). */
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
  const allowed = new Set(options.allowHosts.map(normalizeHostName));
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
      if (!target)
        return refuse(client, 400, "the proxy understands CONNECT and absolute http:// requests only");
      const decision = { host: target.host, port: target.port, allowed: allowed.has(target.host) };
      options.onDecision?.(decision);
      if (!decision.allowed) {
        return refuse(client, 403, `${target.host} is not in the sandbox's network allow-list`);
      }
      void resolveHost(target.host).then(
        (address) => relay(client, target, address, rest, open),
        () => refuse(client, 502, `${target.host} could not be resolved`),
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

function parseRequest(head: string): Target | undefined {
  const target = parseTarget(head);
  return target && isHost(target.host) ? target : undefined;
}

function parseTarget(head: string): Target | undefined {
  const [requestLine = "", ...headers] = head.split("\r\n");
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!match) return undefined;
  const [, method = "", uri = ""] = match;
  if (method === "CONNECT") {
    const authority = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(uri);
    if (!authority) return undefined;
    const port = Number(authority[2]);
    if (port < 1 || port > 65535) return undefined;
    return { host: normalizeHostName(authority[1] ?? ""), port, tunnel: true, head: "" };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" || url.username !== "" || url.password !== "") return undefined;
  const host = normalizeHostName(url.hostname.replace(/^\[|\]$/g, ""));
  // Origin-form towards the server; hop-by-hop proxy headers stay here; one request per connection,
  // so a second request on it cannot go anywhere but the host already checked.
  const kept = headers.filter((line) => !/^(proxy-[a-z-]*|connection|keep-alive)\s*:/i.test(line));
  const rewritten = [`${method} ${url.pathname}${url.search} HTTP/1.1`, ...kept, "Connection: close"];
  return { host, port: Number(url.port || 80), tunnel: false, head: `${rewritten.join("\r\n")}${HEAD_END}` };
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
