import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The attacker's web server, on loopback: every request it receives is harm done. */
export interface AttackerServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The path and query of every request received, in order. */
  readonly received: readonly string[];
  close(): Promise<void>;
}

/** Starts an {@link AttackerServer} on a free loopback port. */
export async function startAttackerServer(): Promise<AttackerServer> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(request.url ?? "");
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
