/** The parts of the conformance runner its vitest wrapper uses (run.mjs is plain JavaScript). */
export const SCENARIO_TIMEOUT_MS: number;
export const CONCURRENCY: number;
export function specVersions(): string[];
export function requirements(specVersion: string): {
  required: string[];
  notScored: { scenario: string; reason: string }[];
};
