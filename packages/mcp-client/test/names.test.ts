import { MAX_TOOL_NAME_LENGTH } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpClientError } from "../src/errors.js";
import {
  assertServerName,
  MAX_SERVER_NAME_LENGTH,
  mcpToolName,
  parseMcpToolName,
  remoteToolNameProblem,
  serverNameProblem,
  serverOfToolName,
  serverToolName,
} from "../src/names.js";

describe("server names", () => {
  it("accepts letters, digits, - and _ inside, up to the length limit", () => {
    for (const name of ["docs", "my-server", "a_b", "S3", "x".repeat(MAX_SERVER_NAME_LENGTH)]) {
      expect(serverNameProblem(name)).toBeUndefined();
    }
  });

  it("refuses a name that could make two tool names collide or overflow", () => {
    expect(serverNameProblem("a__b")).toMatch(/"__"/);
    expect(serverNameProblem("_a")).toMatch(/start or end/);
    expect(serverNameProblem("a_")).toMatch(/start or end/);
    expect(serverNameProblem("a.b")).toMatch(/\[a-zA-Z0-9_-\]/);
    expect(serverNameProblem("")).toMatch(/\[a-zA-Z0-9_-\]/);
    expect(serverNameProblem("x".repeat(MAX_SERVER_NAME_LENGTH + 1))).toMatch(/at most/);
  });

  it("leaves room for a tool name of 24 characters within the model APIs' limit", () => {
    const longest = mcpToolName("x".repeat(MAX_SERVER_NAME_LENGTH), "t".repeat(24));
    expect(longest.length).toBe(MAX_TOOL_NAME_LENGTH);
  });

  it("throws invalid_server_name with the server and the reason", () => {
    let thrown: unknown;
    try {
      assertServerName("bad name");
    } catch (error) {
      thrown = error;
    }
    expect(McpClientError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "invalid_server_name", server: "bad name" });
    expect((thrown as Error).message).toContain('"bad name"');
    expect(() => assertServerName("fine")).not.toThrow();
  });
});

describe("tool names", () => {
  it("namespaces a remote tool and splits the name back", () => {
    expect(mcpToolName("docs", "search")).toBe("mcp__docs__search");
    expect(parseMcpToolName("mcp__docs__search")).toEqual({ server: "docs", remoteName: "search" });
    // The server part has no "__", so the first separator is the one.
    expect(parseMcpToolName("mcp__docs__a__b")).toEqual({ server: "docs", remoteName: "a__b" });
  });

  it("does not read a local or malformed name as a remote one", () => {
    for (const name of ["search", "mcp_docs__x", "mcp____x", "mcp__docs__", "mcp__docs"]) {
      expect(parseMcpToolName(name)).toBeUndefined();
    }
  });

  it("says why a remote tool name cannot be mapped", () => {
    expect(remoteToolNameProblem("docs", "search")).toBeUndefined();
    expect(remoteToolNameProblem("docs", "")).toMatch(/empty/);
    expect(remoteToolNameProblem("docs", "has space")).toMatch(/\[a-zA-Z0-9_-\]/);
    const tooLong = "t".repeat(MAX_TOOL_NAME_LENGTH);
    expect(remoteToolNameProblem("docs", tooLong)).toMatch(new RegExp(`at most ${MAX_TOOL_NAME_LENGTH}`));
  });

  it("tells the server of a server's own tool and of its built-in tools, and none for a local tool", () => {
    expect(serverToolName("docs", "read_resource")).toBe("mcp_server__docs__read_resource");
    expect(serverOfToolName(serverToolName("docs", "get_prompt"))).toBe("docs");
    expect(serverOfToolName(mcpToolName("docs", "search"))).toBe("docs");
    for (const name of ["read_file", "mcp_server__", "mcp_server____read_resource"]) {
      expect(serverOfToolName(name)).toBeUndefined();
    }
  });
});
