import { CodedError, hasErrorBrand } from "@agent/base";
/** Why the package cache could not provide a server's package. */
export const PACKAGE_CACHE_ERROR_CODES = Object.freeze({
  /** npm or uv is not on PATH. */
  installerMissing: "installer_missing",
  /** The installer ran and failed (no network, no such package or version, a registry error). */
  installFailed: "install_failed",
  installInterrupted: "install_interrupted",
  /** The installed packages provide no executable the command can run. */
  noExecutable: "no_executable",
  /** The command names a package the cache cannot fetch (a path, a URL, an option it does not know). */
  unsupportedCommand: "unsupported_command",
  /** Someone other than the user may change the cache's directory: nothing in it is run or installed. */
  cacheNotOwn: "cache_not_own",
} as const);

/** A {@link PACKAGE_CACHE_ERROR_CODES} value. */
export type PackageCacheErrorCode =
  (typeof PACKAGE_CACHE_ERROR_CODES)[keyof typeof PACKAGE_CACHE_ERROR_CODES];

const MARKER = Symbol.for("@agent/cli.PackageCacheError");

/** A package-runner server's package could not be installed or run from the cache; `code` says why. */
export class PackageCacheError extends CodedError<PackageCacheErrorCode> {
  override readonly name = "PackageCacheError";

  constructor(code: PackageCacheErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(MARKER, code, message, options);
  }

  /** Whether `value` is a PackageCacheError, even one thrown by another installed copy of the CLI. */
  static isInstance(value: unknown): value is PackageCacheError {
    return hasErrorBrand(value, MARKER);
  }
}
