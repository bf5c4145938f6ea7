import { describe, expect, it } from "vitest";
import { MCP_CLIENT_ERROR_CODES, McpClientError, phaseTimeout, toMcpClientError } from "../src/errors.js";

describe("toMcpClientError", () => {
  it("wraps anything thrown as mcp_connect_failed naming the server, keeping what was thrown as the cause", () => {
    const thrown = new Error("spawn ENOENT");
    const wrapped = toMcpClientError(thrown, "docs");
    expect(wrapped).toBeInstanceOf(McpClientError);
    expect(wrapped).toMatchObject({ code: "mcp_connect_failed", server: "docs", message: "spawn ENOENT" });
    expect(wrapped.cause).toBe(thrown);
    expect(toMcpClientError("a plain string", "docs").message).toBe("a plain string");
  });

  it("hands back a client error already about this server as it is", () => {
    const original = new McpClientError(MCP_CLIENT_ERROR_CODES.toolsListFailed, "listing failed", {
      server: "docs",
    });
    expect(toMcpClientError(original, "docs")).toBe(original);
  });

  it("re-addresses a client error about another server (or none), keeping its code, message and cause", () => {
    const cause = new Error("root cause");
    const original = new McpClientError(MCP_CLIENT_ERROR_CODES.invalidToolsList, "bad listing", { cause });
    const readdressed = toMcpClientError(original, "mail");
    expect(readdressed).not.toBe(original);
    expect(readdressed).toMatchObject({ code: "invalid_tools_list", message: "bad listing", server: "mail" });
    expect(readdressed.cause).toBe(cause);
  });
});

describe("phaseTimeout", () => {
  it("says which phase ran out of time and after how long, with the given code, server and cause", () => {
    const cause = new Error("aborted");
    const error = phaseTimeout(MCP_CLIENT_ERROR_CODES.initializeFailed, "initialize", 1500, "docs", cause);
    expect(error).toMatchObject({
      code: "mcp_initialize_failed",
      message: "initialize timed out after 1500 ms.",
      server: "docs",
    });
    expect(error.cause).toBe(cause);
    expect(McpClientError.isInstance(error)).toBe(true);
  });
});
