// Removes a package's build output before tsc writes it again, so a deleted or renamed source file
// leaves no stale compiled file or source map behind (the packed tarballs would ship them).
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
