export {
  type AllowListProxy,
  type AllowListProxyOptions,
  type ProxyDecision,
  startAllowListProxy,
} from "./allow-list-proxy.js";
export {
  type BwrapCommand,
  type BwrapInvocation,
  buildBwrapCommand,
  type ProxyBridge,
} from "./bwrap-arguments.js";
export { type BwrapPreflight, preflightBwrap } from "./bwrap-preflight.js";
export {
  type BwrapSandbox,
  type BwrapSandboxOptions,
  type ConfinedProcess,
  type Confinement,
  type ConfinementGrants,
  createBwrapSandbox,
  type ProcessSpec,
} from "./bwrap-sandbox.js";
export { findExecutable } from "./find-executable.js";
export type { ResourceLimits, SandboxProfile } from "./sandbox-profile.js";
