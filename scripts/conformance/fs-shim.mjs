import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;
// Minimal globSync: supports "**/<basename>" (the only pattern conformance uses, in tier-check).
export function globSync(pattern, opts = {}) {
  const cwd = opts.cwd ?? process.cwd();
  const base = pattern.replace(/^\*\*\//, "");
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(cwd, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name === base) out.push(r);
    }
  };
  walk("");
  return out;
}
