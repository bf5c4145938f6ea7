// One entry of a network allow-list: a host name (any port), or `host:port` (that port only). A
// loopback host must name its port: the sandbox's proxy runs on the host, so "localhost" alone would
// open every service listening on the host's loopback (databases, debuggers, the docker API).

/** A parsed allow-list entry; `port` undefined admits every port. */
export interface AllowEntry {
  /** Lowercase, no trailing dot; an IPv6 literal without brackets. */
  readonly host: string;
  readonly port?: number;
}

// A DNS name of letters, digits and hyphens, labels of 1-63 characters: no schemes, paths or
// wildcards, so what an allow-list says is exactly what the proxy compares against.
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Whether `host` (already lowercase, no trailing dot) is a host name an allow-list may hold. */
export function isAllowableHostName(host: string): boolean {
  return HOST_NAME.test(host);
}

/** A host name as the allow-list compares it: lowercase, without a trailing dot. */
export function normalizeHostName(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, "");
}

/** `entry` parsed and normalized, or a sentence saying what is wrong with it and what to write instead. */
export function parseAllowEntry(
  entry: string,
): { ok: true; entry: AllowEntry } | { ok: false; problem: string } {
  const text = entry.trim().toLowerCase();
  if (/^[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*$/.test(text)) {
    return { ok: false, problem: `${JSON.stringify(entry)} is an IPv6 address: write "[${text}]:PORT".` };
  }
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const host = match ? (match[1] ?? normalizeHostName(match[2] ?? "")) : "";
  const port = match?.[3] === undefined ? undefined : Number(match[3]);
  const isHost = match?.[1] !== undefined ? match[1].includes(":") : isAllowableHostName(host);
  if (!match || !isHost || (port !== undefined && (port < 1 || port > 65535))) {
    return {
      ok: false,
      problem: `${JSON.stringify(entry)} is not a host name; list plain names such as "api.github.com", or "host:port" to admit one port (no scheme, path or wildcard).`,
    };
  }
  if (match[1] !== undefined && port === undefined) {
    return { ok: false, problem: `${JSON.stringify(entry)} needs a port: write "[${host}]:PORT".` };
  }
  if (port === undefined && isLoopbackHost(host)) {
    return {
      ok: false,
      problem: `${JSON.stringify(entry)} is the host's own loopback: alone it would let the sandbox reach every service listening there; write "${entry.trim()}:PORT" to admit one port.`,
    };
  }
  return { ok: true, entry: port === undefined ? { host } : { host, port } };
}

/** An entry as the allow-list stores it: `host`, `host:port` or `[v6]:port`. */
export function formatAllowEntry(entry: AllowEntry): string {
  if (entry.port === undefined) return entry.host;
  return entry.host.includes(":") ? `[${entry.host}]:${entry.port}` : `${entry.host}:${entry.port}`;
}

/**
 * Whether `host` (a name, or an address the way the system resolver reads one: `127.1`,
 * `2130706433`, `0x7f.0.0.1`, `::ffff:127.0.0.1`) is this machine's loopback or unspecified address.
 */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHostName(host);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (["ip6-localhost", "ip6-loopback", "localhost6", "localhost6.localdomain6"].includes(name)) return true;
  const v4 = inetAton(name.replace(/^::ffff:/, ""));
  // 127/8 is loopback; 0/8 ("this network", 0.0.0.0 above all) reaches the host itself on Linux.
  if (v4 !== undefined) return v4 >>> 24 === 127 || v4 >>> 24 === 0;
  return isLoopbackIpv6(name);
}

// IPv4 in every form inet_aton (and so getaddrinfo) accepts: one to four parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the remaining bytes.
function inetAton(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    if (!/^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/.test(part)) return undefined;
    values.push(
      part.startsWith("0x")
        ? Number.parseInt(part.slice(2) || "0", 16)
        : part.startsWith("0")
          ? Number.parseInt(part, 8)
          : Number(part),
    );
  }
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 255) || last >= 2 ** (8 * (4 - values.length))) return undefined;
  return values.reduce((sum, value, index) => sum + value * 2 ** (8 * (3 - index)), 0) + last;
}

// ::1, ::, and the same written out (0:0:0:0:0:0:0:1).
function isLoopbackIpv6(text: string): boolean {
  if (!text.includes(":")) return false;
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groups = (half: string | undefined): string[] => (half ? half.split(":") : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return false;
  const all = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return false;
  const values = all.map((group) => Number.parseInt(group, 16));
  return values.slice(0, 7).every((value) => value === 0) && (values[7] === 0 || values[7] === 1);
}
