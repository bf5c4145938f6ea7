import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CONFIG_ERROR_CODES, ConfigError } from "./config-error.js";

/** Options of {@link replaceConfigFile}. */
export interface ReplaceOptions {
  /**
   * The file's bytes when it was read for this edit. If it holds anything else by the time of the
   * write (someone edited it meanwhile), nothing is written and `config_changed` is thrown.
   */
  expected?: Buffer;
}

/**
 * Replaces a configuration file's content in one rename: the new text goes to a temporary file in
 * the same directory, with the old file's mode, and is renamed over it, so a reader sees the old
 * file or the new one, never half of one. A symbolic link is followed (the file it points to is
 * replaced, the link stays). A file that did not exist is created 0644.
 */
export function replaceConfigFile(file: string, text: string, options: ReplaceOptions = {}): void {
  const target = existingRealPath(file) ?? file;
  const mode = modeOf(target);
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    writeFileSync(temporary, text, { mode: mode ?? 0o644, flag: "wx" });
    // The mode given at creation passes through the umask; the old file's mode is kept as it was.
    if (mode !== undefined) chmodSync(temporary, mode);
    // Checked as late as possible, right before the rename.
    if (options.expected && !currentBytes(target)?.equals(options.expected)) {
      throw new ConfigError(
        CONFIG_ERROR_CODES.changed,
        `${file} changed on disk since it was read; nothing was written. Look at it again and retry.`,
        { file },
      );
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function existingRealPath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}

function currentBytes(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
