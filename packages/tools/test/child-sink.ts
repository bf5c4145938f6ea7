/**
 * Runs the JSONL sink in a child process, for what a test process cannot do to itself: exit, crash,
 * be killed. Node cannot run the TypeScript sources, so they are transpiled into a temp folder first.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SOURCE = fileURLToPath(new URL("../src/", import.meta.url));
const BASE_SOURCE = fileURLToPath(new URL("../../base/src/", import.meta.url));
// The sink and what it imports at run time (tool.ts only lends it types), with every module of @agent/base.
const MODULES: [file: string, name: string][] = [
  ...[
    "node/jsonl-event-sink",
    "event-sink",
    "audit-bounds",
    "utf8",
    "canonical-json",
    "errors",
    "sha256/node",
  ].map((name): [string, string] => [join(SOURCE, `${name}.ts`), name]),
  ...readdirSync(BASE_SOURCE)
    .filter((file) => file.endsWith(".ts"))
    .map((file): [string, string] => [join(BASE_SOURCE, file), `base/${file.slice(0, -3)}`]),
];

const transpiled = new Map<string, string>();

/** The sink's modules as JavaScript, transpiled once per test file (not once per child). */
function transpiledModules(): Map<string, string> {
  if (transpiled.size > 0) return transpiled;
  for (const [file, name] of MODULES) {
    // The package's `#sha256` import map is not there in the temp folder: point it at Node's hash;
    // `@agent/base` is not installed there: the child's own imports map points at its copy.
    const output = ts
      .transpileModule(readFileSync(file, "utf8"), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      .outputText.replace('from "#sha256"', 'from "./sha256/node.js"')
      .replace('from "@agent/base"', 'from "#agent-base"');
    transpiled.set(name, output);
  }
  return transpiled;
}

/** How the child ends after emitting its events. */
export type ChildEnding =
  | "return"
  | "exit"
  | "throw"
  | "sigkill"
  | "emit-on-exit"
  | "decide-then-sigkill"
  | "await-decision-then-sigkill";

/**
 * Emits `count` events (`mcp_closed`, servers `s0`, `s1`, ...) through a sink in `flush` mode in a new
 * process that then ends as `ending` says, and returns the lines of the audit file afterwards.
 */
export function runChildSink(
  folder: string,
  options: { flush: "decisions" | "sync" | "batched"; count: number; ending: ChildEnding },
): string[] {
  writeChildModules(folder);
  const script = join(folder, "child.mjs");
  writeFileSync(script, CHILD_SCRIPT);
  const path = join(folder, "audit.jsonl");
  spawnSync(process.execPath, [script, path, options.flush, String(options.count), options.ending], {
    stdio: "ignore",
  });
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // No file: nothing was written.
  }
  return text === "" ? [] : text.trimEnd().split("\n");
}

/**
 * Emits one decision through a sink (flush `decisions`) on `path` in a new process whose files may
 * grow to `fileSizeLimitBytes` at most (bash's `ulimit -f`, in 1024-byte blocks), and says what the
 * child was told, `written` (emitDecision resolved) or `refused` (it rejected), and how it exited.
 */
export function runChildDecisionUnderLimit(
  folder: string,
  path: string,
  fileSizeLimitBytes: number,
): { told: string; status: number | null } {
  writeChildModules(folder);
  const script = join(folder, "decide.mjs");
  writeFileSync(script, DECIDE_SCRIPT);
  const limit = `ulimit -f ${Math.floor(fileSizeLimitBytes / 1024)} && exec "$0" "$@"`;
  const child = spawnSync("bash", ["-c", limit, process.execPath, script, path], { encoding: "utf8" });
  return { told: child.stdout, status: child.status };
}

/** The sink's modules, transpiled, and a package.json resolving their imports, in `folder`. */
function writeChildModules(folder: string): void {
  for (const [name, output] of transpiledModules()) {
    const target = join(folder, "lib", `${name}.js`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output);
  }
  // canonical-json imports "#sha256", which the package's own imports map resolves to Node's hash.
  writeFileSync(
    join(folder, "package.json"),
    JSON.stringify({
      type: "module",
      imports: { "#sha256": "./lib/sha256/node.js", "#agent-base": "./lib/base/index.js" },
    }),
  );
}

// Emits `count` records, then ends as told (see ChildEnding).
const CHILD_SCRIPT = `import { createJsonlEventSink } from "./lib/node/jsonl-event-sink.js";
const [path, flush, count, ending] = process.argv.slice(2);
const sink = createJsonlEventSink(path, { flush });
for (let index = 0; index < Number(count); index += 1) {
  sink.emit({ type: "mcp_closed", at: new Date().toISOString(), server: "s" + index, durationMs: index });
}
if (ending === "emit-on-exit") {
  process.on("exit", () => sink.emit({ type: "mcp_closed", at: new Date().toISOString(), server: "last", durationMs: 0 }));
}
if (ending === "decide-then-sigkill") {
  // A decision, then a record of the same turn after it, then the kill before the turn ends.
  sink.emit({ type: "tool_call_decided", at: new Date().toISOString(), runId: "r", callId: "c", toolName: "t", decision: "allow" });
  sink.emit({ type: "mcp_closed", at: new Date().toISOString(), server: "after", durationMs: 0 });
  process.kill(process.pid, "SIGKILL");
}
if (ending === "await-decision-then-sigkill") {
  // What the executor does: wait for the batched decision, then run the call (here: be killed).
  await sink.emitDecision({ type: "tool_call_decided", at: new Date().toISOString(), runId: "r", callId: "c", toolName: "t", decision: "allow" });
  process.kill(process.pid, "SIGKILL");
}
if (ending === "exit") process.exit(0);
if (ending === "throw") throw new Error("boom");
if (ending === "sigkill") process.kill(process.pid, "SIGKILL");
`;

const DECIDE_SCRIPT = `import { createJsonlEventSink } from "./lib/node/jsonl-event-sink.js";
const sink = createJsonlEventSink(process.argv[2], { onError: () => {} });
try {
  await sink.emitDecision({ type: "tool_call_decided", at: new Date().toISOString(), runId: "r", callId: "c", toolName: "t", decision: "allow" });
  process.stdout.write("written");
} catch {
  process.stdout.write("refused");
}
`;
