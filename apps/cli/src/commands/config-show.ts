import { isRecord } from "@agent/base";
import { createRedactor } from "@agent/mcp-transport";
import {
  type ConfigLocation,
  loadConfig,
  parseJsonText,
  resolveConfigPath,
  userConfigPath,
} from "../config/index.js";
import { readConfigText } from "../config/load-config.js";
import { mergeUserDocument, readUserDocument, userServerEntries } from "../config/user-config.js";
import { EXIT_CODES, type ExitCode } from "../exit-codes.js";
import { configuredSecrets } from "../runtime/state-runtime.js";
import { safeLine, writeJson, writeLine } from "../terminal/io.js";
import type { OutputGuard } from "../terminal/output-guard.js";

/**
 * `agent config show [--json]`: the project and user-level files, the merged settings as written
 * (secrets redacted) and which file each came from. Loads the whole configuration first, so a
 * problem in either file is reported as every command reports it.
 */
export async function configShowCommand(
  guard: OutputGuard,
  location: { config: string | undefined; json: boolean },
): Promise<ExitCode> {
  const { io } = guard;
  const project = resolveConfigPath({ flag: location.config, env: io.env, cwd: io.cwd });
  const userFile = userConfigPath(io.env);
  const user = readUserDocument(userFile);
  const files = {
    project: project.found ? project.path : null,
    user: user?.file ?? null,
    searched: project.searched,
    userLooked: userFile ?? null,
  };
  if (!project.found) {
    // Nothing to merge into: say where the search went, and what the user file would add, with the
    // secrets it holds (its servers' env values and headers) learnt as a whole file's would be.
    if (user) guard.protect(createRedactor(configuredSecrets(loadConfig(user.file, io.env), io.env)));
    if (location.json) writeJson(io, { ...files, settings: user?.document ?? {}, origins: {} });
    else printMissing(guard, project, userFile, user !== undefined);
    return EXIT_CODES.usage;
  }
  const config = loadConfig(project.path, io.env, { userFile });
  guard.protect(createRedactor(configuredSecrets(config, io.env)));
  const own = parseJsonText(readConfigText(project.path), project.path);
  const merged = mergeUserDocument({ file: project.path, document: own }, user).document;
  const settings = isRecord(merged) ? { ...merged } : {};
  const userServers = Object.fromEntries(userServerEntries(own, user));
  settings.mcpServers = { ...(isRecord(settings.mcpServers) ? settings.mcpServers : {}), ...userServers };
  if (location.json) {
    writeJson(io, { ...files, settings, origins: config.origins });
    return EXIT_CODES.ok;
  }
  writeLine(io.stdout, `project: ${safeLine(project.path)}`);
  writeLine(
    io.stdout,
    `user:    ${user ? safeLine(user.file) : `none (looked for ${safeLine(userFile ?? "no home directory")})`}`,
  );
  writeLine(io.stdout, "");
  for (const [path, file] of Object.entries(config.origins)) {
    const origin = file === project.path ? "project" : "user";
    writeLine(io.stdout, `  ${safeLine(path).padEnd(32)} ${origin}`);
  }
  writeLine(io.stdout, "");
  // Every write passes the guard, which now knows the configuration's secrets.
  for (const line of JSON.stringify(settings, null, 2).split("\n")) writeLine(io.stdout, safeLine(line));
  return EXIT_CODES.ok;
}

function printMissing(
  guard: OutputGuard,
  project: ConfigLocation,
  userFile: string | undefined,
  hasUser: boolean,
): void {
  const { io } = guard;
  const where = project.source === "default" ? project.searched.join(", ") : project.path;
  writeLine(io.stderr, `agent: no project configuration (looked in ${safeLine(where)}).`);
  writeLine(
    io.stderr,
    hasUser
      ? `agent: user configuration: ${safeLine(userFile ?? "")} (merged under a project's; commands need a project file)`
      : `agent: no user configuration at ${safeLine(userFile ?? "(no home directory)")}`,
  );
}
