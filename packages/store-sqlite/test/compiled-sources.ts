import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const PACKAGE_SOURCES = join(import.meta.dirname, "..", "src");
// @agent/base's own sources, compiled beside ours: a child process must not depend on a build.
const BASE_SOURCES = join(import.meta.dirname, "..", "node_modules", "@agent", "base", "src");
// The addon the tests themselves load: the node matrix's build for its Node line, if it named one.
const BETTER_SQLITE3 = pathToFileURL(
  createRequire(import.meta.url).resolve(process.env.AGENT_BETTER_SQLITE3_DIR ?? "better-sqlite3"),
).href;

/**
 * Compiles the named modules of this package's `src` (paths without `.ts`, e.g. `file/regular-files`)
 * into `moduleDir`, types erased by TypeScript's transpiler, so child processes of a test run the
 * real code rather than a copy of it. Their imports of `better-sqlite3` and `@agent/base` are
 * pointed at the installed binding and at `@agent/base`'s sources, compiled alongside.
 */
export function compileSources(moduleDir: string, names: readonly string[]): void {
  mkdirSync(moduleDir, { recursive: true });
  writeFileSync(join(moduleDir, "package.json"), '{ "type": "module" }');
  const base = pathToFileURL(join(moduleDir, "agent-base", "index.js")).href;
  for (const file of readdirSync(BASE_SOURCES).filter((name) => name.endsWith(".ts"))) {
    compileFile(join(BASE_SOURCES, file), join(moduleDir, "agent-base", file.replace(/\.ts$/, ".js")), base);
  }
  for (const name of names) {
    compileFile(join(PACKAGE_SOURCES, `${name}.ts`), join(moduleDir, `${name}.js`), base);
  }
}

function compileFile(source: string, target: string, base: string): void {
  const { outputText } = ts.transpileModule(readFileSync(source, "utf8"), {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(
    target,
    outputText
      .replaceAll('from "better-sqlite3"', `from "${BETTER_SQLITE3}"`)
      .replaceAll('from "@agent/base"', `from "${base}"`),
  );
}
