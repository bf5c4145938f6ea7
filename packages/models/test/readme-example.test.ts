import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { textTurn, toolCallTurn } from "../src/testing/index.js";
import { bodyOf, startServer } from "./helpers.js";

const EXAMPLE = new URL("../examples/one-tool-round-trip.ts", import.meta.url);

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("README example", () => {
  it("is the file the typecheck covers, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(readFileSync(EXAMPLE, "utf8").trim());
  });

  it("runs one tool round trip against the fake server", async () => {
    const server = await startServer([
      toolCallTurn([{ id: "call_1", name: "get_weather", input: { city: "Paris" } }]),
      textTurn("Sunny, 21 °C."),
    ]);
    vi.stubEnv("MODEL_BASE_URL", server.openAiBaseUrl);
    vi.stubEnv("MODEL", "example-model");
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    await import(EXAMPLE.href);
    expect(written.join("")).toContain("Sunny, 21 °C.");
    expect(server.requests).toHaveLength(2);
    expect(bodyOf(server, 1).messages).toMatchObject([
      { role: "user" },
      { role: "assistant", tool_calls: [{ id: "call_1" }] },
      { role: "tool", tool_call_id: "call_1", content: '{"city":"Paris","sky":"sunny","celsius":21}' },
    ]);
  });
});
