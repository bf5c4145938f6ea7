// Copies the files of one extension from a folder to another: build steps that tsc does not do
// (e.g. the runnable .mjs test servers of @agent/mcp-testing). Usage: copy-files.mjs FROM TO EXT
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [from, to, extension] = process.argv.slice(2);
if (!from || !to || !extension) {
  console.error("usage: copy-files.mjs FROM TO EXTENSION");
  process.exit(2);
}
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from).filter((file) => file.endsWith(extension))) {
  copyFileSync(join(from, name), join(to, name));
}
