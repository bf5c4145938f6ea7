import { verifyAuditChain } from "@agent/store-postgres";
import { EXIT_CODES, type ExitCode, interruptionExitCode, usageError } from "../exit-codes.js";
import type { AuditSource } from "../runtime/state-runtime.js";
import {
  type AuditEntry,
  type AuditRecord,
  followAuditLog,
  readAuditLog,
  readPostgresAudit,
} from "../state/index.js";
import { type CliIo, safeJson, safeLine, safeText, styleFor, writeJson, writeLine } from "../terminal/io.js";
import { formatTable, terminalWidth } from "../terminal/table.js";
import { type AuditFilter, countMatching, filterAuditEntries } from "./audit-filter.js";
import { storyLine } from "./audit-story.js";

/** Fields shown after the type in the human view, in this order, when present. */
const KEY_FIELDS = Object.freeze([
  "server",
  "toolName",
  "method",
  "decision",
  "via",
  "reason",
  "code",
  "requestId",
  "decidedBy",
  "runId",
  "status",
  "turn",
  "stopReason",
  "durationMs",
]);

/**
 * `agent audit [--json] [--verbose] [--follow] [--run ID] [--tool PATTERN] [--since WHEN] [--tail N]`:
 * prints the matching events of the audit trail as the story of its runs, one step per line
 * (`--verbose`: every event, with its fields; `--json`: every event whole); `--follow` keeps
 * tailing it, starting at the end unless `--tail` asks for some of what is already there.
 */
export async function auditCommand(
  source: AuditSource,
  io: CliIo,
  options: { json: boolean; follow: boolean; verify: boolean; verbose: boolean; auditFilter: AuditFilter },
  signal: AbortSignal,
): Promise<ExitCode> {
  if (options.verify) return verifyAuditCommand(source, io, options);
  const entries = await readAuditEntries(source, options.auditFilter, { follow: options.follow, signal });
  const print = options.json
    ? (record: AuditRecord) => io.stdout.write(`${safeJson(record)}\n`)
    : options.verbose
      ? printEvents(io)
      : printStory(io);
  for await (const entry of entries) {
    if (entry.type === "record") print(entry.record);
    else reportCorrupt(io, entry);
  }
  return signal.aborted ? interruptionExitCode(signal.reason) : EXIT_CODES.ok;
}

/**
 * The entries of the trail that pass `given` (`--run`, `--tool`, `--since`, `--tail`), as `agent
 * audit` prints them; with `follow`, new ones keep coming until `signal` aborts.
 */
export async function readAuditEntries(
  source: AuditSource,
  given: AuditFilter,
  options: { follow: boolean; signal: AbortSignal },
): Promise<AsyncIterable<AuditEntry>> {
  const { signal } = options;
  const read = (follow: boolean): AsyncIterable<AuditEntry> =>
    source.kind === "postgres"
      ? readPostgresAudit(source.pool, { follow, signal })
      : follow
        ? followAuditLog(source.path, { signal, fromStart: true })
        : readAuditLog(source.path);
  const filter = { ...given, tail: given.tail ?? (options.follow ? 0 : undefined) };
  // What is already written is counted first, so only the last `tail` of it is shown.
  const existing = filter.tail === undefined ? 0 : await countMatching(read(false), filter);
  return filterAuditEntries(read(options.follow), filter, existing);
}

/** One line per step of the story; plumbing events are left to `--verbose`. */
function printStory(io: CliIo): (record: AuditRecord) => void {
  const style = styleFor(io.stdout, io.env);
  const width = terminalWidth(io.stdout, io.env);
  return (record) => {
    const story = storyLine(record);
    if (story === undefined) return;
    const at = typeof record.at === "string" ? record.at : "?";
    // The time of day; the whole timestamp is in --verbose and --json.
    const time = /T(\d\d:\d\d:\d\d)/.exec(at)?.[1] ?? at;
    const [line = ""] = formatTable([[style.dim(safeLine(time)), safeLine(story)]], { width });
    writeLine(io.stdout, line);
  };
}

function printEvents(io: CliIo): (record: AuditRecord) => void {
  const style = styleFor(io.stdout, io.env);
  const width = terminalWidth(io.stdout, io.env);
  return (record) => {
    const details = KEY_FIELDS.filter((key) => record[key] !== undefined).map(
      (key) => `${key}=${formatValue(record[key])}`,
    );
    const at = typeof record.at === "string" ? record.at : "?";
    // One event, one line: a newline in a value must not look like another event, and on a
    // terminal the details are cut to its width (`--json` has every field whole).
    const [line = ""] = formatTable(
      [[style.dim(safeLine(at)), safeLine(record.type), safeLine(details.join(" "))]],
      {
        width,
      },
    );
    writeLine(io.stdout, line);
  };
}

function reportCorrupt(io: CliIo, entry: Extract<AuditEntry, { type: "corrupt" }>): void {
  writeLine(
    io.stderr,
    `warning: audit line ${entry.line} is not an event (${safeText(entry.reason)}); it is kept in the file.`,
  );
}

function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * `agent audit --verify`: re-computes the shared trail's chain and checks every row's writer
 * signature (with `state.auditWriters`) and that this machine's checkpoint is still there. Exit 0 if
 * it holds, 1 with the first broken row if not.
 */
async function verifyAuditCommand(
  source: AuditSource,
  io: CliIo,
  options: { json: boolean; follow: boolean },
): Promise<ExitCode> {
  if (source.kind !== "postgres" || options.follow) {
    throw usageError(
      source.kind === "postgres"
        ? "--verify checks the trail once; leave out --follow."
        : '--verify checks the shared PostgreSQL trail; set state.url (and keep state.audit "postgres").',
    );
  }
  const expectations = source.expectations();
  const verdict = await verifyAuditChain(source.pool, expectations);
  const checked = {
    signatures: expectations.writers !== undefined,
    checkpoint: expectations.checkpoints !== undefined,
  };
  if (options.json) writeJson(io, { ...verdict, checked });
  else if (verdict.ok) {
    writeLine(
      io.stdout,
      `Audit trail intact: ${verdict.rows} rows${checked.signatures ? ", each signed by a trusted writer" : " (unsigned: set state.auditWriters to check who wrote them)"}${checked.checkpoint ? ", this machine's checkpoint present" : ""}.`,
    );
  } else {
    writeLine(io.stdout, safeText(`Audit trail broken at row ${verdict.brokenAt}: ${verdict.reason}.`));
  }
  return verdict.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
}
