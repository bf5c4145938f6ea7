import { createInterface, type Interface } from "node:readline/promises";
import {
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationHandler,
  type ElicitationRequest,
  type ElicitationValue,
  fieldValueProblem,
} from "@agent/mcp-client";
import { type CliIo, isInteractive, safeLine, styleFor, writeLine } from "./io.js";

/** Options of {@link createElicitationHandler}. */
export interface ElicitationHandlerOptions {
  /** `--json`: no form may wait for a person. */
  json: boolean;
  /** Why the policy declines every form of a server, or undefined (asked as usual). */
  refusal?: (server: string) => string | undefined;
}

/**
 * Answers a server's form (`elicitation/create`) at the terminal: the server's message and fields are
 * shown escaped and marked as the server's words, each answer is checked against the field before
 * the next question, and nothing is sent unless the person confirms. Without a terminal, or with
 * `--json`, or from a server the policy's rules deny, every form is declined at once (a note on
 * stderr says so): nothing ever waits for input that cannot come. Forms are asked one at a time.
 */
export function createElicitationHandler(io: CliIo, options: ElicitationHandlerOptions): ElicitationHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, { signal }) => {
    const refused = options.refusal?.(request.server);
    if (refused !== undefined || options.json || !isInteractive(io)) {
      const why = refused ?? (options.json ? "--json" : "no terminal");
      writeLine(
        io.stderr,
        `agent: MCP server "${safeLine(request.server)}" asked for input; declined (${why}).`,
      );
      return Promise.resolve({ action: "decline" });
    }
    const turn = queue.then(() => askForm(io, request, signal));
    queue = turn.catch(() => undefined);
    return turn;
  };
}

async function askForm(
  io: CliIo,
  request: ElicitationRequest,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  const style = styleFor(io.stderr, io.env);
  writeLine(io.stderr);
  writeLine(
    io.stderr,
    style.bold(`The MCP server "${safeLine(request.server)}" asks for input.`) +
      style.dim(" Everything after │ is the server's text, not agent's."),
  );
  for (const line of request.message.split(/\r?\n/)) writeLine(io.stderr, `  │ ${safeLine(line)}`);
  if (request.sensitive) {
    writeLine(
      io.stderr,
      style.yellow(
        "  Warning: this form seems to ask for a secret (a password, token or key). MCP servers must not ask for secrets this way; answer only if you trust it.",
      ),
    );
  }
  const prompt = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const start = await prompt.question("Fill in this form? [y = yes, n = decline, c = cancel] ", { signal });
    if (/^\s*c/i.test(start)) return { action: "cancel" };
    if (!/^\s*y/i.test(start)) return { action: "decline" };
    const content: Record<string, ElicitationValue> = {};
    for (const field of request.fields) {
      const value = await askField(io, prompt, field, signal);
      if (value !== undefined) content[field.name] = value;
    }
    const send = await prompt.question(`Send these answers to "${safeLine(request.server)}"? [y/N] `, {
      signal,
    });
    return /^\s*y/i.test(send) ? { action: "accept", content } : { action: "decline" };
  } catch (error) {
    // Ctrl-C, or the server withdrew the request: nothing is sent but a cancel.
    if (signal.aborted) return { action: "cancel" };
    throw error;
  } finally {
    prompt.close();
  }
}

/** Asks one field until the answer fits it; an empty answer keeps the default or leaves an optional field out. */
async function askField(
  io: CliIo,
  prompt: Interface,
  field: ElicitationField,
  signal: AbortSignal,
): Promise<ElicitationValue | undefined> {
  const style = styleFor(io.stderr, io.env);
  writeLine(
    io.stderr,
    `  ${style.bold(safeLine(field.title ?? field.name))} ${style.dim(describeField(field))}`,
  );
  if (field.description) writeLine(io.stderr, `  │ ${safeLine(field.description)}`);
  for (const [index, option] of field.options.entries()) {
    writeLine(
      io.stderr,
      `    ${index + 1}. ${safeLine(option.label)}${option.label === option.value ? "" : style.dim(` (${safeLine(option.value)})`)}`,
    );
  }
  for (;;) {
    const text = (await prompt.question("  > ", { signal })).trim();
    if (text === "") {
      if (field.default !== undefined || !field.required) return undefined;
      writeLine(io.stderr, style.red("  This field is required."));
      continue;
    }
    const value = readValue(field, text);
    const problem = value === undefined ? unreadable(field) : fieldValueProblem(field, value);
    if (!problem) return value;
    writeLine(io.stderr, style.red(`  ${safeLine(problem)}; try again.`));
  }
}

/** What to say when the typed text cannot be read as the field's kind at all. */
function unreadable(field: ElicitationField): string {
  switch (field.kind) {
    case "boolean":
      return "expected yes or no";
    case "number":
    case "integer":
      return "expected a number";
    default:
      return "expected one of the numbers or values shown";
  }
}

function describeField(field: ElicitationField): string {
  const parts: string[] = [field.kind === "multi_enum" ? "choices, comma-separated" : field.kind];
  if (field.format) parts.push(field.format);
  if (field.required) parts.push("required");
  if (field.default !== undefined) parts.push(`default ${JSON.stringify(field.default)}`);
  if (field.minimum !== undefined || field.maximum !== undefined) {
    parts.push(`${field.minimum ?? "…"} to ${field.maximum ?? "…"}`);
  }
  if (field.minLength !== undefined || field.maxLength !== undefined) {
    parts.push(`${field.minLength ?? 0}-${field.maxLength ?? "…"} characters`);
  }
  // The default and the limits came from the server too.
  return safeLine(`(${parts.join(", ")})`);
}

/** The typed value of what was typed for `field`, or undefined when it cannot be read as one. */
function readValue(field: ElicitationField, text: string): ElicitationValue | undefined {
  switch (field.kind) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      return undefined;
    case "number":
    case "integer": {
      const number = Number(text);
      return Number.isFinite(number) ? number : undefined;
    }
    case "enum":
      return pickOption(field, text);
    case "multi_enum": {
      const picked = text.split(",").map((part) => pickOption(field, part.trim()));
      return picked.every((value) => value !== undefined) ? (picked as string[]) : undefined;
    }
    case "string":
      return text;
  }
}

/** A choice by its number, its value or its label. */
function pickOption(field: ElicitationField, text: string): string | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  const option =
    field.options[index] ??
    field.options.find((candidate) => candidate.value === text || candidate.label === text);
  return option?.value;
}
