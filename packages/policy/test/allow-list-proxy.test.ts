import { existsSync } from "node:fs";
import { type AddressInfo, createConnection, createServer, type Socket } from "node:net";
import { type ProxyDecision, startAllowListProxy } from "@agent/policy/bwrap";
import { describe, expect, it, onTestFinished } from "vitest";

function exchange(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let received = "";
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

/** A proxy for `allowHosts` whose every name resolves to the host's loopback, where the test servers listen. */
async function startProxy(allowHosts: string[], decisions: ProxyDecision[] = []) {
  const proxy = await startAllowListProxy({
    allowHosts,
    resolve: async () => "127.0.0.1",
    onDecision: (decision) => decisions.push(decision),
  });
  onTestFinished(() => proxy.close());
  return proxy;
}

/** A loopback server that counts connections and keeps each request head it received. */
async function countingServer() {
  let connections = 0;
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) {
        heads.push(head);
        socket.end("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nreached\n");
      }
    });
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { port, connections: () => connections, heads: () => [...heads] };
}

describe("startAllowListProxy", () => {
  it("refuses what is not a host name before it reaches the allow-list or the resolver", async () => {
    const decisions: ProxyDecision[] = [];
    const resolved: string[] = [];
    const proxy = await startAllowListProxy({
      allowHosts: ["allowed.test"],
      resolve: async (host) => {
        resolved.push(host);
        return "127.0.0.1";
      },
      onDecision: (decision) => decisions.push(decision),
    });
    onTestFinished(() => proxy.close());
    for (const request of [
      "CONNECT bad_host!:443 HTTP/1.1\r\n\r\n",
      "CONNECT allowed.test:0 HTTP/1.1\r\n\r\n",
      "GET https://allowed.test/ HTTP/1.1\r\n\r\n",
      "GET http://user:pw@allowed.test/ HTTP/1.1\r\n\r\n",
      "hello\r\n\r\n",
    ]) {
      expect(await exchange(proxy.socketPath, request)).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(await exchange(proxy.socketPath, `GET /${"x".repeat(20_000)}`)).toMatch(/^HTTP\/1\.1 431 /);
    expect(decisions).toEqual([]);
    expect(resolved).toEqual([]);
  });

  it("refuses a plain request whose Host header names another host than its request line", async () => {
    const target = await countingServer();
    const proxy = await startProxy([`allowed.test:${target.port}`]);
    for (const host of ["internal.admin", `allowed.test:${target.port + 1}`, "allowed.test"]) {
      const answer = await exchange(
        proxy.socketPath,
        `GET http://allowed.test:${target.port}/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      );
      expect(answer, host).toMatch(/^HTTP\/1\.1 400 /);
    }
    const twice = `GET http://allowed.test:${target.port}/ HTTP/1.1\r\nHost: allowed.test:${target.port}\r\nHost: internal.admin\r\n\r\n`;
    expect(await exchange(proxy.socketPath, twice)).toMatch(/^HTTP\/1\.1 400 /);
    const tunnel = `CONNECT allowed.test:${target.port} HTTP/1.1\r\nHost: internal.admin\r\n\r\n`;
    expect(await exchange(proxy.socketPath, tunnel)).toMatch(/^HTTP\/1\.1 400 /);
    // From the target's side: nothing arrived.
    expect(target.heads()).toEqual([]);

    const agreeing = await exchange(
      proxy.socketPath,
      `GET http://allowed.test:${target.port}/ok HTTP/1.1\r\nHost: ALLOWED.test:${target.port}\r\n\r\n`,
    );
    expect(agreeing).toContain("reached");
    // Without a Host header the proxy sends the request line's.
    await exchange(proxy.socketPath, `GET http://allowed.test:${target.port}/bare HTTP/1.0\r\n\r\n`);
    expect(target.heads()).toHaveLength(2);
    expect(target.heads()[1]).toContain(`Host: allowed.test:${target.port}`);
  });

  it("refuses a CONNECT to a host that is not listed", async () => {
    const target = await countingServer();
    const proxy = await startProxy([`allowed.test:${target.port}`]);
    const answer = await exchange(proxy.socketPath, `CONNECT other.test:${target.port} HTTP/1.1\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(target.connections()).toBe(0);
  });

  it("admits only the port a host:port entry names", async () => {
    const listed = await countingServer();
    const other = await countingServer();
    const proxy = await startProxy([`allowed.test:${listed.port}`]);
    const refused = await exchange(proxy.socketPath, `CONNECT allowed.test:${other.port} HTTP/1.1\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    const plain = await exchange(proxy.socketPath, `GET http://allowed.test:${other.port}/ HTTP/1.1\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1\.1 403 /);
    expect(other.connections()).toBe(0);
    // Through the tunnel, a request the server answers (and then closes).
    const admitted = await exchange(
      proxy.socketPath,
      `CONNECT allowed.test:${listed.port} HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n`,
    );
    expect(admitted).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(admitted).toContain("reached");
    expect(listed.connections()).toBe(1);
  });

  it("refuses a name listed without a port that resolves to the host's loopback", async () => {
    const target = await countingServer();
    const decisions: ProxyDecision[] = [];
    const proxy = await startProxy(["rebound.test"], decisions);
    const answer = await exchange(proxy.socketPath, `CONNECT rebound.test:${target.port} HTTP/1.1\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toContain("loopback");
    expect(target.connections()).toBe(0);
    expect(decisions).toEqual([{ host: "rebound.test", port: target.port, allowed: false }]);
  });

  it("removes its socket when closed", async () => {
    const proxy = await startAllowListProxy({ allowHosts: [] });
    expect(existsSync(proxy.socketPath)).toBe(true);
    await proxy.close();
    await proxy.close();
    expect(existsSync(proxy.socketPath)).toBe(false);
  });
});
