export { createEd25519Signer, createEd25519Verifier, generateEd25519KeyPair } from "./ed25519-keys.js";
