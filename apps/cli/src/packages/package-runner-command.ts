// Recognises a stdio server launched through a package runner (`npx -y pkg`, `npm exec`, `uvx`,
// `uv tool run`): which packages it fetches, which executable it then runs and with what arguments.
// Pure text handling; installing is the package cache's business (package-cache.ts).
import { basename } from "node:path";

/** The installer a package-runner command needs: npm for npx and `npm exec`, uv for uvx and `uv tool run`. */
export type PackageInstaller = "npm" | "uv";

/** One package a runner would fetch, as the command names it. */
export interface PackageRequest {
  /** The registry name (`@scope/name` for npm; for uv, the project name with any `[extras]`). */
  name: string;
  /** The version, range or tag asked for; `latest` (npm) or `*` (uv) when the command gives none. */
  spec: string;
}

/** A server command that runs a registry package: what to install and what to run from it. */
export interface PackageRunnerCommand {
  installer: PackageInstaller;
  /** What the command calls itself (`npx`, `npm exec`, `uvx`, `uv tool run`), for messages. */
  runner: string;
  /** Installed together; the first one provides the executable unless `bin` says otherwise. */
  packages: PackageRequest[];
  /** The executable to run among the installed packages' executables; unset: the first package's own. */
  bin: string | undefined;
  /** The arguments the executable gets. */
  args: string[];
  /** A registry the command line names (`--registry URL`): it wins over the user's npm configuration. */
  registry?: string;
  /** uv's `--python` request, passed on to the install. */
  python?: string;
}

/** What a server command is: not a package runner, a runner the cache can serve, or one it cannot (and why). */
export type PackageRunnerParse =
  | { kind: "none" }
  | { kind: "package"; command: PackageRunnerCommand }
  | { kind: "unsupported"; runner: string; reason: string };

const NONE: PackageRunnerParse = Object.freeze({ kind: "none" });

/** Recognises `npx`, `npm exec`/`npm x`, `uvx` and `uv tool run` commands (by the command's base name). */
export function parsePackageRunner(command: string, args: readonly string[]): PackageRunnerParse {
  const name = basename(command);
  if (name === "npx") return parseNpmExec("npx", args);
  if (name === "npm" && (args[0] === "exec" || args[0] === "x"))
    return parseNpmExec("npm exec", args.slice(1));
  if (name === "uvx") return parseUvRun("uvx", args);
  if (name === "uv" && args[0] === "tool" && args[1] === "run")
    return parseUvRun("uv tool run", args.slice(2));
  return NONE;
}

/** How a runner reads the options before its command. */
interface RunnerOptions {
  /** Options without a value that change nothing the cache does. */
  switches: ReadonlySet<string>;
  /** Options with a value (`--name value` or `--name=value`), each handed to {@link take}. */
  valueOptions: ReadonlySet<string>;
  /** Whether the option tells the runner not to install, so that nothing could be fetched. */
  forbidsInstall?(key: string, inline: string | undefined): boolean;
  /** Takes one option's value; returns why the command cannot be served, if it cannot. */
  take(key: string, value: string): string | undefined;
}

/** A runner's command after its options: the first positional argument, and the arguments after it. */
interface RunnerOperands {
  first: string;
  rest: string[];
}

// Runners read options up to the first positional argument (or `--`); everything after it is the
// command's own, `--` included.
function readRunnerOptions(
  runner: string,
  args: readonly string[],
  options: RunnerOptions,
): RunnerOperands | { reason: string } {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--") {
      index++;
      break;
    }
    const option = optionOf(arg);
    if (!option) break;
    const { key, inline } = option;
    if (options.forbidsInstall?.(key, inline)) {
      return { reason: `${arg} tells ${runner} not to install; nothing could be fetched` };
    }
    if (options.switches.has(key)) continue;
    if (!options.valueOptions.has(key)) {
      return { reason: `the option ${arg} is not one the package cache understands` };
    }
    const value = inline ?? args[++index];
    if (value === undefined || value === "") return { reason: `${arg} needs a value` };
    const problem = options.take(key, value);
    if (problem !== undefined) return { reason: problem };
  }
  const first = args[index];
  if (first === undefined) return { reason: "no package or command is named" };
  return { first, rest: args.slice(index + 1) };
}

/** One option's name and inline value (`--name=value`), or undefined for a positional argument. */
function optionOf(arg: string): { key: string; inline: string | undefined } | undefined {
  if (!arg.startsWith("-") || arg === "-") return undefined;
  const [key = "", ...value] = arg.replace(/^-+/, "").split("=");
  return { key, inline: value.length > 0 ? value.join("=") : undefined };
}

/** Why `text`, named where an executable belongs, is not an executable's name; undefined if it is one. */
function executableProblem(text: string): string | undefined {
  return /^[^/\\\s]+$/.test(text) ? undefined : `${JSON.stringify(text)} is not an executable name`;
}

function unsupported(runner: string, reason: string): PackageRunnerParse {
  return { kind: "unsupported", runner, reason };
}

const NPM_SWITCHES: ReadonlySet<string> = new Set(["y", "yes", "q", "quiet", "s", "silent"]);
const NPM_VALUE_OPTIONS: ReadonlySet<string> = new Set(["p", "package", "registry"]);
const NPM_NO_INSTALL: ReadonlySet<string> = new Set(["no-install", "no", "no-yes"]);

