import { readFileSync } from "node:fs";

/** One diagnostic record a test server wrote (`started`, `cancelled`, `grandchild`, `received`, ...). */
export interface ServerRecord {
  event: string;
  /** The pid namespace the server ran in (`pid:[…]`, Linux), so a pid it recorded can be told a host pid or not. */
  pidNamespace?: string;
  [field: string]: unknown;
}

// Must match RECORD_PREFIX in server-kit.mjs.
const RECORD_PREFIX = "mcp-testing ";

/** Extracts the records from a server's stderr (or a record file), skipping every other line. */
export function parseServerRecords(text: string): ServerRecord[] {
  const records: ServerRecord[] = [];
  for (const line of text.split("\n")) {
    const start = line.indexOf(RECORD_PREFIX);
    if (start === -1) continue;
    try {
      const value: unknown = JSON.parse(line.slice(start + RECORD_PREFIX.length));
      if (typeof value === "object" && value !== null && typeof (value as ServerRecord).event === "string") {
        records.push(value as ServerRecord);
      }
    } catch {
      // A record cut by a bounded stderr buffer is not a record.
    }
  }
  return records;
}

/** Reads the records of the file a server was given as MCP_TESTING_RECORD_FILE; empty if it does not exist yet. */
export function readRecordFile(path: string): ServerRecord[] {
  try {
    return parseServerRecords(readFileSync(path, "utf8"));
  } catch {
    return [];
  }
}
