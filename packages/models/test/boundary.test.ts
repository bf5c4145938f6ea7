import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";
import * as testing from "../src/testing/index.js";
import * as server from "../src/testing/server/index.js";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
// Static imports and re-exports; `import type` is erased at build time and loads nothing.
const IMPORT = /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gm;

/** Every module specifier reachable from an entry through relative imports. */
function reachableSpecifiers(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, , typeOnly, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (specifier === undefined || typeOnly !== undefined) continue;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else specifiers.add(specifier);
    }
  };
  visit(join(SRC, entry));
  return specifiers;
}

describe("package boundaries", () => {
  it.each(["index.ts", "testing/index.ts"])(
    "%s reaches no node: built-in and no other @agent package but @agent/base",
    (entry) => {
      const specifiers = [...reachableSpecifiers(entry)];
      expect(specifiers.filter((specifier) => specifier.startsWith("node:"))).toEqual([]);
      expect(
        specifiers.filter((specifier) => specifier.startsWith("@agent/") && specifier !== "@agent/base"),
      ).toEqual([]);
    },
  );

  it("the root entry loads neither SDK on import (the adapters load theirs on the first request)", () => {
    const specifiers = [...reachableSpecifiers("index.ts")];
    expect(specifiers).not.toContain("openai");
    expect(specifiers).not.toContain("@anthropic-ai/sdk");
  });

  it("the server subpath imports no other @agent package but @agent/base", () => {
    expect(
      [...reachableSpecifiers("testing/server/index.ts")].filter(
        (s) => s.startsWith("@agent/") && s !== "@agent/base",
      ),
    ).toEqual([]);
  });

  it("keeps the export surface of each entry point deliberate", () => {
    expect(Object.keys(root).sort()).toMatchInlineSnapshot(`
      [
        "MODEL_CLIENT_ERROR_CODES",
        "MODEL_ERROR_CODES",
        "ModelClientError",
        "createAnthropicModel",
        "createOpenAiModel",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "createScriptedModel",
        "textTurn",
        "toolCallTurn",
      ]
    `);
    expect(Object.keys(server).sort()).toMatchInlineSnapshot(`
      [
        "createFakeModelServer",
        "hangReply",
        "malformedReply",
        "statusReply",
        "streamErrorReply",
      ]
    `);
  });
});
