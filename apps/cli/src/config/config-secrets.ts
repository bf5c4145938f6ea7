import { MIN_SECRET_LENGTH } from "@agent/mcp-transport";
import { SECRET_KEY_PATTERN } from "@agent/tools";
import { formatFieldPath } from "./config-issues.js";
import { looksLikeToken } from "./credential-shape.js";
import type { AgentConfig } from "./load-config.js";

/** The configured values no output may show, and warnings about secrets too short to hide. */
export interface ConfigSecrets {
  values: string[];
  warnings: string[];
}

const ARGUMENT_PARTS = /[/:=,@\s]+/;
// `--key`, `-p`, `--pin`, `--pass`: secret-named flags the audit pattern does not cover.
const SHORT_SECRET_FLAG = /^--?(?:[a-z]+[-_])*(?:key|pin|pass|p)$/i;
// JSON's own words: redacting them would corrupt `--json` output, and no credential is one.
const JSON_WORDS: ReadonlySet<string> = new Set(["true", "false", "null"]);

/**
 * Every configured value that counts as a secret, by this rule:
 * - every `env` value and every header value (and the token after `Bearer `/`Basic `), whatever
 *   its name, and every value a `${VAR}` reference took from the environment, in any field;
 * - of a URL: userinfo, every query value, and every path segment that looks like a token;
 * - of stdio `args`: the value after a flag named like a secret (`--api-key X`, `--token=X`), and
 *   every part (split at `/ : = , @`) that looks like a token (16+ letters, digits and `._~+=-`,
 *   with at least one letter and one digit).
 * Values shorter than {@link MIN_SECRET_LENGTH} cannot be redacted without hiding ordinary text;
 * a header, or an env value named like a secret, that short gets a warning instead.
 */
export function collectConfigSecrets(
  config: Pick<AgentConfig, "servers" | "substitutedValues">,
): ConfigSecrets {
  const values = new Set<string>(config.substitutedValues);
  const warnings: string[] = [];
  const secret = (value: string, path: (string | number)[], warnIfShort: boolean): void => {
    if (value.length >= MIN_SECRET_LENGTH) values.add(value);
    else if (warnIfShort && value.length > 0) {
      warnings.push(
        `${formatFieldPath(path)} is shorter than ${MIN_SECRET_LENGTH} characters, too short to be redacted from output; use a longer secret.`,
      );
    }
  };
  for (const server of config.servers) {
    const base = ["mcpServers", server.name];
    if (server.type === "stdio") {
      for (const [name, value] of Object.entries(server.env)) {
        secret(value, [...base, "env", name], SECRET_KEY_PATTERN.test(name));
      }
      server.args.forEach((arg, index) => {
        for (const part of argumentSecrets(arg, server.args[index - 1]))
          secret(part, [...base, "args", index], true);
      });
    } else {
      for (const [name, value] of Object.entries(server.headers)) {
        secret(value, [...base, "headers", name], true);
        const token = value.split(/\s+/).at(-1);
        if (token && token !== value) secret(token, [...base, "headers", name], true);
      }
      for (const part of urlSecrets(server.url)) secret(part, [...base, "url"], false);
      if (server.oauth) {
        for (const field of ["clientSecret", "privateKey", "clientAssertion"] as const) {
          const value = server.oauth[field];
          if (value) secret(value, [...base, "oauth", field], true);
        }
      }
    }
  }
  for (const word of JSON_WORDS) values.delete(word);
  return { values: [...values], warnings };
}

function argumentSecrets(arg: string, previous: string | undefined): string[] {
  const found: string[] = [];
  if (previous !== undefined && isSecretFlag(previous) && !previous.includes("=")) found.push(arg);
  const equals = arg.indexOf("=");
  if (arg.startsWith("-") && equals > 0 && isSecretFlag(arg.slice(0, equals)))
    found.push(arg.slice(equals + 1));
  for (const part of arg.split(ARGUMENT_PARTS)) if (looksLikeToken(part)) found.push(part);
  return found;
}

function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const part of [url.username, url.password]) if (part) found.push(part, safeDecode(part));
  for (const [, value] of url.searchParams) found.push(value);
  for (const segment of url.pathname.split("/")) {
    const decoded = safeDecode(segment);
    if (looksLikeToken(decoded)) found.push(decoded);
  }
  return found;
}

function isSecretFlag(arg: string): boolean {
  return /^--?[A-Za-z]/.test(arg) && (SECRET_KEY_PATTERN.test(arg) || SHORT_SECRET_FLAG.test(arg));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
