// Finds the TypeScript examples of every package README, so they can be type-checked against the
// sources (in the normal test run) and run against the packed packages (in the packaging test).
//
// A ```ts block is an example when it imports something: a block without imports is a fragment of
// prose. An HTML comment on the line before the block changes that:
//   <!-- fragment -->                  not a whole program (e.g. refers to a variable of the text)
//   <!-- example: typecheck-only REASON -->   checked, but not run (it needs what a test cannot have)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The READMEs whose examples are checked: every package and app. */
export function readmePaths(root) {
  const paths = [];
  for (const folder of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, folder)).sort()) {
      const path = join(root, folder, name, "README.md");
      if (existsSync(path)) paths.push({ path, pkg: `${folder}/${name}` });
    }
  }
  return paths;
}

/** The examples of one README: `{ name, code, run, reason }`, in order. */
export function extractExamples(readme, pkg) {
  const lines = readFileSync(readme, "utf8").split("\n");
  const examples = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]?.trim() !== "```ts") continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== "```") end += 1;
    const code = lines.slice(start, end).join("\n");
    const marker = previousNonBlank(lines, index);
    index = end;
    if (/<!--\s*fragment\b[^>]*-->/.test(marker) || !/^import\s/m.test(code)) continue;
    const typecheckOnly = marker.match(/<!--\s*example:\s*typecheck-only\s*(.*?)\s*-->/);
    examples.push({
      name: `${pkg.replace("/", "-")}-${examples.length + 1}`,
      line: start,
      code,
      run: !typecheckOnly,
      reason: typecheckOnly?.[1] ?? "",
    });
  }
  return examples;
}

function previousNonBlank(lines, index) {
  for (let at = index - 1; at >= 0; at -= 1) {
    if (lines[at]?.trim()) return lines[at];
  }
  return "";
}
