import { installWithNpm } from "./npm-install.js";
import type { PackageRunnerCommand } from "./package-runner-command.js";
import { installWithUv } from "./uv-install.js";

/** One installed package, pinned: its exact version and, where the installer records one, its integrity. */
export interface PinnedPackage {
  name: string;
  version: string;
  /** The registry's integrity (`sha512-…`) npm checked the tarball against; `null` where none is recorded (uv). */
  integrity: string | null;
}

/** What one install produced: the pinned packages and the file the server runs. */
export interface Installation {
  packages: PinnedPackage[];
  /** Absolute path of the executable (or the script run by Node). */
  entry: string;
  /** `node`: run `entry` with the CLI's own Node; unset: `entry` is executed itself. */
  interpreter: "node" | undefined;
}

/** What to install, where, and how it may reach the network: an installer's whole input. */
export interface InstallRequest {
  command: PackageRunnerCommand;
  /** A fresh, empty directory the installation fills. */
  dir: string;
  /** Where the server runs: npm reads the `.npmrc` of the project there, as npx would. */
  cwd: string;
  /** The user's environment: the installer's configuration (registry, proxy, tokens) comes from it. */
  env: Readonly<Record<string, string | undefined>>;
  /** Run the packages' lifecycle scripts (npm); off unless the server entry's `installScripts` says so. */
  scripts: boolean;
  /** A refresh: revalidate what the installer has cached rather than trust it. */
  refresh: boolean;
  onLine?: (line: string) => void;
  signal?: AbortSignal | undefined;
}

/** Installs with the installer the command needs (npm or uv). */
export function installPackages(request: InstallRequest): Promise<Installation> {
  return request.command.installer === "npm" ? installWithNpm(request) : installWithUv(request);
}
