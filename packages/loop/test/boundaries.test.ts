import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^"']*?from\s*["']([^"']+)["']/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)].map((match) => match[1] as string);
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/** Every source file the root entry reaches through relative imports. */
function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  };
  visit(entry);
  return seen;
}

describe("package boundaries", () => {
  it("imports only @agent/tools, @agent/models and @agent/base, never policy or the MCP packages", () => {
    for (const file of sourceFiles(SOURCE)) {
      const agentImports = importsOf(file).filter((specifier) => specifier.startsWith("@agent/"));
      const allowed = file.includes("/testing/")
        ? ["@agent/base", "@agent/tools", "@agent/models", "@agent/models/testing"]
        : ["@agent/base", "@agent/tools", "@agent/models"];
      for (const specifier of agentImports)
        expect([relative(SOURCE, file), specifier]).toEqual([
          relative(SOURCE, file),
          expect.toBeOneOf(allowed),
        ]);
    }
  });

  it("keeps node: built-ins out of everything the root entry reaches", () => {
    const reached = reachableFrom(join(SOURCE, "index.ts"));
    expect(reached.size).toBeGreaterThan(5);
    for (const file of reached) {
      expect([
        relative(SOURCE, file),
        importsOf(file).filter((specifier) => specifier.startsWith("node:")),
      ]).toEqual([relative(SOURCE, file), []]);
    }
  });
});
