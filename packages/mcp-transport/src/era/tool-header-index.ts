/**
 * Which `Mcp-Param-*` headers each tool's calls carry, learned from the `tools/list` results that
 * went through this connection. One index per transport, owned by it: nothing is shared between
 * connections, and a relisted tool replaces what was known of it.
 */
import { isRecord } from "./envelope.js";
import { readToolParamHeaders, type ToolParamHeader } from "./tool-param-headers.js";

/** The annotated parameters of the tools a connection listed, by tool name. */
export class ToolHeaderIndex {
  readonly #byTool = new Map<string, readonly ToolParamHeader[]>();

  /** Learns from one page of a `tools/list` result; a tool with invalid annotations is forgotten. */
  record(result: unknown): void {
    if (!isRecord(result) || !Array.isArray(result.tools)) return;
    for (const tool of result.tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") continue;
      const read = readToolParamHeaders(tool.inputSchema);
      if (read.ok && read.headers.length > 0) this.#byTool.set(tool.name, read.headers);
      else this.#byTool.delete(tool.name);
    }
  }

  /** The annotated parameters of `tool`, none when it has none or was never listed. */
  headersOf(tool: string): readonly ToolParamHeader[] {
    return this.#byTool.get(tool) ?? [];
  }
}
