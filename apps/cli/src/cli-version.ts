import { readFileSync } from "node:fs";

/** The version of this package (`agent --version`), read from its package.json, which every install ships. */
export function cliVersion(): string {
  // src/ and dist/ sit at the same depth, so one relative URL serves both.
  const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  const { version } = JSON.parse(text) as { version?: unknown };
  return typeof version === "string" ? version : "unknown";
}
