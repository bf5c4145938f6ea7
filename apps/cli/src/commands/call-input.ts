import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { messageOf } from "@agent/base";
import { exceedsJsonDepth, type JsonValue, MAX_INPUT_DEPTH } from "@agent/tools";
import { usageError } from "../exit-codes.js";
import type { CliIo } from "../terminal/io.js";

/** The most `--input -` or `--input @file` reads: a tool's arguments, not a data set. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * The input of `agent call`: `--input JSON` as given, `--input -` read from stdin, `--input @FILE`
 * read from a file (relative to the current directory). Bad JSON, an unreadable file or input past
 * {@link MAX_INPUT_BYTES} is a usage error naming where the input came from.
 */
export async function readCallInput(text: string | undefined, io: CliIo): Promise<JsonValue> {
  if (text === undefined) return {};
  if (text === "-") return parseInput(await readStdin(io), "stdin (--input -)");
  if (text.startsWith("@")) {
    const path = resolve(io.cwd, text.slice(1));
    let content: Buffer;
    try {
      content = await readFile(path);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw usageError(`--input ${JSON.stringify(text)}: cannot read ${JSON.stringify(path)} (${reason}).`);
    }
    if (content.byteLength > MAX_INPUT_BYTES) throw tooLarge(path);
    return parseInput(content.toString("utf8"), JSON.stringify(path));
  }
  return parseInput(text, "--input");
}

async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.byteLength;
    if (size > MAX_INPUT_BYTES) throw tooLarge("stdin");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(source: string): Error {
  return usageError(`--input from ${source} is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB.`);
}

function parseInput(text: string, source: string): JsonValue {
  let input: JsonValue;
  try {
    input = JSON.parse(text) as JsonValue;
  } catch (error) {
    const reason = messageOf(error);
    throw usageError(
      `${source === "--input" ? "--input" : `--input from ${source}`} is not valid JSON: ${reason}`,
    );
  }
  // Refused before anything recursive (the run record, the validator, the digest) sees it.
  if (exceedsJsonDepth(input))
    throw usageError(`--input is nested more than ${MAX_INPUT_DEPTH} levels deep.`);
  return input;
}
