import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link ConfigError}: why a configuration could not be loaded, or could not be edited. */
export const CONFIG_ERROR_CODES = {
  ambiguous: "config_ambiguous",
  notFound: "config_not_found",
  unreadable: "config_unreadable",
  invalidJson: "config_invalid_json",
  invalid: "config_invalid",
  missingVariable: "config_missing_variable",
  changed: "config_changed",
  untrusted: "config_untrusted",
} as const;

/** A code of {@link CONFIG_ERROR_CODES}. */
export type ConfigErrorCode = (typeof CONFIG_ERROR_CODES)[keyof typeof CONFIG_ERROR_CODES];

const MARKER = Symbol.for("@agent/cli.ConfigError");

/**
 * Thrown when a configuration file cannot be found, read, parsed or validated. Messages name the file
 * and the field (`mcpServers.docs.timeoutMs`) but never a field's value, which may be a credential.
 */
export class ConfigError extends CodedError<ConfigErrorCode> {
  override readonly name = "ConfigError";
  /** The configuration file concerned, when there is one. */
  readonly file: string | undefined;

  constructor(code: ConfigErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(MARKER, code, message, options);
    this.file = options.file;
  }

  /** Whether `value` is a ConfigError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is ConfigError {
    return hasErrorBrand(value, MARKER);
  }
}
