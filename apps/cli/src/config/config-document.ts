import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { CONFIG_ERROR_CODES, ConfigError } from "./config-error.js";
import { replaceConfigFile } from "./config-file-write.js";
import { readConfigText } from "./load-config.js";
import { type JsonSpan, parseJsonText, scanJsonSpans } from "./parse-json-text.js";

/** A configuration file read for an edit in place: its bytes, its text, and where each value sits. */
export interface ConfigDocument {
  file: string;
  /** The bytes as read: the edit is written only if the file still holds exactly these. */
  bytes: Buffer;
  text: string;
  /** The top-level object's span. */
  root: Extract<JsonSpan, { kind: "object" }>;
  /** The parsed top-level object. */
  value: Record<string, unknown>;
}

/**
 * Reads `file` for an edit in place (`agent mcp add/remove`, "always allow" at a prompt). Throws
 * `ConfigError`: `config_not_found`, `config_invalid_json`, or `config_invalid` when the file is not
 * a JSON object or not UTF-8 text (which an edit could not keep byte for byte).
 */
export function readConfigDocument(file: string): ConfigDocument {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    // Its errors name the file and say what to do (missing, unreadable).
    readConfigText(file);
    throw error;
  }
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes)) {
    throw new ConfigError(
      CONFIG_ERROR_CODES.invalid,
      `${file} is not UTF-8 text; it cannot be edited in place.`,
      {
        file,
      },
    );
  }
  const root = scanJsonSpans(text, file);
  const value = parseJsonText(text, file);
  if (root.kind !== "object" || typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(
      CONFIG_ERROR_CODES.invalid,
      `${file} is not a JSON object; fix it before editing it.`,
      {
        file,
      },
    );
  }
  return { file, bytes, text, root, value: value as Record<string, unknown> };
}

/** The value of `key` in an object span, if the object has that key. */
export function memberSpan(object: Extract<JsonSpan, { kind: "object" }>, key: string): JsonSpan | undefined {
  return object.members.find((member) => member.key === key)?.value;
}

/**
 * Checks that `after` (the document's text, edited) parses to exactly `expected`, so an edit in
 * place can never change more than it meant to; throws `config_invalid` (a bug) if it does not.
 */
export function checkEditedText(document: ConfigDocument, after: string, expected: unknown): void {
  if (!isDeepStrictEqual(parseJsonText(after, document.file), expected)) {
    throw new ConfigError(
      CONFIG_ERROR_CODES.invalid,
      `${document.file}: the change could not be made without changing more; nothing was written.`,
      { file: document.file },
    );
  }
}

/**
 * Writes `after` over the document's file in one rename, only if the file still holds the bytes
 * it was read with (else `config_changed`, nothing written); `after` is checked against `expected`.
 */
export function writeEditedDocument(document: ConfigDocument, after: string, expected: unknown): void {
  checkEditedText(document, after, expected);
  replaceConfigFile(document.file, after, { expected: document.bytes });
}
