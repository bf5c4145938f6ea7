import { defaultServerConditions } from "vite";

/** Resolve workspace packages to their TypeScript source, so tests never wait for a build. */
export const sourceConditions: string[] = ["@agent/source", ...defaultServerConditions];
