// The identity below is part of every remote tool's fingerprint, hence of every approval digest:
// changing how it is computed voids every approval given before. It is keyed (HMAC) because an
// unkeyed digest over a server's env or headers lets anyone holding a fingerprint find a short
// secret by trying every candidate.
import { createHmac, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "@agent/tools";
import type { ServerConfig } from "../config/index.js";
import { STATE_ERROR_CODES, StateError } from "../state/index.js";

/** The file in the state directory holding the key of server identities (random, 0600, made once). */
export const IDENTITY_KEY_FILE = "identity.key";

const KEY_BYTES = 32;

/**
 * The key of {@link serverIdentity}, read from the state directory, or created there on first use
 * (32 random bytes, mode 0600). Creation is atomic (written aside, then linked into place), so two
 * processes starting at once agree on one key. Anything but a regular file of the right size there
 * is a `state_corrupt` error: nothing is replaced.
 */
export function loadIdentityKey(stateDir: string): Buffer {
  const file = join(stateDir, IDENTITY_KEY_FILE);
  const existing = readKey(file);
  if (existing) return existing;
  const aside = join(stateDir, `.${IDENTITY_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(aside, randomBytes(KEY_BYTES), { mode: 0o600, flag: "wx" });
    try {
      linkSync(aside, file);
    } catch (error) {
      // Another process linked its key first: use that one.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  } catch (cause) {
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot create ${file}; check the state directory.`, {
      file,
      cause,
    });
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Never created.
    }
  }
  const created = readKey(file);
  if (!created)
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot read ${file} after creating it.`, { file });
  return created;
}

/**
 * A keyed digest of how a server is reached (command line, working directory and environment, or
 * URL and headers): every tool's fingerprint includes it, so pointing a name at another server, or
 * at the same one with other credentials, voids the approvals given before. Without the key, which
 * never leaves the state directory, a fingerprint reveals nothing about the values in it.
 */
export function serverIdentity(server: ServerConfig, key: Buffer): string {
  const reached =
    server.type === "stdio"
      ? {
          type: server.type,
          command: server.command,
          args: server.args,
          cwd: server.cwd,
          env: server.env,
          // What its sandbox grants: widening it voids the approvals given before.
          sandbox: server.sandbox,
        }
      : { type: server.type, url: server.url, headers: server.headers };
  return `hmac-sha256:${createHmac("sha256", key).update(canonicalJson(reached), "utf8").digest("hex")}`;
}

function readKey(file: string): Buffer | undefined {
  let descriptor: number;
  try {
    // Never through a symlink, never blocking on a FIFO.
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateError(STATE_ERROR_CODES.corrupt, `${file} is not a readable regular file; remove it.`, {
      file,
      cause,
    });
  }
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.size !== KEY_BYTES) {
      throw new StateError(
        STATE_ERROR_CODES.corrupt,
        `${file} is not a ${KEY_BYTES}-byte key file; remove it.`,
        {
          file,
        },
      );
    }
    const key = Buffer.alloc(KEY_BYTES);
    if (readSync(descriptor, key, 0, KEY_BYTES, 0) !== KEY_BYTES) {
      throw new StateError(
        STATE_ERROR_CODES.corrupt,
        `${file} is shorter than ${KEY_BYTES} bytes; remove it.`,
        {
          file,
        },
      );
    }
    return key;
  } finally {
    closeSync(descriptor);
  }
}
