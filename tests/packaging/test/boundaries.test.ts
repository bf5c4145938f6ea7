import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The import rules of ARCHITECTURE.md, as data: which other @agent packages each one's source may
// import. Test code may import anything; `apps/cli` wires everything together.
// `@agent/base` (what every package shares and none owns) imports nothing and may be imported by all.
const ALLOWED: Record<string, readonly string[]> = {
  "@agent/base": [],
  "@agent/tools": ["@agent/base"],
  "@agent/policy": ["@agent/base", "@agent/tools"],
  "@agent/mcp-transport": ["@agent/base"],
  "@agent/mcp-client": ["@agent/base", "@agent/tools", "@agent/mcp-transport"],
  "@agent/mcp-testing": ["@agent/base", "@agent/mcp-transport"],
  "@agent/models": ["@agent/base"],
  "@agent/loop": ["@agent/base", "@agent/tools", "@agent/models"],
  "@agent/store-sqlite": ["@agent/base", "@agent/tools", "@agent/policy", "@agent/loop"],
  "@agent/store-postgres": ["@agent/base", "@agent/tools", "@agent/policy", "@agent/loop"],
};

const root = new URL("../../..", import.meta.url).pathname;
const packages = readdirSync(join(root, "packages")).map((name) => {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  return { dir, manifest };
});
const NODE_BUILTINS = new Set(builtinModules);

// apps/console is served from narrow ports the CLI fills: it imports no @agent package at all, so
// nothing but the gate (through the CLI's resume) can run a tool on its behalf.
describe("apps/console", () => {
  it("imports no @agent package (the CLI composes it with its state)", () => {
    const dir = join(root, "apps/console");
    const offending = sourceFiles(join(dir, "src")).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith("@agent/"))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});

describe("package boundaries", () => {
  it("knows every package", () => {
    expect(packages.map((pkg) => pkg.manifest.name).sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  for (const { dir, manifest } of packages) {
    it(`${manifest.name} imports only the @agent packages the architecture allows, and declares them`, () => {
      const allowed = new Set(ALLOWED[manifest.name] ?? []);
      const offending: string[] = [];
      for (const file of sourceFiles(join(dir, "src"))) {
        for (const specifier of importsOf(file)) {
          const target = specifier.match(/^@agent\/[^/]+/)?.[0];
          if (target && target !== manifest.name && !allowed.has(target)) {
            offending.push(`${relative(root, file)} imports ${specifier}`);
          }
        }
      }
      expect(offending).toEqual([]);
      const declared = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(
        (name) => name.startsWith("@agent/"),
      );
      expect(declared.filter((name) => !allowed.has(name))).toEqual([]);
    });

    it(`${manifest.name}'s root entry reaches no Node built-in (Node-only code sits behind a subpath)`, () => {
      const reached = reachableFrom(join(dir, "src/index.ts"), dir);
      const builtins = reached.flatMap(({ file, specifiers }) =>
        specifiers
          .filter(
            (specifier) => specifier.startsWith("node:") || NODE_BUILTINS.has(specifier.split("/")[0] ?? ""),
          )
          .map((specifier) => `${relative(root, file)} imports ${specifier}`),
      );
      expect(builtins).toEqual([]);
    });
  }
});

/** Every file reachable from `entry` through relative and `#` imports, as a runtime without Node's condition resolves them. */
function reachableFrom(entry: string, packageDir: string): Array<{ file: string; specifiers: string[] }> {
  const imports = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).imports ??
    {}) as Record<string, unknown>;
  const seen = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const specifiers = importsOf(file);
    seen.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) queue.push(toSource(resolve(dirname(file), specifier)));
      if (specifier.startsWith("#")) {
        const target = defaultCondition(imports[specifier]);
        if (target) queue.push(join(packageDir, target));
      }
    }
  }
  return [...seen].map(([file, specifiers]) => ({ file, specifiers }));
}

// The source file behind a `#` import for a runtime that is not Node: the source condition's default.
function defaultCondition(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (typeof target !== "object" || target === null) return undefined;
  const conditions = target as Record<string, unknown>;
  return defaultCondition(conditions["@agent/source"] ?? conditions.default);
}

function toSource(path: string): string {
  const ts = path.replace(/\.js$/, ".ts");
  if (existsSync(ts)) return ts;
  if (existsSync(join(path, "index.ts"))) return join(path, "index.ts");
  return path;
}

function importsOf(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  const pattern =
    /(?:^|[^.\w])(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,$]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  return [...text.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? "").filter(Boolean);
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}
