export {
  CONFIG_ENV_VARIABLE,
  type ConfigLocation,
  type ConfigPathSource,
  DEFAULT_CONFIG_FILE,
  PROJECT_MCP_FILE,
  requireConfigPath,
  resolveConfigPath,
} from "./config-discovery.js";
export { CONFIG_ERROR_CODES, ConfigError, type ConfigErrorCode } from "./config-error.js";
export { type ConfigIssue, formatFieldPath } from "./config-issues.js";
export { type ConfigSecrets, collectConfigSecrets } from "./config-secrets.js";
export { type Environment, type ExpansionResult, expandVariables } from "./expand-variables.js";
export { launchFilesOf } from "./launch-files.js";
export { type AgentConfig, type LoadConfigOptions, loadConfig } from "./load-config.js";
export type { OAuthServerConfig } from "./oauth-config.js";
export { parseJsonText, positionAt, type TextPosition } from "./parse-json-text.js";
export {
  type HttpServerConfig,
  IGNORED_SERVER_KEYS,
  readServerEntry,
  type ServerConfig,
  type ServerEntryContext,
  type ServerEntryResult,
  type StdioServerConfig,
  TIMEOUT_MS_SCHEMA,
} from "./server-config.js";
export { LOCAL_STATE, readStateConfigOf, type StateConfig } from "./state-config.js";
export type { StateTeamConfig } from "./state-team-config.js";
export { isToolSelected } from "./tool-selection.js";
export { type ConfigOrigins, userConfigPath } from "./user-config.js";
