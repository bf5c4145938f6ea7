// Node 20 shim: @modelcontextprotocol/conformance 0.1.16 imports { globSync } from "fs" (Node >= 22 only).
import { register } from "node:module";

register("./fs-hook.mjs", import.meta.url);
