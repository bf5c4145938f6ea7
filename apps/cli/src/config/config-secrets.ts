import { MIN_SECRET_LENGTH } from "@agent/mcp-transport";
import { SECRET_KEY_PATTERN } from "@agent/tools";
import { type ConfigIssue, formatFieldPath } from "./config-issues.js";
import { looksLikeToken } from "./credential-shape.js";
import type { AgentConfig } from "./load-config.js";

/** The configured values no output may show, and the credentials too short to hide (config issues). */
export interface ConfigSecrets {
  values: string[];
  tooShort: ConfigIssue[];
}

const ARGUMENT_PARTS = /[/:=,@\s]+/;
// `--key`, `-p`, `--pin`, `--pass`: secret-named flags the audit pattern does not cover.
const SHORT_SECRET_FLAG = /^--?(?:[a-z]+[-_])*(?:key|pin|pass|p)$/i;
// Names of env keys and URL query parameters that hold a credential, besides SECRET_KEY_PATTERN's.
const SHORT_SECRET_NAME = /(?:^|[-_])(?:key|pin|pass|pwd)(?:$|[-_])/i;
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
 * Values shorter than {@link MIN_SECRET_LENGTH} cannot be redacted without hiding ordinary text
 * (every "1" or "on"), and a guess finds them at once anyway. Where the field is a credential by its
 * name or place (an `Authorization`-like header or the token after `Bearer `, an env key or a flag
 * named like a secret, URL userinfo or a secret-named query value, an OAuth secret), such a value is
 * a `tooShort` issue that fails the configuration; elsewhere a value that short is taken to be a
 * setting (`DEBUG=1`) and not redacted.
 */
export function collectConfigSecrets(
  config: Pick<AgentConfig, "servers" | "substitutedValues">,
): ConfigSecrets {
  const values = new Set<string>(config.substitutedValues);
  const tooShort: ConfigIssue[] = [];
  const secret = (value: string, path: (string | number)[], isCredential: boolean): void => {
    if (value.length >= MIN_SECRET_LENGTH) values.add(value);
    else if (isCredential && value.length > 0) {
      tooShort.push({
        path: formatFieldPath(path),
        message: `is a credential shorter than ${MIN_SECRET_LENGTH} characters, too short to be redacted from output; use a longer one`,
      });
    }
  };
  for (const server of config.servers) {
    const base = ["mcpServers", server.name];
    if (server.type === "stdio") {
      for (const [name, value] of Object.entries(server.env)) {
        secret(value, [...base, "env", name], isSecretName(name));
      }
      server.args.forEach((arg, index) => {
        for (const part of argumentSecrets(arg, server.args[index - 1]))
          secret(part, [...base, "args", index], true);
      });
    } else {
      for (const [name, value] of Object.entries(server.headers)) {
        const token = value.split(/\s+/).at(-1);
        const hasScheme = token !== undefined && token !== value;
        secret(value, [...base, "headers", name], isSecretName(name) && !hasScheme);
        if (hasScheme) secret(token, [...base, "headers", name], true);
      }
      for (const part of urlSecrets(server.url)) secret(part.value, [...base, "url"], part.isCredential);
      if (server.oauth) {
        for (const field of ["clientSecret", "privateKey", "clientAssertion"] as const) {
          const value = server.oauth[field];
          if (value) secret(value, [...base, "oauth", field], true);
        }
      }
    }
  }
  for (const word of JSON_WORDS) values.delete(word);
  return { values: [...values], tooShort };
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

function urlSecrets(text: string): { value: string; isCredential: boolean }[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const found: { value: string; isCredential: boolean }[] = [];
  const add = (value: string, isCredential: boolean): void => {
    found.push({ value, isCredential });
  };
  // A user name alone is often a plain account name; a password is a credential.
  for (const [part, isCredential] of [
    [url.username, false],
    [url.password, true],
  ] as const) {
    if (part) {
      add(part, isCredential);
      add(safeDecode(part), isCredential);
    }
  }
  for (const [name, value] of url.searchParams) add(value, isSecretName(name));
  for (const segment of url.pathname.split("/")) {
    const decoded = safeDecode(segment);
    if (looksLikeToken(decoded)) add(decoded, false);
  }
  return found;
}

/** Whether an env key, header or query parameter name says its value is a credential. */
function isSecretName(name: string): boolean {
  return SECRET_KEY_PATTERN.test(name) || SHORT_SECRET_NAME.test(name);
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
