import { createHash, createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson } from "@agent/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StdioServerConfig } from "../src/config/index.js";
import { IDENTITY_KEY_FILE, loadIdentityKey, serverIdentity } from "../src/runtime/server-identity.js";

let stateDir = "";
beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), "agent-identity-"));
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

function server(pin: string): StdioServerConfig {
  return {
    name: "s",
    type: "stdio",
    command: "node",
    args: ["server.js"],
    cwd: "/srv",
    env: { PIN: pin },
    disabled: false,
    trust: "untrusted",
    sandbox: { network: "deny", write: [], read: [] },
  };
}

describe("server identity", () => {
  // 100,000 guesses, each hashed four ways: about ten seconds on a loaded machine.
  it("cannot be reversed by guessing a short secret without the key", { timeout: 120_000 }, () => {
    const key = loadIdentityKey(stateDir);
    const identity = serverIdentity(server("48213"), key);
    const digest = identity.replace(/^hmac-sha256:/, "");
    // What an attacker who holds a fingerprint can compute without the key: the unkeyed digest, an
    // HMAC under an empty or a guessed key, an HMAC under a key of their own (another state directory).
    const otherDir = mkdtempSync(join(tmpdir(), "agent-identity-"));
    const otherKey = loadIdentityKey(otherDir);
    rmSync(otherDir, { recursive: true, force: true });
    const hmac = (secret: Buffer | string) => (text: string) =>
      createHmac("sha256", secret).update(text).digest("hex");
    const attempts: [string, (text: string) => string][] = [
      ["sha256, no key", (text) => createHash("sha256").update(text).digest("hex")],
      ["HMAC, empty key", hmac("")],
      ["HMAC, another state directory's key", hmac(otherKey)],
      // The control: with the key, the same guessing must find the secret.
      ["HMAC, the key", hmac(key)],
    ];
    const found: Record<string, string[]> = {};
    for (let guess = 0; guess < 100_000; guess += 1) {
      const pin = String(guess).padStart(5, "0");
      const { type, command, args, cwd, env, sandbox } = server(pin);
      const text = canonicalJson({ type, command, args, cwd, env, sandbox });
      for (const [how, hash] of attempts) {
        if (hash(text) !== digest) continue;
        found[how] = [...(found[how] ?? []), pin];
      }
    }
    // The guessing is the real attack (with the key it finds the secret at once); without it, nothing.
    expect(found).toEqual({ "HMAC, the key": ["48213"] });
    expect(identity).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(identity).not.toContain("48213");
  });

  it("is stable across processes sharing a state directory, and differs with another key", () => {
    const first = serverIdentity(server("48213"), loadIdentityKey(stateDir));
    const again = serverIdentity(server("48213"), loadIdentityKey(stateDir));
    expect(again).toBe(first);
    expect(serverIdentity(server("48214"), loadIdentityKey(stateDir))).not.toBe(first);
    const other = mkdtempSync(join(tmpdir(), "agent-identity-"));
    try {
      expect(serverIdentity(server("48213"), loadIdentityKey(other))).not.toBe(first);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("keeps its key private (0600, 32 bytes) and refuses a symlink, a directory or a wrong size", () => {
    const key = loadIdentityKey(stateDir);
    const file = join(stateDir, IDENTITY_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file)).toEqual(key);
    for (const plant of [
      (path: string) => symlinkSync(file, path),
      (path: string) => mkdirSync(path),
      (path: string) => writeFileSync(path, "short"),
    ]) {
      const dir = mkdtempSync(join(tmpdir(), "agent-identity-"));
      try {
        plant(join(dir, IDENTITY_KEY_FILE));
        expect(() => loadIdentityKey(dir)).toThrow(expect.objectContaining({ code: "state_corrupt" }));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
