/**
 * The whole client against the pinned server-filesystem over real stdio, confined to a temporary
 * directory: a read inside it succeeds (text and validated structured content), a read outside it is
 * the server's `isError` answer, kept as an `mcp_tool_error` observation with the server's content.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { loadReferenceListing } from "./fixtures/reference-tools.js";
import { filesystemStdio, temporaryDirectory } from "./integration-helpers.js";

describe("server-filesystem over stdio, through the whole client", () => {
  it("discovers every tool of the pinned version, all external, none rejected", async () => {
    const allowed = temporaryDirectory();
    const harness = filesystemStdio(allowed);
    await harness.connection.start();
    const fixture = loadReferenceListing("server-filesystem").tools.map(
      (tool) => `mcp__filesystem__${tool.name}`,
    );
    const registered = harness.registry.listGroup(harness.connection.group);
    expect(registered.map((tool) => tool.name).sort()).toEqual(fixture.sort());
    expect(registered.every((tool) => tool.effect === "external")).toBe(true);
    expect(harness.connection.snapshot()).toMatchObject({ state: "ready", rejected: [], excluded: [] });
  });

  it("reads a file inside the allowed directory, and refuses one outside it with the server's content", async () => {
    const allowed = temporaryDirectory();
    const outside = temporaryDirectory();
    writeFileSync(join(allowed, "notes.txt"), "first line\nsecond line\n");
    writeFileSync(join(outside, "secret.txt"), "outside-the-sandbox\n");
    const harness = filesystemStdio(allowed, { allow: ["read_text_file"] });
    await harness.connection.start();
    const read = (path: string, callId: string) =>
      executeToolCall({ name: "mcp__filesystem__read_text_file", input: { path }, callId }, harness.env);

    expect(await read(join(allowed, "notes.txt"), "call_inside")).toMatchObject({
      type: "observation",
      ok: true,
      output: {
        content: [{ type: "text", text: "first line\nsecond line\n" }],
        // Declared by the tool's outputSchema and checked against it.
        structuredContent: { content: "first line\nsecond line\n" },
      },
    });

    const refused = await read(join(outside, "secret.txt"), "call_outside");
    expect(refused).toMatchObject({
      type: "observation",
      ok: false,
      error: "mcp_tool_error",
      content: [
        { type: "text", text: expect.stringContaining("Access denied - path outside allowed directories") },
      ],
    });
    expect(JSON.stringify(refused)).not.toContain("outside-the-sandbox");
    // The call itself succeeded on the wire; the tool said no.
    expect(harness.events.ofType("mcp_request_finished").map((event) => event.callId)).not.toContain(
      "call_outside",
    );
    expect(harness.events.ofType("tool_call_finished")).toContainEqual(
      expect.objectContaining({
        callId: "call_outside",
        ok: false,
        code: "mcp_tool_error",
        request: expect.objectContaining({ method: "tools/call", ok: true }),
      }),
    );
  });

  it("holds a write the policy does not allow, so the file is never created", async () => {
    const allowed = temporaryDirectory();
    const harness = filesystemStdio(allowed, { allow: ["read_text_file"] });
    await harness.connection.start();
    const target = join(allowed, "created.txt");
    const outcome = await executeToolCall(
      { name: "mcp__filesystem__write_file", input: { path: target, content: "nope" } },
      harness.env,
    );
    expect(outcome).toMatchObject({ type: "waiting", reason: "approval_required" });
    expect(existsSync(target)).toBe(false);
    expect(harness.events.ofType("mcp_request_finished").map((event) => event.method)).not.toContain(
      "tools/call",
    );
    expect(harness.events.ofType("tool_call_finished").map((event) => event.request)).toEqual([undefined]);
  });
});
