import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// No module-level mutable state (STYLE.md: state belongs to an object someone owns and closes): in
// the source of every package and of the CLI, a top-level declaration may not be a `let` or `var`,
// may not construct anything (`new Map()` as a cache, a controller, a singleton instance), and an
// array or object literal there must be constant: `Object.freeze(...)`, `as const`, or declared with
// a readonly type. A constant lookup `Set` or `Map` is declared `ReadonlySet` / `ReadonlyMap`, so the
// compiler refuses every write to it. Read with the TypeScript parser, not patterns, so a comment or
// a string never counts and a multi-line declaration is seen whole.

/** Constant tables that cannot be frozen, by `<file>: <name>`, each with why it is constant. */
const ALLOWED: Readonly<Record<string, string>> = Object.freeze({
  // SHA-256's round constants: a typed array (cannot be frozen) only ever read.
  "packages/tools/src/sha256/portable.ts: K": "the SHA-256 round constants",
});

const root = new URL("../../..", import.meta.url).pathname;
const sourceDirs = [
  ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "src")),
  ...readdirSync(join(root, "apps")).map((name) => join(root, "apps", name, "src")),
];

describe("module-level state", () => {
  for (const dir of sourceDirs) {
    it(`${relative(root, dir)} holds no module-level mutable state`, () => {
      const found = sourceFiles(dir).flatMap((file) => moduleStateOf(file));
      expect(found.filter((finding) => !(finding.key in ALLOWED)).map((finding) => finding.text)).toEqual([]);
    });
  }

  it("sees what it must refuse, and lets constants be", () => {
    const findings = moduleStateOfText(
      "packages/example/src/example.ts",
      [
        "let count = 0;",
        "var legacy = 1;",
        "const cache = new Map<string, number>();",
        "export const controller = new AbortController();",
        "const list: string[] = [];",
        "const table: Record<string, number> = { a: 1 };",
        "class Counter { static total = 0; static readonly LIMIT = 1; }",
        "const FROZEN = Object.freeze(['a']);",
        "const CODES = { a: 'a' } as const;",
        "const NAMES: readonly string[] = ['a'];",
        "const KNOWN: ReadonlySet<string> = new Set(['a']);",
        "const LIMITS: Readonly<Record<string, number>> = { a: 1 };",
        "const MAX = 3;",
        "function inside() { let local = 0; const seen = new Set(); return [local, seen]; }",
      ].join("\n"),
    );
    expect(findings.map((finding) => finding.key)).toEqual([
      "packages/example/src/example.ts: count",
      "packages/example/src/example.ts: legacy",
      "packages/example/src/example.ts: cache",
      "packages/example/src/example.ts: controller",
      "packages/example/src/example.ts: list",
      "packages/example/src/example.ts: table",
      "packages/example/src/example.ts: Counter.total",
    ]);
  });

  it("allows only entries that still exist", () => {
    const keys = sourceDirs.flatMap((dir) => sourceFiles(dir).flatMap((file) => moduleStateOf(file)));
    const present = new Set(keys.map((finding) => finding.key));
    expect(Object.keys(ALLOWED).filter((key) => !present.has(key))).toEqual([]);
  });
});

interface Finding {
  /** `<file>: <name>`, as {@link ALLOWED} names it. */
  key: string;
  /** What is wrong, for the failure message. */
  text: string;
}

function moduleStateOf(file: string): Finding[] {
  return moduleStateOfText(relative(root, file), readFileSync(file, "utf8"));
}

function moduleStateOfText(path: string, text: string): Finding[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const findings: Finding[] = [];
  const report = (name: string, line: number, what: string): void => {
    findings.push({ key: `${path}: ${name}`, text: `${path}:${line + 1} ${name}: ${what}` });
  };
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(source);
        const problem = constant ? mutableInitializer(declaration, source) : "a top-level let or var";
        if (problem) report(name, lineOf(declaration), problem);
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        const isStatic = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.StaticKeyword);
        const isReadonly = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (ts.isPropertyDeclaration(member) && isStatic && !isReadonly) {
          const name = `${statement.name?.getText(source) ?? "class"}.${member.name.getText(source)}`;
          report(name, lineOf(member), "a static property that is not readonly");
        }
      }
    }
  }
  return findings;
}

// Why a top-level `const` holds mutable state, or undefined when it is constant.
function mutableInitializer(declaration: ts.VariableDeclaration, source: ts.SourceFile): string | undefined {
  let value = declaration.initializer;
  let asConst = false;
  while (
    value &&
    (ts.isParenthesizedExpression(value) || ts.isAsExpression(value) || ts.isSatisfiesExpression(value))
  ) {
    if (ts.isAsExpression(value) && value.type.getText(source) === "const") asConst = true;
    value = value.expression;
  }
  if (!value) return undefined;
  const type = declaration.type?.getText(source) ?? "";
  const readonlyType = /^(readonly\s|Readonly(Array|Set|Map)?<)/.test(type);
  if (ts.isNewExpression(value)) {
    const constructed = value.expression.getText(source);
    if (/^(Set|Map)$/.test(constructed) && /^Readonly(Set|Map)</.test(type)) return undefined;
    return `constructs a ${constructed} at module level (make it part of an object someone owns)`;
  }
  if (ts.isArrayLiteralExpression(value) || ts.isObjectLiteralExpression(value)) {
    if (asConst || readonlyType) return undefined;
    return "a mutable literal at module level (Object.freeze it, or declare it readonly)";
  }
  return undefined;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}
