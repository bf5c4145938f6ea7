import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** What one exported name is: what a consumer can do with it. */
export type ExportKind = "class" | "function" | "enum" | "namespace" | "value" | "type" | "value+type";

/** One publishable package: its name, version, folder and the source file behind each `exports` subpath. */
export interface PublishablePackage {
  name: string;
  version: string;
  dir: string;
  entries: Record<string, string>;
}

/** Every package under packages/ and apps/ that is not private, with its entry points' source files. */
export function publishablePackages(root: string): PublishablePackage[] {
  return ["packages", "apps"].flatMap((folder) =>
    readdirSync(join(root, folder)).flatMap((name): PublishablePackage[] => {
      const dir = join(root, folder, name);
      if (!existsSync(join(dir, "package.json"))) return [];
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        version: string;
        private?: boolean;
        exports?: Record<string, Record<string, string> | string>;
      };
      if (manifest.private) return [];
      const entries: Record<string, string> = {};
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        const source = typeof target === "string" ? target : target["@agent/source"];
        // Only code entry points have an export surface (a `./package.json` subpath has none).
        if (source?.endsWith(".ts")) entries[subpath] = join(dir, source);
      }
      return [{ name: manifest.name, version: manifest.version, dir, entries }];
    }),
  );
}

/**
 * The names and kinds each entry point exports, read from the TypeScript sources with the compiler
 * API (one program for all of them, no build and no type check needed), sorted by name.
 */
export function exportSurfaces(root: string, files: string[]): Map<string, Record<string, ExportKind>> {
  const config = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram({ rootNames: files, options: { ...options, noEmit: true } });
  const checker = program.getTypeChecker();
  const surfaces = new Map<string, Record<string, ExportKind>>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${file} is not a module the compiler can read`);
    const surface: Record<string, ExportKind> = {};
    const exported = checker.getExportsOfModule(moduleSymbol);
    for (const symbol of exported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      surface[symbol.name] = kindOf(symbol, checker);
    }
    surfaces.set(file, surface);
  }
  return surfaces;
}

function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): ExportKind {
  const typeOnly = symbol.declarations?.some(
    (declaration) =>
      ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly),
  );
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  // `export type { SomeClass }` gives consumers the type only.
  if (typeOnly) return "type";
  if (flags & ts.SymbolFlags.Class) return "class";
  if (flags & ts.SymbolFlags.Enum) return "enum";
  if (flags & ts.SymbolFlags.Function) return "function";
  const isType = (flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) !== 0;
  if (flags & ts.SymbolFlags.Variable) return isType ? "value+type" : "value";
  if (flags & ts.SymbolFlags.ValueModule) return "namespace";
  if (isType) return "type";
  throw new Error(`cannot tell what kind of export ${symbol.name} is (flags ${flags})`);
}

/** A changeset file: its name (without `.md`) and the packages its front matter bumps. */
export interface Changeset {
  name: string;
  packages: string[];
}

/** The pending changesets in `.changeset/` (its README excluded). */
export function pendingChangesets(root: string): Changeset[] {
  const dir = join(root, ".changeset");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), "utf8");
      const frontMatter = text.match(/^---\r?\n([\s\S]*?)\r?\n---/)?.[1] ?? "";
      const packages = [
        ...frontMatter.matchAll(/^\s*["']?([^"':\s]+)["']?\s*:\s*(?:major|minor|patch)\s*$/gm),
      ];
      return { name: file.slice(0, -".md".length), packages: packages.map((match) => match[1] ?? "") };
    });
}
