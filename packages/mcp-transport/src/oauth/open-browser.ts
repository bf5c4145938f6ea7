import { spawn } from "node:child_process";

/**
 * Opens `url` in the user's browser without a shell: each command of `$BROWSER` (a `:`-separated
 * list of executables, the common convention) gets the URL as its only argument, else the platform's
 * opener (`open` on macOS, `xdg-open` elsewhere). Resolves whether a command could be started.
 */
export async function openInBrowser(
  url: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  const configured = (env.BROWSER ?? "").split(":").filter((command) => command.trim() !== "");
  const commands = configured.length > 0 ? configured : [platform === "darwin" ? "open" : "xdg-open"];
  for (const command of commands) {
    if (await start(command, url)) return true;
  }
  return false;
}

function start(command: string, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    // An argument vector: the URL is one argument whatever it contains, never shell syntax.
    const child = spawn(command, [url], { stdio: "ignore", detached: true, shell: false });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
