import { onTestFinished } from "vitest";
// By path, not by package: @agent/mcp-testing depends on this package.
import { type LoopbackHttpServer, startLoopbackHttpServer } from "../../mcp-testing/src/servers/index.js";
import { EVERYTHING_ENTRY } from "./helpers.js";

/** Starts server-everything over Streamable HTTP on 127.0.0.1 (a free port); killed when the current test ends. */
export async function startEverythingHttp(): Promise<LoopbackHttpServer> {
  const server = await startLoopbackHttpServer(EVERYTHING_ENTRY, ["streamableHttp"]);
  onTestFinished(server.kill);
  return server;
}
