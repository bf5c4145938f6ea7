import { existsSync } from "node:fs";
import { createConnection } from "node:net";
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

  it("removes its socket when closed", async () => {
    const proxy = await startAllowListProxy({ allowHosts: [] });
    expect(existsSync(proxy.socketPath)).toBe(true);
    await proxy.close();
    await proxy.close();
    expect(existsSync(proxy.socketPath)).toBe(false);
  });
});
