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
  PROXY_PORT_IN_SANDBOX,
  PROXY_SOCKET_IN_SANDBOX,
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
export { BWRAP_ENV_VARIABLE, bwrapCandidate, findExecutable } from "./find-executable.js";
export { createPidsCgroup, findPidsCgroupParent, type PidsCgroup } from "./pids-cgroup.js";
export { DEFAULT_RESOURCE_LIMITS, type ResourceLimits, type SandboxProfile } from "./sandbox-profile.js";
