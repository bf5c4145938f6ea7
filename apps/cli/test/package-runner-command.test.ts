import { describe, expect, test } from "vitest";
import { parsePackageRunner, parsePythonSpec } from "../src/packages/package-runner-command.js";

function packageOf(command: string, args: string[]) {
  const parsed = parsePackageRunner(command, args);
  if (parsed.kind !== "package") throw new Error(`expected a package command, got ${JSON.stringify(parsed)}`);
  return parsed.command;
}

describe("npx and npm exec commands", () => {
  test.each([
    ["npx", ["-y", "@modelcontextprotocol/server-memory"]],
    ["npx", ["--yes", "@modelcontextprotocol/server-memory"]],
    ["npx", ["--yes=true", "@modelcontextprotocol/server-memory"]],
    ["npx", ["@modelcontextprotocol/server-memory"]],
    ["/usr/local/bin/npx", ["-q", "-y", "@modelcontextprotocol/server-memory"]],
    ["npx", ["-y", "--", "@modelcontextprotocol/server-memory"]],
    ["npm", ["exec", "-y", "--", "@modelcontextprotocol/server-memory"]],
    ["npm", ["x", "--yes", "@modelcontextprotocol/server-memory"]],
  ])("%s %j runs the scoped package's own executable at its latest version", (command, args) => {
    expect(packageOf(command, args)).toMatchObject({
      installer: "npm",
      packages: [{ name: "@modelcontextprotocol/server-memory", spec: "latest" }],
      bin: undefined,
      args: [],
    });
  });

  test.each([
    ["pkg@1.2.3", { name: "pkg", spec: "1.2.3" }],
    ["pkg@^1.2", { name: "pkg", spec: "^1.2" }],
    ["pkg@>=1 <2", { name: "pkg", spec: ">=1 <2" }],
    ["pkg@next", { name: "pkg", spec: "next" }],
    ["@scope/pkg@0.6.2", { name: "@scope/pkg", spec: "0.6.2" }],
    ["@scope/pkg", { name: "@scope/pkg", spec: "latest" }],
  ])("the version spec of %s is kept", (spec, request) => {
    expect(packageOf("npx", ["-y", spec]).packages).toEqual([request]);
  });

  test("everything after the package is the executable's, options and -- included", () => {
    expect(packageOf("npx", ["-y", "server-fs@1", "--root", ".", "--", "-y"]).args).toEqual([
      "--root",
      ".",
      "--",
      "-y",
    ]);
    expect(packageOf("npm", ["exec", "--", "pkg", "--port", "3"]).args).toEqual(["--port", "3"]);
  });

  test("-p and --package name the packages; the first positional is then the executable", () => {
    expect(
      packageOf("npx", ["-y", "-p", "@scope/tools@2", "-p=helper", "scope-server", "--flag"]),
    ).toMatchObject({
      packages: [
        { name: "@scope/tools", spec: "2" },
        { name: "helper", spec: "latest" },
      ],
      bin: "scope-server",
      args: ["--flag"],
    });
    expect(packageOf("npm", ["exec", "--package=pkg@3", "--", "pkg-bin"])).toMatchObject({
      packages: [{ name: "pkg", spec: "3" }],
      bin: "pkg-bin",
    });
  });

  test("a --registry on the command line is kept for the install", () => {
    expect(packageOf("npx", ["--registry", "http://127.0.0.1:4873", "-y", "pkg"]).registry).toBe(
      "http://127.0.0.1:4873",
    );
    expect(packageOf("npx", ["--registry=https://r.example/", "pkg"]).registry).toBe("https://r.example/");
  });

  test.each([
    [["-y", "./local/server"], "is not a registry package"],
    [["-y", "github:user/repo"], "is not a registry package"],
    [["-y", "https://example.com/pkg.tgz"], "is not a registry package"],
    [["-y", "pkg@npm:other@1"], "not a version, range or tag"],
    [["-y", "pkg@file:../x"], "not a version, range or tag"],
    [["--no-install", "pkg"], "not to install"],
    [["--yes=false", "pkg"], "not to install"],
    [["-c", "echo hi"], "not one the package cache understands"],
    [["-y"], "no package or command is named"],
    [["-p"], "needs a value"],
  ])("npx %j is not served by the cache, and says why", (args, reason) => {
    const parsed = parsePackageRunner("npx", args);
    expect(parsed.kind).toBe("unsupported");
    expect(parsed.kind === "unsupported" && parsed.reason).toContain(reason);
  });

  test.each([
    ["node", ["server.js"]],
    ["npm", ["run", "start"]],
    ["uv", ["run", "server.py"]],
    ["npx-like", ["-y", "pkg"]],
  ])("%s %j is not a package runner", (command, args) => {
    expect(parsePackageRunner(command, args)).toEqual({ kind: "none" });
  });
});

describe("uvx and uv tool run commands", () => {
  test.each([
    ["uvx", ["mcp-server-fetch"]],
    ["/home/u/.local/bin/uvx", ["-q", "mcp-server-fetch"]],
    ["uv", ["tool", "run", "mcp-server-fetch"]],
  ])("%s %j runs the package's own executable", (command, args) => {
    expect(packageOf(command, args)).toMatchObject({
      installer: "uv",
      packages: [{ name: "mcp-server-fetch", spec: "*" }],
      bin: undefined,
      args: [],
    });
  });

  test("--from names the package, --with adds more, the rest is the tool's", () => {
    expect(
      packageOf("uvx", ["--from", "mcp-tools[cli]==1.4", "--with", "httpx", "mcp-tool", "--verbose"]),
    ).toMatchObject({
      packages: [
        { name: "mcp-tools[cli]", spec: "==1.4" },
        { name: "httpx", spec: "*" },
      ],
      bin: "mcp-tool",
      args: ["--verbose"],
    });
    expect(packageOf("uvx", ["--python", "3.12", "pkg"]).python).toBe("3.12");
  });

  test.each([
    ["pkg@1.2", { name: "pkg", spec: "==1.2" }],
    ["pkg==1.2", { name: "pkg", spec: "==1.2" }],
    ["pkg>=1,<2", { name: "pkg", spec: ">=1,<2" }],
    ["pkg@latest", { name: "pkg", spec: "*" }],
  ])("the version of %s is a specifier", (text, request) => {
    expect(parsePythonSpec(text)).toEqual(request);
  });

  test("a path or URL is not fetched", () => {
    expect(parsePackageRunner("uvx", ["git+https://github.com/a/b"]).kind).toBe("unsupported");
    expect(parsePackageRunner("uvx", ["--index-url", "x", "pkg"]).kind).toBe("unsupported");
  });
});
