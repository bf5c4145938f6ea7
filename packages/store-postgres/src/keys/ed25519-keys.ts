import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { STORE_POSTGRES_ERROR_CODES, StorePostgresError } from "../errors.js";
import type { RecordSigner, SignatureVerifier } from "../signatures.js";

/**
 * A {@link RecordSigner} over an Ed25519 private key in PEM (PKCS #8, as `openssl genpkey -algorithm
 * ed25519` writes it). Throws `store_invalid_key` for anything else.
 */
export function createEd25519Signer(keyId: string, privateKeyPem: string): RecordSigner {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (cause) {
    throw invalidKey(`the private key of "${keyId}" is not a PEM private key`, cause);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw invalidKey(
      `the private key of "${keyId}" is ${key.asymmetricKeyType ?? "not asymmetric"}, not ed25519`,
    );
  }
  return { keyId, sign: (message) => sign(null, Buffer.from(message, "utf8"), key).toString("base64") };
}

/**
 * A {@link SignatureVerifier} trusting exactly these Ed25519 public keys, by key id: each a PEM (SPKI)
 * or its base64 body alone (the line between the PEM's BEGIN and END). Throws `store_invalid_key`.
 */
export function createEd25519Verifier(publicKeys: Readonly<Record<string, string>>): SignatureVerifier {
  const keys = new Map<string, KeyObject>();
  for (const [keyId, text] of Object.entries(publicKeys)) keys.set(keyId, parsePublicKey(keyId, text));
  return {
    verify(keyId, message, signature) {
      const key = keys.get(keyId);
      if (!key || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
      return verify(null, Buffer.from(message, "utf8"), key, Buffer.from(signature, "base64"));
    },
  };
}

/** A new Ed25519 key pair as PEM texts, and the public key's base64 body for a configuration file. */
export function generateEd25519KeyPair(): { privateKeyPem: string; publicKeyPem: string; publicKey: string } {
  const pair = generateKeyPairSync("ed25519");
  const publicKeyPem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
  return {
    privateKeyPem: pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem,
    publicKey: pair.publicKey.export({ type: "spki", format: "der" }).toString("base64"),
  };
}

function parsePublicKey(keyId: string, text: string): KeyObject {
  let key: KeyObject;
  try {
    key = text.includes("-----BEGIN")
      ? createPublicKey(text)
      : createPublicKey({ key: Buffer.from(text.trim(), "base64"), format: "der", type: "spki" });
  } catch (cause) {
    throw invalidKey(
      `the public key of "${keyId}" is neither a PEM public key nor its base64 body; print it with: openssl pkey -in KEY.pem -pubout`,
      cause,
    );
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw invalidKey(`the public key of "${keyId}" is ${key.asymmetricKeyType ?? "unknown"}, not ed25519`);
  }
  return key;
}

function invalidKey(message: string, cause?: unknown): StorePostgresError {
  return new StorePostgresError(STORE_POSTGRES_ERROR_CODES.invalidKey, message, { cause });
}
