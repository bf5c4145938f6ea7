import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { serverOfToolName, serverToolName } from "@agent/mcp-client";
import {
  createFlowTracker,
  type FlowTracker,
  type SourceDescription,
  type TaintedFileStore,
  type TrackedCall,
} from "@agent/policy";
import type { FlowSource, RegisteredTool, TrustLabel } from "@agent/tools";
import type { ServerConfig } from "../config/index.js";
import type { PathGuard } from "../local-tools/index.js";
import { RUN_COMMAND_TOOL } from "./sandboxes.js";

/** How many strings of one call's input are looked at as possible workspace paths. */
const MAX_PATH_CANDIDATES = 64;

/** The flow guard's labels for this CLI: which servers are trusted, and each agent run's tracker. */
export interface RunFlows {
  /** A server's trust label (`untrusted` unless its entry says `"trust": "trusted"`; unknown: untrusted). */
  trustOf(server: string): TrustLabel;
  /**
   * What a fetch made before a run starts (`--attach`, `--prompt`) brings into it: the server's
   * content if it is untrusted, a tainted file if a trusted server was handed one.
   */
  sourcesOfFetch(call: TrackedCall): Promise<FlowSource[]>;
  /** Starts tracking one agent run: requests of untrusted servers arrive in it until the next run starts. */
  trackRun(): FlowTracker;
  /**
   * A server's request reached the person or the model outside a call (sampling, elicitation): the
   * current run takes it in, if the server is untrusted.
   */
  noteServerRequest(server: string, kind: "sampling" | "elicitation"): void;
}

/** Options of {@link createRunFlows}. */
export interface RunFlowsOptions {
  servers: readonly ServerConfig[];
  taintedFiles: TaintedFileStore;
  /** The guard of the local file tools: `read_file`'s paths resolve as the tool resolves them. */
  guard: PathGuard;
  /** The workspace root's real path: paths a trusted server is handed are looked up below it. */
  workspaceRoot: string;
}

/** Builds the CLI's {@link RunFlows}. */
export function createRunFlows(options: RunFlowsOptions): RunFlows {
  const trust = new Map(options.servers.map((server) => [server.name, server.trust]));
  const trustOf = (server: string): TrustLabel => trust.get(server) ?? "untrusted";
  let current: FlowTracker | undefined;

  // The files below a directory that are tainted (marked, or changed in a taint window).
  const markedUnder = async (directory: string): Promise<string[]> =>
    (await options.taintedFiles.findTaintedUnder(directory)).map((file) => file.path);
  const readsFiles = async (call: TrackedCall): Promise<readonly string[]> => {
    if (call.tool === undefined) return [];
    if (call.toolName === "read_file" && call.tool.group === undefined) {
      const path = (call.input as { path?: unknown } | undefined)?.path;
      if (typeof path !== "string") return [];
      const checked = await options.guard.check(path);
      return checked.ok ? [checked.absolute] : [];
    }
    // A listing reads names: a tainted run may have parked its words in them. The directory's own
    // status changes with every entry made (what a taint window sees), and its marked entries count.
    if (call.toolName === "list_directory" && call.tool.group === undefined) {
      const path = (call.input as { path?: unknown } | undefined)?.path;
      const checked = await options.guard.check(typeof path === "string" ? path : ".");
      if (!checked.ok) return [];
      return [checked.absolute, ...(await markedUnder(checked.absolute))];
    }
    // A command may read (or run, as make runs a Makefile) any file of the workspace: every marked one
    // counts, and those its arguments name.
    if (call.toolName === RUN_COMMAND_TOOL && call.tool.group === undefined) {
      return markedUnder(options.workspaceRoot);
    }
    // A trusted server handed a workspace path (its own read tool, a file:// resource) reads that
    // file, or what is below a directory it was handed; past the search's bounds, anything.
    if (serverOfToolName(call.toolName) === undefined) return [];
    const named = workspacePathsIn(call.input, options.workspaceRoot);
    if (!named.complete) return markedUnder(options.workspaceRoot);
    const below = await Promise.all(
      named.paths.filter(isDirectory).map((directory) => markedUnder(directory)),
    );
    return [...new Set([...named.paths, ...below.flat()])];
  };

  const trackerOptions = {
    trustOf: (tool: RegisteredTool): TrustLabel => {
      const server = serverOfToolName(tool.name);
      // The harness's own tools are trusted; what they read is judged by its marks (readsFiles).
      return server === undefined ? "trusted" : trustOf(server);
    },
    describe: describeCall,
    taintedFiles: options.taintedFiles,
    readsFiles,
  };
  return {
    trustOf,
    async sourcesOfFetch(call) {
      const [sources] = await createFlowTracker(trackerOptions).sourcesOf([call], 0);
      return [...(sources ?? [])];
    },
    trackRun() {
      current = createFlowTracker(trackerOptions);
      return current;
    },
    noteServerRequest(server, kind) {
      if (trustOf(server) === "trusted") return;
      current?.noteArrival({ kind, name: server, server });
    },
  };
}

/** What an untrusted call's result is: a resource by its URI, a prompt by its name, else the tool. */
function describeCall(call: TrackedCall): SourceDescription {
  const server = serverOfToolName(call.toolName);
  const input = (call.input ?? {}) as { uri?: unknown; name?: unknown };
  if (server !== undefined) {
    if (call.toolName === serverToolName(server, "read_resource") && typeof input.uri === "string") {
      return { kind: "resource", name: input.uri, server };
    }
    if (call.toolName === serverToolName(server, "get_prompt") && typeof input.name === "string") {
      return { kind: "prompt", name: input.name, server };
    }
    return { kind: "tool", name: call.toolName, server };
  }
  return { kind: "tool", name: call.toolName };
}

/**
 * The existing files and directories below `root` (the root included) that strings of `input`
 * name (paths or `file:` URIs), by real path, and whether the search stopped at its bounds.
 */
function workspacePathsIn(input: unknown, root: string): { paths: string[]; complete: boolean } {
  const found = new Set<string>();
  let looked = 0;
  let complete = true;
  const visit = (value: unknown, depth: number): void => {
    if (looked >= MAX_PATH_CANDIDATES || depth > 8) {
      complete = false;
      return;
    }
    if (typeof value === "string") {
      looked += 1;
      const path = workspacePath(value, root);
      if (path !== undefined) found.add(path);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(input, 0);
  return { paths: [...found], complete };
}

function workspacePath(text: string, root: string): string | undefined {
  if (text.length === 0 || text.length > 4096 || text.includes("\0")) return undefined;
  let candidate = text;
  if (text.startsWith("file:")) {
    try {
      candidate = fileURLToPath(text);
    } catch {
      return undefined;
    }
  }
  const absolute = isAbsolute(candidate) ? candidate : resolve(root, candidate);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return undefined;
  }
  const below = relative(root, real);
  return below.startsWith(`..${sep}`) || below === ".." || isAbsolute(below) ? undefined : real;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `handler`, first telling the flow guard that a server's request reached the run: what a server
 * asks the person or the run's model is that server's content, and taints the run if it is untrusted.
 */
export function noting<Request extends { server: string }, Context, Answer>(
  flows: RunFlows,
  kind: "sampling" | "elicitation",
  handler: (request: Request, context: Context) => Answer,
): (request: Request, context: Context) => Answer {
  return (request, context) => {
    flows.noteServerRequest(request.server, kind);
    return handler(request, context);
  };
}
