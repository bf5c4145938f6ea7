// Writes every README example as a module under generated/, for `tsc` to check against the sources.
// Usage: node src/write-examples.mjs [OUT_DIR]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { extractExamples, readmePaths } from "./readme-examples.mjs";

const root = new URL("../../..", import.meta.url).pathname;
const out = process.argv[2] ?? new URL("../generated", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
let count = 0;
for (const { path, pkg } of readmePaths(root)) {
  for (const example of extractExamples(path, pkg)) {
    const origin = `// From ${relative(root, path)}:${example.line + 1}. Edit the README, not this file.\n`;
    writeFileSync(join(out, `${example.name}.ts`), `${origin}${example.code}\nexport {};\n`);
    count += 1;
  }
}
console.log(`${count} README examples written to ${relative(process.cwd(), out) || "."}`);
