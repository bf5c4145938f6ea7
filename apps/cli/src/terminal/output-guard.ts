import type { Redactor } from "@agent/mcp-transport";
import type { CliIo } from "./io.js";

/** One command's output, with the configuration's secrets removed from every write. */
export interface OutputGuard {
  /** The streams to write to: stdout and stderr pass every write through the redactor. */
  readonly io: CliIo;
  /** Starts redacting with `redactor` (once the configuration is loaded). */
  protect(redactor: Redactor): void;
}

/**
 * Wraps `io` so that nothing written to stdout or stderr can show a configured secret, whoever
 * writes it (tables, error messages, stderr tails, prompts). `writeJson` cleans the value before it
 * is serialized, through {@link CliIo.redactor}, so the JSON stays valid.
 */
export function createOutputGuard(io: CliIo): OutputGuard {
  let redactor: Redactor | undefined;
  const clean = (chunk: unknown): unknown => {
    if (!redactor?.hasSecrets) return chunk;
    if (typeof chunk === "string") return redactor.secrets(chunk);
    return chunk instanceof Uint8Array ? redactor.secrets(Buffer.from(chunk).toString("utf8")) : chunk;
  };
  const guard = <T extends NodeJS.WritableStream>(stream: T): T =>
    new Proxy(stream, {
      get(target, property) {
        if (property === "write") {
          return (chunk: unknown, ...rest: unknown[]) =>
            (target.write as (...args: unknown[]) => boolean)(clean(chunk), ...rest);
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const guarded: CliIo = {
    ...io,
    stdout: guard(io.stdout),
    stderr: guard(io.stderr),
    get redactor() {
      return redactor;
    },
  };
  return {
    io: guarded,
    protect(next) {
      redactor = next;
    },
  };
}
