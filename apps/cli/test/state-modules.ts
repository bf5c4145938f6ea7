import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "state");
const require = createRequire(import.meta.url);
// What the compiled modules import from outside `src/state`, resolved here (the temp folder has no
// node_modules): the native SQLite binding, and the workspace packages as built (the CLI's tests run
// on builds). Named by their files: a resolve from inside vitest would follow the "@agent/source" condition.
const BETTER_SQLITE3 = pathToFileURL(require.resolve("better-sqlite3")).href;
const AGENT_PACKAGES = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "@agent");
const BUILT: Readonly<Record<string, string>> = Object.freeze({
  "better-sqlite3": BETTER_SQLITE3,
  "@agent/base": builtEntry("base", "index.js"),
  "@agent/store-sqlite": builtEntry("store-sqlite", "index.js"),
  "@agent/store-sqlite/file": builtEntry("store-sqlite", "file/index.js"),
});

function builtEntry(name: string, entry: string): string {
  return pathToFileURL(join(AGENT_PACKAGES, name, "dist", entry)).href;
}

/**
 * Compiles the named modules of `src/state` into `moduleDir` (types erased by TypeScript's
 * transpiler), so child processes of a test run the real code rather than a copy of it.
 */
export function compileStateModules(moduleDir: string, names: readonly string[]): void {
  mkdirSync(moduleDir, { recursive: true });
  writeFileSync(join(moduleDir, "package.json"), '{ "type": "module" }');
  for (const name of names) {
    const source = readFileSync(join(SOURCE_DIR, `${name}.ts`), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    const linked = Object.entries(BUILT).reduce(
      (text, [specifier, url]) => text.replaceAll(`from "${specifier}"`, `from "${url}"`),
      outputText,
    );
    writeFileSync(join(moduleDir, `${name}.js`), linked);
  }
}
