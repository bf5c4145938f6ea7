import type { FlowSource, FlowSourceKind, RegisteredTool, TrustLabel } from "@agent/tools";
import type { TaintedFileStore } from "./tainted-files.js";

/** One call of a turn, before it runs (the shape `@agent/loop` hands its flow tracker). */
export interface TrackedCall {
  toolName: string;
  tool: RegisteredTool | undefined;
  /** The parsed arguments; `undefined` when they were not JSON. */
  input: unknown;
}

/** What a call's result is, as a source: a tool's output, a resource, a prompt. */
export interface SourceDescription {
  kind: Exclude<FlowSourceKind, "file" | "sampling" | "elicitation">;
  name: string;
  server?: string;
}

/** Options of {@link createFlowTracker}. */
export interface FlowTrackerOptions {
  /**
   * Whether a tool's results can be trusted to hold no instructions for the model. Default: a tool
   * of effect `external` (every MCP tool) is `untrusted`, the harness's own local tools `trusted`.
   */
  trustOf?: (tool: RegisteredTool) => TrustLabel;
  /** What an untrusted call's result is, as a source; default: the tool, by name. */
  describe?: (call: TrackedCall & { tool: RegisteredTool }) => SourceDescription;
  /** Where files tainted runs wrote are remembered; without it no file taints a reader. */
  taintedFiles?: TaintedFileStore;
  /**
   * The absolute paths of the files a trusted call will read, where that can be told from its input
   * (a `read_file` call, a server tool given a workspace path), to check against `taintedFiles`.
   */
  readsFiles?: (call: TrackedCall) => readonly string[] | Promise<readonly string[]>;
}

/** A flow tracker for one run: what `@agent/loop` takes as its `flow`, plus a way in for other arrivals. */
export interface FlowTracker {
  sourcesOf(calls: readonly TrackedCall[], turn: number): Promise<readonly (readonly FlowSource[])[]>;
  takeArrivals(turn: number): readonly FlowSource[];
  /**
   * Untrusted content that reached the run outside its calls (a server's sampling request or
   * elicitation); it joins the run's taint at the next look, at the turn of that look.
   */
  noteArrival(source: Omit<FlowSource, "turn">): void;
}

/**
 * Creates the flow tracker a run hands `@agent/loop` (`flow`): labels what each call brings into
 * the run by its tool's trust, and files tainted runs wrote by their marks in `taintedFiles`.
 */
export function createFlowTracker(options: FlowTrackerOptions = {}): FlowTracker {
  const trustOf = options.trustOf ?? defaultTrust;
  const describe = options.describe ?? ((call) => ({ kind: "tool", name: call.toolName }));
  let arrivals: Omit<FlowSource, "turn">[] = [];

  const ofCall = (call: TrackedCall, turn: number): FlowSource[] => {
    if (!call.tool || trustOf(call.tool) === "trusted") return [];
    const described = describe({ ...call, tool: call.tool });
    return [{ ...described, turn }];
  };

  return {
    async sourcesOf(calls, turn) {
      const sources = calls.map((call) => ofCall(call, turn));
      const { taintedFiles, readsFiles } = options;
      if (!taintedFiles || !readsFiles) return sources;
      // A call already untrusted needs no file look-up: its result taints the run whatever it read.
      const reads = await Promise.all(
        calls.map((call, index) => (sources[index]?.length ? [] : readsFiles(call))),
      );
      const paths = [...new Set(reads.flat())];
      if (paths.length === 0) return sources;
      const marked = new Map((await taintedFiles.findTainted(paths)).map((file) => [file.path, file]));
      return sources.map((ofThisCall, index) => {
        const files = (reads[index] ?? []).filter((path) => marked.has(path));
        return files.length === 0
          ? ofThisCall
          : [...ofThisCall, ...files.map((path) => ({ kind: "file" as const, name: path, turn }))];
      });
    },
    takeArrivals(turn) {
      if (arrivals.length === 0) return [];
      const taken = arrivals.map((source) => ({ ...source, turn }));
      arrivals = [];
      return taken;
    },
    noteArrival(source) {
      arrivals.push({ ...source });
    },
  };
}

function defaultTrust(tool: RegisteredTool): TrustLabel {
  return tool.effect === "external" ? "untrusted" : "trusted";
}
