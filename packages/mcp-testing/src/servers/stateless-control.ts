/**
 * Lets every `job` of the stateless test server (see `statelessServerPath`) that holds (`hold: true`)
 * end at its next `tasks/get`: the way a test decides when a long task is done, without a clock.
 */
export async function releaseHeldJobs(serverUrl: string): Promise<void> {
  const response = await fetch(new URL("/control/release", serverUrl), { method: "POST" });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`The stateless server refused the release (HTTP ${response.status}).`);
}
