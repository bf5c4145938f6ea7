import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// docs/glossary.md writes the ladder of state words once (a rule says `ask`, a call is `held`, a
// request is `pending`, a run is `waiting`). Each of its tables names the type it describes; this
// test reads that type with the TypeScript checker and holds the table to it, both ways, and reads
// the repository's prose for the mixes the ladder rules out.

const root = new URL("../../..", import.meta.url).pathname;
const GLOSSARY = "docs/glossary.md";

/** Phrases that put a word on the wrong rung, each with the word that belongs there. */
const MIXES: readonly { pattern: RegExp; use: string }[] = Object.freeze([
  { pattern: /\bheld runs?\b|\bruns? (?:is|are|was|were|stays?) held\b/i, use: "a run is waiting" },
  { pattern: /\bwaiting calls?\b|\bcalls? (?:is|are|was|were) waiting\b/i, use: "a call is held" },
  { pattern: /\bruns? (?:is|are|was|were) pending\b|\bpending runs?\b/i, use: "a run is waiting" },
  { pattern: /\b(?:rule|policy) (?:says|said) (?:held|waiting|pending)\b/i, use: "a rule says ask" },
  {
    pattern: /\b(?:approvals?|requests?) (?:is|are|was|were) (?:held|waiting)\b/i,
    use: "a request is pending",
  },
]);

interface Vocabulary {
  /** `TypeName` or `Interface.member`. */
  name: string;
  file: string;
  words: string[];
}

function vocabularies(markdown: string): Vocabulary[] {
  const found: Vocabulary[] = [];
  const marker = /<!-- vocabulary: (\S+) in (\S+) -->\n((?:\|.*\n)+)/g;
  for (const match of markdown.matchAll(marker)) {
    const [, name = "", file = "", table = ""] = match;
    const words = table
      .split("\n")
      .slice(2)
      .flatMap((row) => /^\| `([^`]+)` \|/.exec(row)?.[1] ?? []);
    found.push({ name, file, words });
  }
  return found;
}

/** The string literals a type (alias, or an interface's member) admits, as the checker resolves it. */
function literalsOf(program: ts.Program, file: string, name: string): string[] {
  const path = join(root, file);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path);
  if (!source) throw new Error(`${file} not found`);
  const [typeName, member] = name.split(".");
  let type: ts.Type | undefined;
  source.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === typeName && member === undefined) {
      type = checker.getTypeAtLocation(node.name);
    }
    if (ts.isInterfaceDeclaration(node) && node.name.text === typeName && member !== undefined) {
      const property = node.members.find(
        (candidate) => candidate.name !== undefined && candidate.name.getText(source) === member,
      );
      if (property) type = checker.getTypeAtLocation(property);
    }
  });
  if (!type) throw new Error(`${name} not declared in ${file}`);
  const members = type.isUnion() ? type.types : [type];
  return members.flatMap((candidate) => (candidate.isStringLiteral() ? [candidate.value] : [])).sort();
}

/** Prose and comments the ladder governs: every tracked Markdown file and every source file. */
function governedFiles(): string[] {
  const tracked = execFileSync("git", ["ls-files", "*.md", "packages/*/src/*", "apps/*/src/*"], {
    cwd: root,
    encoding: "utf8",
  });
  return tracked
    .split("\n")
    .filter((file) => file !== "" && !file.startsWith(".changeset/") && !file.endsWith("CHANGELOG.md"));
}

describe("the glossary", () => {
  const markdown = readFileSync(join(root, GLOSSARY), "utf8");
  const tables = vocabularies(markdown);
  // One program for every file the tables name: the checker resolves each type once.
  const program = ts.createProgram(
    tables.map((table) => join(root, table.file)),
    { strict: true, noEmit: true, skipLibCheck: true },
  );

  it("has a table for each state ladder", () => {
    expect(tables.map((table) => table.name)).toEqual([
      "PolicyDecision",
      "PendingCall.status",
      "ApprovalStatus",
      "RunStatus",
    ]);
  });

  for (const table of tables) {
    it(`lists exactly the words of ${table.name}`, () => {
      expect([...table.words].sort()).toEqual(literalsOf(program, table.file, table.name));
    });
  }

  it("is spoken everywhere: no prose puts a state word on another thing's rung", () => {
    const mixes: string[] = [];
    for (const file of governedFiles()) {
      const lines = readFileSync(join(root, file), "utf8").split("\n");
      lines.forEach((line, index) => {
        for (const { pattern, use } of MIXES) {
          const found = pattern.exec(line)?.[0];
          if (found && file !== GLOSSARY) mixes.push(`${file}:${index + 1}: "${found}" (say: ${use})`);
        }
      });
    }
    expect(mixes).toEqual([]);
  });

  it("sees a mix when there is one", () => {
    const samples = ["the held run resumes", "a waiting call", "the rule says held", "the request was held"];
    for (const sample of samples) {
      expect(
        MIXES.some(({ pattern }) => pattern.test(sample)),
        sample,
      ).toBe(true);
    }
    expect(MIXES.some(({ pattern }) => pattern.test("a held call of a waiting run"))).toBe(false);
  });
});
