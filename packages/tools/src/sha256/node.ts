import { createHash } from "node:crypto";

/** sha256 of `text`'s UTF-8 bytes as 64 hex digits, by Node's native hash (chosen on Node by the `#sha256` import). */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
