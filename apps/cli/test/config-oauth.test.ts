import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { providerOptions } from "../src/runtime/server-auth.js";
import { loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

function withOAuth(oauth: Record<string, unknown>): string {
  return writeConfig({ mcpServers: { corp: { type: "http", url: "https://mcp.corp.example/mcp", oauth } } });
}

describe("oauth.endpointOrigins", () => {
  it("hands the origins it pins to the OAuth provider", () => {
    const config = loadConfig(
      withOAuth({ endpointOrigins: ["https://tokens.corp.example", "http://127.0.0.1:8976"] }),
      {},
    );
    const [server] = config.servers;
    if (server?.type !== "http") throw new Error("expected an http server");
    expect(providerOptions(server, {} as never, "agent").endpointOrigins).toEqual([
      "https://tokens.corp.example",
      "http://127.0.0.1:8976",
    ]);
  });

  it("refuses what is not an origin, or plain http off this machine, naming the field", () => {
    const error = loadError(
      withOAuth({
        endpointOrigins: ["https://tokens.corp.example/token", "http://tokens.corp.example", "x"],
      }),
    );
    for (const index of [0, 1, 2])
      expect(error.message).toContain(`mcpServers.corp.oauth.endpointOrigins[${index}]`);
  });
});
