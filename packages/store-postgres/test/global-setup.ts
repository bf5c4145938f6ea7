import type { TestProject } from "vitest/node";
import { startThrowawayCluster } from "../src/testing/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The superuser URL of the throwaway cluster every test file of this package shares. */
    postgresUrl: string;
  }
}

/** One throwaway PostgreSQL cluster for the whole run; each test makes its own database in it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startThrowawayCluster();
  project.provide("postgresUrl", cluster.url);
  return () => cluster.stop();
}
