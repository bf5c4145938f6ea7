import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "state");
const require = createRequire(import.meta.url);
// What the compiled modules import from outside `src/state`, resolved here (the temp folder has no
// node_modules): the native SQLite binding, and @agent/base as built (the CLI's tests run on builds).
const BETTER_SQLITE3 = pathToFileURL(require.resolve("better-sqlite3")).href;
// (Named by its file: a resolve from inside vitest would follow the "@agent/source" condition.)
const AGENT_BASE = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "@agent", "base", "dist", "index.js"),
).href;

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
    writeFileSync(
      join(moduleDir, `${name}.js`),
      outputText
        .replaceAll('from "better-sqlite3"', `from "${BETTER_SQLITE3}"`)
        .replaceAll('from "@agent/base"', `from "${AGENT_BASE}"`),
    );
  }
}
