import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isRecord } from "@agent/base";
import { homeOf } from "./config-discovery.js";
import { CONFIG_FILE_SCHEMA, USER_CONFIG_KEYS } from "./config-file-schema.js";
import { issuesFromZod } from "./config-issues.js";
import type { Environment } from "./expand-variables.js";
import { invalidConfig, readConfigText } from "./load-config.js";
import { parseJsonText } from "./parse-json-text.js";

/**
 * The user-level configuration file: `$XDG_CONFIG_HOME/agent/config.json` when that variable is an
 * absolute path, else `~/.config/agent/config.json`. Undefined without a home directory.
 */
export function userConfigPath(env: Environment): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "agent", "config.json");
  const home = homeOf(env);
  return home === undefined ? undefined : join(home, ".config", "agent", "config.json");
}

/** A user-level configuration as read: its file and its JSON document (only {@link USER_CONFIG_KEYS}). */
export interface UserDocument {
  file: string;
  document: Record<string, unknown>;
}

/**
 * Reads the user-level configuration at `file`, if there is one. Throws `ConfigError` naming that
 * file when it is not JSON, sets a project-only key, or has a field the project file would refuse.
 */
export function readUserDocument(file: string | undefined): UserDocument | undefined {
  if (file === undefined || !existsSync(file)) return undefined;
  const document = parseJsonText(readConfigText(file), file);
  if (!isRecord(document)) {
    throw invalidConfig(file, "config_invalid", [
      { path: "(the top level)", message: "must be a JSON object" },
    ]);
  }
  const shared = USER_CONFIG_KEYS as readonly string[];
  // A key of the project file that describes one project (the workspace, the state) is named as such.
  const projectOnly = Object.keys(document).filter(
    (key) => !shared.includes(key) && Object.hasOwn(CONFIG_FILE_SCHEMA.shape, key),
  );
  const rest = Object.fromEntries(Object.entries(document).filter(([key]) => !projectOnly.includes(key)));
  const schema = CONFIG_FILE_SCHEMA.pick({
    $schema: true,
    mcpServers: true,
    policy: true,
    model: true,
    toolTimeoutMs: true,
    toolOutputMaxChars: true,
    runCommand: true,
  });
  const parsed = schema.safeParse(rest);
  const issues = [
    ...projectOnly.map((key) => ({
      path: key,
      message:
        "is a project setting: set it in the project's agent.config.json, not in the user configuration",
    })),
    ...(parsed.success ? [] : issuesFromZod(parsed.error, schema)),
  ];
  if (issues.length > 0) throw invalidConfig(file, "config_invalid", issues);
  return { file, document };
}

/** Which file each merged setting came from: a setting's path (`mcpServers.docs`, `policy.rules[2]`) to a file. */
export type ConfigOrigins = Record<string, string>;

/**
 * The project document with the user-level one under it, and where each part came from. The rules:
 * a server entry of the project replaces the user's entry of that name whole; policy rules are
 * concatenated, the project's first (among matching rules deny beats ask beats allow, so a user's
 * deny holds in every project); the safety settings (each `policy.defaults` effect, `policy.network`,
 * `policy.sandbox`, `policy.flows`) are the stricter of the two files' values, so the user file is a
 * floor no project can lower; every other setting (`model`, `toolTimeoutMs`, `toolOutputMaxChars`,
 * `runCommand`) is the project's where it sets it, else the user's. `mcpServers` of the result holds the project's entries only:
 * the user's are read against their own file's directory (see {@link userServerEntries}).
 */
export function mergeUserDocument(
  project: { file: string; document: unknown },
  user: UserDocument | undefined,
): { document: unknown; origins: ConfigOrigins } {
  const origins: ConfigOrigins = {};
  if (!isRecord(project.document)) return { document: project.document, origins };
  const own = project.document;
  const theirs = user?.document ?? {};
  const document: Record<string, unknown> = { ...own };
  for (const key of ["model", "toolTimeoutMs", "toolOutputMaxChars", "runCommand"] as const) {
    if (own[key] !== undefined) origins[key] = project.file;
    else if (theirs[key] !== undefined && user) {
      document[key] = theirs[key];
      origins[key] = user.file;
    }
  }
  for (const name of Object.keys(isRecord(own.mcpServers) ? own.mcpServers : {})) {
    origins[`mcpServers.${name}`] = project.file;
  }
  for (const name of userServerEntries(project.document, user).map(([name]) => name)) {
    if (user) origins[`mcpServers.${name}`] = user.file;
  }
  const policy = mergePolicy(own.policy, theirs.policy, project.file, user?.file, origins);
  if (policy !== undefined) document.policy = policy;
  return { document, origins };
}

