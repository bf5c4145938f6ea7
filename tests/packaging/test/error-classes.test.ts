import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Every exported error class of every package (and the CLI) is a CodedError of @agent/base: the one
// skeleton (a `code`, a registered brand) instead of a copy per package. Its `isInstance` must
// recognise an instance made by another copy of the module, where `instanceof` cannot: the test
// loads each module twice (a query string makes a second module instance) and crosses them.

const root = new URL("../../..", import.meta.url).pathname;
const SOURCE_ROOTS = [
  ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "src")),
  ...readdirSync(join(root, "apps")).map((name) => join(root, "apps", name, "src")),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

interface ErrorClassSite {
  file: string;
  name: string;
  base: string;
}

const sites: ErrorClassSite[] = SOURCE_ROOTS.flatMap((dir) =>
  sourceFiles(dir).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^export class (\w+) extends (\w+)(?:<[^>]*>)? \{/gm)]
      .filter(([, name]) => /Error$/.test(name ?? ""))
      .map(([, name, base]) => ({ file, name: name as string, base: base as string })),
  ),
);

type ErrorClass = (new (
  code: string,
  message: string,
) => Error & { code: string }) & {
  isInstance(value: unknown): boolean;
};

async function load(file: string, name: string, copy: string): Promise<ErrorClass> {
  const module = (await import(/* @vite-ignore */ `${file}?copy=${copy}`)) as Record<string, unknown>;
  return module[name] as ErrorClass;
}

describe("error classes", () => {
  it("finds the error classes", () => {
    expect(sites.length).toBeGreaterThanOrEqual(10);
  });

  for (const { file, name, base } of sites) {
    describe(`${name} (${relative(root, file)})`, () => {
      it("extends CodedError from @agent/base", () => {
        expect(base).toBe("CodedError");
      });

      it("is recognised by isInstance across two copies of its module, and only it", async () => {
        const first = await load(file, name, "a");
        const second = await load(file, name, "b");
        expect(first).not.toBe(second);
        const error = new first("some_code", "a message");
        expect(error).not.toBeInstanceOf(second);
        expect(second.isInstance(error)).toBe(true);
        expect(first.isInstance(error)).toBe(true);
        expect(error.code).toBe("some_code");
        expect(error.message).toBe("a message");
        expect(error).toBeInstanceOf(Error);
        expect(second.isInstance(new Error("plain"))).toBe(false);
        expect(second.isInstance({ code: "some_code", message: "look-alike" })).toBe(false);
        expect(second.isInstance(null)).toBe(false);
        // No other class's brand: each class has its own.
        for (const other of sites.filter((site) => site.name !== name)) {
          const otherClass = await load(other.file, other.name, "a");
          expect(otherClass.isInstance(error)).toBe(false);
        }
      });
    });
  }
});
