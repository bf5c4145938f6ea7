import { existsSync } from "node:fs";
import { join } from "node:path";
import { MCP_ERROR_CODES, type McpCloseReason } from "@agent/mcp-transport";
import { createStdioTransport, type StdioLaunchSpec } from "@agent/mcp-transport/stdio";
import { describe, expect, it } from "vitest";
import { testServerCommand } from "../../mcp-testing/src/servers/index.js";
import { closeAfterTest, initialize, never, temporaryDirectory } from "./helpers.js";

describe("stdio launch seam", () => {
  it("spawns what the launch returns, with the environment it was given, and disposes after exit", async () => {
    const seen: StdioLaunchSpec[] = [];
    let disposed = 0;
    const server = testServerCommand("scriptable");
    const transport = closeAfterTest(
      createStdioTransport({
        command: "not-a-real-command",
        env: { SERVER_TOKEN: "t" },
        launch: async (spec) => {
          seen.push(spec);
          // The wrapper runs the real server: here simply the test server itself.
          return {
            ...server,
            env: spec.env,
            cwd: spec.cwd,
            dispose: async () => {
              disposed += 1;
            },
          };
        },
      }),
    );
    await initialize(transport);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ command: "not-a-real-command", args: [], env: { SERVER_TOKEN: "t" } });
    expect(seen[0]?.env.PATH).toBeDefined();
    await transport.close();
    expect(disposed).toBe(1);
  });

  it("spawns nothing when the launch refuses, and ends the connection with its reason", async () => {
    const directory = temporaryDirectory();
    const marker = join(directory, "started");
    const server = testServerCommand("scriptable");
    const transport = closeAfterTest(
      createStdioTransport({
        ...server,
        env: { MCP_TESTING_RECORD_FILE: marker },
        launch: async () => {
          throw new Error("the sandbox is unavailable: bwrap was not found");
        },
      }),
    );
    const closes: McpCloseReason[] = [];
    transport.onClose((reason) => closes.push(reason));
    const response = await transport.request("initialize", {}, never());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(response.ok ? "" : response.error.message).toContain("bwrap was not found");
    expect(closes).toMatchObject([{ kind: "exited" }]);
    expect(transport.pid()).toBeUndefined();
    // From outside: the server never wrote its start record.
    expect(existsSync(marker)).toBe(false);
  });
});
