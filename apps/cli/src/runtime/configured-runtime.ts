import { createRedactor, type Redactor, redactJson } from "@agent/mcp-transport";
import { transformEvents } from "@agent/tools";
import { type AgentConfig, loadConfig, requireConfigPath, userConfigPath } from "../config/index.js";
import { type CliIo, safeText, writeLine } from "../terminal/io.js";
import { redactingCredentialStore } from "./server-auth.js";
import {
  configuredSecrets,
  openStateRuntime,
  type RuntimeLocation,
  type StateRuntime,
} from "./state-runtime.js";

/**
 * The state, opened under the loaded configuration: what a command needs that reads its servers'
 * entries but starts none of them (`mcp get`, `mcp login`, `mcp refresh`). Its audit trail and
 * credential store pass every secret of the configuration through `redactor`.
 */
export interface ConfiguredRuntime extends StateRuntime {
  config: AgentConfig;
  /** Built from every secret of the configuration; every output of the command passes through it. */
  redactor: Redactor;
}

/**
 * Loads the configuration (its warnings on stderr), builds its redactor, and opens the state and
 * the audit trail behind it. Nothing is started and no tool is registered.
 */
export async function openConfiguredRuntime(
  location: RuntimeLocation,
  io: CliIo,
): Promise<ConfiguredRuntime> {
  const configPath = requireConfigPath({ flag: location.config, env: io.env, cwd: io.cwd });
  const config = loadConfig(configPath.path, io.env, { userFile: userConfigPath(io.env) });
  const secrets = configuredSecrets(config, io.env);
  for (const warning of config.warnings) {
    writeLine(io.stderr, `warning: ${safeText(warning)}`);
  }
  const redactor = createRedactor(secrets);
  const durable = await openStateRuntime(location, io, config.state);
  return {
    ...durable,
    credentials: redactingCredentialStore(durable.credentials, redactor),
    // Every event reaches the audit trail through the redactor, whoever emits it.
    events: transformEvents(durable.events, (event) => redactJson(event, redactor)),
    config,
    redactor,
  };
}
