/**
 * Where the content of a run came from, for the flow guard: the vocabulary the loop (which tracks a
 * run's taint) and the policy (which decides tainted calls) share. Saved with every run and every
 * approval request held by the guard: change the kinds only on purpose, with a changeset.
 */

/** Whether content from a source may steer the run: a person's own words, or anybody's. */
export type TrustLabel = "trusted" | "untrusted";

/** The kinds of untrusted content a run can take in. */
export const FLOW_SOURCE_KINDS = [
  /** A tool's result (or its error text: that is the server's words too). */
  "tool",
  /** A resource a server served, read by a tool or attached to the prompt. */
  "resource",
  /** A prompt a server served. */
  "prompt",
  /** A workspace file that a tainted run wrote. */
  "file",
  /** A server's sampling request, which the run's model answered. */
  "sampling",
  /** A server's elicitation request, shown to the operator. */
  "elicitation",
] as const;

/** A kind of {@link FLOW_SOURCE_KINDS}. */
export type FlowSourceKind = (typeof FLOW_SOURCE_KINDS)[number];

/** One untrusted source that entered a run: what it was and the model turn it entered at. */
export interface FlowSource {
  kind: FlowSourceKind;
  /** The tool's name, the resource's URI, the prompt's name, or the file's absolute path. */
  name: string;
  /** The MCP server it came from, when it came from one. */
  server?: string;
  /** The model turn whose calls brought it in; 0 for what the run started with. */
  turn: number;
}

/** A detached copy of a source (only its own fields). */
export function copyFlowSource(source: FlowSource): FlowSource {
  const copy: FlowSource = { kind: source.kind, name: source.name, turn: source.turn };
  if (source.server !== undefined) copy.server = source.server;
  return copy;
}

/** The identity of a source, without the turn: what two sightings of one source share. */
export function flowSourceKey(source: Pick<FlowSource, "kind" | "name" | "server">): string {
  return `${source.kind}:${source.server ?? ""}:${source.name}`;
}

/**
 * `sources` followed by each of `added` not already among them (by {@link flowSourceKey}; the first
 * sighting, with its turn, is kept); the same array when nothing is new.
 */
export function mergeFlowSources(
  sources: readonly FlowSource[],
  added: readonly FlowSource[],
): readonly FlowSource[] {
  if (added.length === 0) return sources;
  const seen = new Set(sources.map(flowSourceKey));
  let merged: FlowSource[] | undefined;
  for (const source of added) {
    const key = flowSourceKey(source);
    if (seen.has(key)) continue;
    seen.add(key);
    merged ??= [...sources];
    merged.push(source);
  }
  return merged ?? sources;
}