// `npm exec` reads its line as npx does once npx has put `--` before the first positional argument.
function parseNpmExec(runner: string, args: readonly string[]): PackageRunnerParse {
  const packages: PackageRequest[] = [];
  let registry: string | undefined;
  const operands = readRunnerOptions(runner, args, {
    switches: NPM_SWITCHES,
    valueOptions: NPM_VALUE_OPTIONS,
    forbidsInstall: (key, inline) =>
      NPM_NO_INSTALL.has(key) || ((key === "y" || key === "yes") && inline === "false"),
    take(key, value) {
      if (key === "registry") {
        registry = value;
        return undefined;
      }
      const request = parseNpmSpec(value);
      if (typeof request === "string") return request;
      packages.push(request);
      return undefined;
    },
  });
  if ("reason" in operands) return unsupported(runner, operands.reason);
  const { first, rest } = operands;
  // With --package, the first positional is the executable; without, it is the package itself.
  if (packages.length > 0) {
    const problem = executableProblem(first);
    if (problem !== undefined) return unsupported(runner, problem);
    return done(runner, packages, first, rest, registry);
  }
  const request = parseNpmSpec(first);
  if (typeof request === "string") return unsupported(runner, request);
  return done(runner, [request], undefined, rest, registry);
}

function done(
  runner: string,
  packages: PackageRequest[],
  bin: string | undefined,
  args: string[],
  registry: string | undefined,
): PackageRunnerParse {
  const command: PackageRunnerCommand = { installer: "npm", runner, packages, bin, args };
  if (registry !== undefined) command.registry = registry;
  return { kind: "package", command };
}

const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
// A version, a range (`^1.2`, `>=1 <2`, `1.x || 2`) or a dist-tag: what a registry answers by itself.
const REGISTRY_SPEC = /^[0-9A-Za-z.^~<>=|*+ -]+$/;

/** `name`, `name@spec`, `@scope/name`, `@scope/name@spec`; or why it is not a registry package. */
export function parseNpmSpec(text: string): PackageRequest | string {
  const at = text.indexOf("@", text.startsWith("@") ? 1 : 0);
  const name = at === -1 ? text : text.slice(0, at);
  const spec = at === -1 ? "latest" : text.slice(at + 1);
  if (!NPM_NAME.test(name)) {
    return `${JSON.stringify(text)} is not a registry package (a path, URL or git repository is not fetched by the package cache)`;
  }
  if (spec === "" || !REGISTRY_SPEC.test(spec)) {
    return `${JSON.stringify(text)} asks for ${JSON.stringify(spec)}, which is not a version, range or tag of the registry`;
  }
  return { name, spec };
}

const UV_SWITCHES: ReadonlySet<string> = new Set(["q", "quiet", "isolated", "no-progress"]);
const UV_VALUE_OPTIONS: ReadonlySet<string> = new Set(["from", "with", "python", "p"]);

// uvx's `--from` names the package that provides the command, `--with` more packages to install beside it.
function parseUvRun(runner: string, args: readonly string[]): PackageRunnerParse {
  const packages: PackageRequest[] = [];
  let from: PackageRequest | undefined;
  let python: string | undefined;
  const operands = readRunnerOptions(runner, args, {
    switches: UV_SWITCHES,
    valueOptions: UV_VALUE_OPTIONS,
    take(key, value) {
      if (key === "python" || key === "p") {
        python = value;
        return undefined;
      }
      const request = parsePythonSpec(value);
      if (typeof request === "string") return request;
      if (key === "from") from = request;
      else packages.push(request);
      return undefined;
    },
  });
  if ("reason" in operands) return unsupported(runner, operands.reason);
  const { first, rest } = operands;
  let bin: string | undefined;
  if (from) {
    const problem = executableProblem(first);
    if (problem !== undefined) return unsupported(runner, problem);
    bin = first;
  } else {
    const request = parsePythonSpec(first);
    if (typeof request === "string") return unsupported(runner, request);
    from = request;
  }
  const command: PackageRunnerCommand = {
    installer: "uv",
    runner,
    packages: [from, ...packages],
    bin,
    args: rest,
  };
  if (python !== undefined) command.python = python;
  return { kind: "package", command };
}

const PYTHON_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,\s-]+\])?/;

/** `name`, `name[extra]`, `name@1.2`, `name==1.2`, `name>=1,<2`; or why it is not a PyPI requirement. */
export function parsePythonSpec(text: string): PackageRequest | string {
  const match = PYTHON_NAME.exec(text);
  const name = match?.[0] ?? "";
  const rest = text.slice(name.length).trim();
  if (name === "" || (rest !== "" && !/^(?:@|==|>=|<=|~=|!=|>|<)/.test(rest))) {
    return `${JSON.stringify(text)} is not a PyPI requirement (a path, URL or git repository is not fetched by the package cache)`;
  }
  if (rest === "" || rest === "@latest") return { name, spec: "*" };
  const spec = rest.startsWith("@") ? `==${rest.slice(1)}` : rest;
  if (!/^[0-9A-Za-z.*+!=<>~,\s-]+$/.test(spec)) {
    return `${JSON.stringify(text)} asks for ${JSON.stringify(spec)}, which is not a version specifier`;
  }
  return { name, spec };
}

/** The name an executable of `name` gets when its package does not say: the name without scope or extras. */
export function defaultBinOf(request: PackageRequest): string {
  return request.name.replace(/^@[^/]+\//, "").replace(/\[.*$/, "");
}
