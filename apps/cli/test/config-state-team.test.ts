import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateEd25519KeyPair } from "@agent/store-postgres/keys";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { loadSigningKeyFile } from "../src/state/signing-key-file.js";
import { directory, loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

const URL = "postgres://agent:long-password@127.0.0.1:5432/agent";
const alice = generateEd25519KeyPair();

describe("state's team fields", () => {
  it("reads a shared identity key from the environment, and treats it as a secret", () => {
    const key = "ab".repeat(32);
    const file = writeConfig({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference the loader expands.
      state: { url: URL, identityKey: "${KEY}", approvers: { alice: alice.publicKey } },
    });
    const config = loadConfig(file, { KEY: key });
    expect(config.state.team.identityKey?.toString("hex")).toBe(key);
    expect(config.state.team.approvers).toEqual({ alice: alice.publicKey });
    expect(config.substitutedValues).toContain(key);
  });

  it("names the field and the fix for a short identity key, a bad public key, or a field without a URL", () => {
    const short = loadError(writeConfig({ state: { url: URL, identityKey: "abcd" } }));
    expect(short.message).toMatch(/state\.identityKey.*openssl rand -hex 32/s);
    expect(short.message).not.toContain("abcd");
    const badKey = loadError(writeConfig({ state: { url: URL, approvers: { bob: "nope" } } }));
    expect(badKey.message).toMatch(/state\.approvers\.bob.*openssl pkey/s);
    const noUrl = loadError(writeConfig({ state: { approvers: { alice: alice.publicKey } } }));
    expect(noUrl.message).toMatch(/state\.approvers.*needs state\.url/s);
  });

  it("refuses an approver key file others can read, or one that is not a key, saying how to fix it", () => {
    const file = join(directory(), "alice.pem");
    writeFileSync(file, alice.privateKeyPem);
    chmodSync(file, 0o644);
    expect(() => loadSigningKeyFile("state.signingKey", { id: "alice", file })).toThrow(/chmod 600/);
    writeFileSync(join(directory(), "junk.pem"), "junk", { mode: 0o600 });
    expect(() =>
      loadSigningKeyFile("state.signingKey", { id: "alice", file: join(directory(), "junk.pem") }),
    ).toThrow(expect.objectContaining({ code: "state_signing_key" }));
    expect(() =>
      loadSigningKeyFile("state.signingKey", { id: "alice", file: join(directory(), "missing.pem") }),
    ).toThrow(/openssl genpkey -algorithm ed25519/);
  });
});