/** The user-level server entries the project does not replace, in the user file's order. */
export function userServerEntries(
  projectDocument: unknown,
  user: UserDocument | undefined,
): [string, unknown][] {
  if (!user || !isRecord(user.document.mcpServers)) return [];
  const projectServers =
    isRecord(projectDocument) && isRecord(projectDocument.mcpServers) ? projectDocument.mcpServers : {};
  return Object.entries(user.document.mcpServers).filter(([name]) => !Object.hasOwn(projectServers, name));
}

function mergePolicy(
  own: unknown,
  theirs: unknown,
  projectFile: string,
  userFile: string | undefined,
  origins: ConfigOrigins,
): unknown {
  // A project policy that is not an object is the project's problem, reported by its schema.
  if (own !== undefined && !isRecord(own)) return own;
  const project = own ?? {};
  const user = isRecord(theirs) ? theirs : {};
  if (own === undefined && theirs === undefined) return undefined;
  const merged: Record<string, unknown> = {};
  const pick = (path: string, ladder: readonly string[], mine: unknown, yours: unknown) => {
    const winner = stricter(ladder, mine, yours);
    if (winner === undefined) return undefined;
    origins[path] = winner === "project" ? projectFile : (userFile ?? projectFile);
    return winner === "project" ? mine : yours;
  };
  for (const [key, ladder] of Object.entries(SAFETY_LADDERS)) {
    const value = pick(`policy.${key}`, ladder, project[key], user[key]);
    if (value !== undefined) merged[key] = value;
  }
  const projectDefaults = isRecord(project.defaults) ? project.defaults : {};
  const userDefaults = isRecord(user.defaults) ? user.defaults : {};
  if (project.defaults !== undefined || user.defaults !== undefined) {
    const defaults: Record<string, unknown> = {};
    for (const effect of new Set([...Object.keys(userDefaults), ...Object.keys(projectDefaults)])) {
      const path = `policy.defaults.${effect}`;
      defaults[effect] = pick(path, DECISION_LADDER, projectDefaults[effect], userDefaults[effect]);
    }
    merged.defaults = defaults;
  }
  const projectRules = Array.isArray(project.rules) ? project.rules : [];
  const userRules = Array.isArray(user.rules) ? user.rules : [];
  if (project.rules !== undefined || user.rules !== undefined) {
    // A project `rules` that is not an array stays as written, for its schema to report.
    merged.rules =
      Array.isArray(project.rules) || project.rules === undefined
        ? [...projectRules, ...userRules]
        : project.rules;
    projectRules.forEach((_, index) => {
      origins[`policy.rules[${index}]`] = projectFile;
    });
    userRules.forEach((_, index) => {
      origins[`policy.rules[${projectRules.length + index}]`] = userFile ?? projectFile;
    });
  }
  return merged;
}

// The policy settings where the user file is a floor: each one's values, from the weakest up.
const DECISION_LADDER = ["allow", "ask", "deny"] as const;
const SAFETY_LADDERS: Readonly<Record<"network" | "sandbox" | "flows", readonly string[]>> = Object.freeze({
  network: ["allow", "deny"],
  sandbox: ["optional", "required"],
  flows: ["off", "guard"],
});

/**
 * Which file's value of one safety setting holds: the stricter on `ladder`, the project's on a tie
 * or where only it sets one. A value off the ladder is the project's to have reported by its schema
 * (the user's was checked when it was read), so it is kept as written.
 */
function stricter(ladder: readonly string[], mine: unknown, yours: unknown): "project" | "user" | undefined {
  if (mine === undefined) return yours === undefined ? undefined : "user";
  if (yours === undefined) return "project";
  const rank = (value: unknown) => ladder.indexOf(String(value));
  if (rank(mine) < 0) return "project";
  return rank(yours) > rank(mine) ? "user" : "project";
}
