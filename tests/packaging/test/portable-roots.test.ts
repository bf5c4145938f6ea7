import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// A root entry is meant to run anywhere (a browser, an edge runtime), so it may use no Node global
// (`Buffer`, `process`, a timer's `unref`) even where no `node:` import shows it. This compiles each
// package's root entry the way such a runtime types it: the standard library and the DOM, no `node`
// export condition, and no
// `@types/node` at all, not even where a dependency's declarations reference it (the host below hides
// it). Errors in our own sources fail the test; a dependency's declarations are not ours to judge.

const root = new URL("../../..", import.meta.url).pathname;
const NODE_TYPES = `${join("node_modules", "@types", "node")}/`;

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ["lib.es2024.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  // Resolved as a bundler for a browser resolves: without the `node` condition (so `#sha256` is the
  // portable one), which NodeNext would always add.
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: ["@agent/source"],
  types: [],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: true,
  noEmit: true,
};

/** A compiler host to which `@types/node` does not exist. */
function hostWithoutNodeTypes(): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  const hidden = (path: string) => path.includes(NODE_TYPES);
  return {
    ...host,
    fileExists: (path) => !hidden(path) && host.fileExists(path),
    readFile: (path) => (hidden(path) ? undefined : host.readFile(path)),
    getSourceFile: (path, languageVersion, onError, shouldCreate) =>
      hidden(path) ? undefined : host.getSourceFile(path, languageVersion, onError, shouldCreate),
    directoryExists: (path) => !hidden(`${path}/`) && (host.directoryExists?.(path) ?? true),
  };
}

const packages = readdirSync(join(root, "packages"))
  .map((name) => join(root, "packages", name))
  .filter((dir) => existsSync(join(dir, "src", "index.ts")))
  .map((dir) => ({
    dir,
    name: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name,
  }));

describe("root entries without Node's types", () => {
  for (const { dir, name } of packages) {
    it(`${name}'s root entry type-checks with no Node global in reach`, () => {
      const program = ts.createProgram([join(dir, "src", "index.ts")], OPTIONS, hostWithoutNodeTypes());
      expect(program.getSourceFiles().filter((file) => file.fileName.includes(NODE_TYPES))).toEqual([]);
      const ours = ts
        .getPreEmitDiagnostics(program)
        .filter((diagnostic) => diagnostic.file && !diagnostic.file.fileName.includes("/node_modules/"))
        .map((diagnostic) => {
          const file = diagnostic.file as ts.SourceFile;
          const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
          return `${relative(root, file.fileName)}:${line + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
        });
      expect(ours).toEqual([]);
    });
  }
});
