import type { RegisteredTool } from "@agent/tools";
import type { RejectedTool, ToolListing } from "./discovery.js";
import { type RemoteToolCaller, toLocalTool } from "./tool-mapping.js";

/** One server's listing, sorted into what registers, what was rejected and what the config excluded. */
export interface ServerToolSet {
  tools: RegisteredTool[];
  rejected: RejectedTool[];
  excluded: string[];
}

/** Maps every listed tool the filter includes; a tool that cannot be mapped is rejected with its reason. */
export function buildServerTools(
  listing: ToolListing,
  include: (remoteName: string) => boolean,
  callRemote: RemoteToolCaller,
): ServerToolSet {
  const set: ServerToolSet = { tools: [], rejected: [...listing.rejected], excluded: [] };
  for (const descriptor of listing.tools) {
    if (!include(descriptor.remoteName)) {
      set.excluded.push(descriptor.remoteName);
      continue;
    }
    const mapped = toLocalTool(descriptor, callRemote);
    if (mapped.ok) set.tools.push(mapped.tool);
    else set.rejected.push({ remoteName: descriptor.remoteName, reason: mapped.reason });
  }
  return set;
}
