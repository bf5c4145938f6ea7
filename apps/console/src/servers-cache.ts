import type { ConsoleServer, ServersPort } from "./ports.js";

/** The servers' status as last read, and when it was read. */
export interface ServersSnapshot {
  servers: ConsoleServer[];
  /** When the port answered (ISO 8601). */
  checkedAt: string;
}

/**
 * The servers' status, read through the port at most once per `ttlMs`: reading it connects to
 * every configured server (for the CLI, an `agent mcp list` process and the servers it starts), so
 * a page view must not cost that each time. Views during a read share it; a failed read is not kept.
 */
export interface ServersCache {
  read(): Promise<ServersSnapshot>;
  /** Forgets the kept status: the next read asks the port again (the page's "Check again"). */
  invalidate(): void;
  readonly ttlMs: number;
}

interface KeptRead {
  snapshot: Promise<ServersSnapshot>;
  readAt?: number;
}

/** Keeps `port`'s answer for `ttlMs`; `signal` ends reads when the console closes. */
export function createServersCache(
  port: ServersPort,
  options: { ttlMs: number; signal: AbortSignal; now?: () => number },
): ServersCache {
  const now = options.now ?? Date.now;
  // `readAt` is unset while the read is under way: every view meanwhile shares it.
  let kept: KeptRead | undefined;
  const isFresh = (entry: KeptRead | undefined): entry is KeptRead =>
    entry !== undefined && (entry.readAt === undefined || now() - entry.readAt < options.ttlMs);
  return {
    ttlMs: options.ttlMs,
    read() {
      if (isFresh(kept)) return kept.snapshot;
      const entry: KeptRead = {
        snapshot: port.list(options.signal).then((servers) => {
          entry.readAt = now();
          return { servers, checkedAt: new Date(entry.readAt).toISOString() };
        }),
      };
      kept = entry;
      entry.snapshot.catch(() => {
        if (kept === entry) kept = undefined;
      });
      return entry.snapshot;
    },
    invalidate() {
      kept = undefined;
    },
  };
}
