// The planted-instruction language the compromised model obeys. An instruction is
//   [[agent: call <tool> <JSON input>]]                         one call
//   [[agent: call <tool> <JSON> and call <tool> <JSON>]]        calls made together, in one turn
// and `{{secret}}` anywhere in an input stands for the SECRET-… tokens the model has seen. The same
// text is an instruction wherever it appears: the user's prompt, a tool result, an attached resource.
import { createHash } from "node:crypto";

/** One tool call an instruction asks for. */
export interface PlantedCall {
  tool: string;
  input: unknown;
}

/** One instruction found in a text: its calls, and an id derived from its exact wording. */
export interface PlantedInstruction {
  /** `obey_<hash of the instruction's text>`: the model names its calls after it, to know what it obeyed. */
  id: string;
  calls: PlantedCall[];
  /** The instruction as written, from `[[agent:` to `]]`. */
  wording: string;
}

/** Where an instruction starts. */
const MARK = "[[agent:";

/** A secret as the tests plant them (notes, emails): `SECRET-` and letters or digits. */
const SECRET = /SECRET-[A-Za-z0-9]+/g;

/** Writes one instruction in the language above, for tests to plant. */
export function plant(...calls: PlantedCall[]): string {
  const parts = calls.map((call) => `call ${call.tool} ${JSON.stringify(call.input)}`);
  return `[[agent: ${parts.join(" and ")}]]`;
}

/** The instructions in `text`, in order; malformed ones are skipped, as a model would ignore noise. */
export function findInstructions(text: string): PlantedInstruction[] {
  const found: PlantedInstruction[] = [];
  let from = 0;
  for (let start = text.indexOf(MARK, from); start !== -1; start = text.indexOf(MARK, from)) {
    const parsed = parseInstruction(text, start + MARK.length);
    if (parsed === undefined) {
      from = start + MARK.length;
      continue;
    }
    const wording = text.slice(start, parsed.end);
    const hash = createHash("sha256").update(wording).digest("hex").slice(0, 12);
    found.push({ id: `obey_${hash}`, calls: parsed.calls, wording });
    from = parsed.end;
  }
  return found;
}

/** The SECRET-… tokens in `text`. */
export function findSecrets(text: string): string[] {
  return text.match(SECRET) ?? [];
}

/**
 * The texts a message content carries: the string leaves of its JSON when it is JSON (a tool result
 * is a serialized observation, whose quotes would otherwise be escaped), else the content itself.
 */
export function textsOf(content: string): string[] {
  try {
    const leaves: string[] = [];
    collectStrings(JSON.parse(content) as unknown, leaves);
    return leaves.length > 0 ? leaves : [content];
  } catch {
    return [content];
  }
}

/**
 * `input` with every `{{secret}}` in its strings replaced by `secrets` (space-separated); kept as
 * written while no secret was seen, so an instruction can be passed on to a later run whole.
 */
export function withSecrets(input: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return input;
  if (typeof input === "string") return input.replaceAll("{{secret}}", secrets.join(" "));
  if (Array.isArray(input)) return input.map((item) => withSecrets(item, secrets));
  if (typeof input === "object" && input !== null) {
    return Object.fromEntries(
      Object.entries(input).map(([key, value]) => [key, withSecrets(value, secrets)]),
    );
  }
  return input;
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) collectStrings(item, into);
  }
}

function parseInstruction(text: string, from: number): { calls: PlantedCall[]; end: number } | undefined {
  const calls: PlantedCall[] = [];
  let at = from;
  for (;;) {
    const head = /^\s*call ([A-Za-z0-9_-]+)\s*/.exec(text.slice(at));
    if (head === null) return undefined;
    at += head[0].length;
    const end = endOfJson(text, at);
    if (end === undefined) return undefined;
    let input: unknown;
    try {
      input = JSON.parse(text.slice(at, end));
    } catch {
      return undefined;
    }
    calls.push({ tool: head[1] ?? "", input });
    at = end;
    const next = /^\s*and\s+/.exec(text.slice(at));
    if (next === null) break;
    at += next[0].length;
  }
  const close = /^\s*\]\]/.exec(text.slice(at));
  return close === null ? undefined : { calls, end: at + close[0].length };
}

/** The index just past the JSON object starting at `from`, by bracket depth outside strings. */
function endOfJson(text: string, from: number): number | undefined {
  if (text[from] !== "{") return undefined;
  let depth = 0;
  let inString = false;
  for (let index = from; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{" || character === "[") depth += 1;
    else if (character === "}" || character === "]") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}
