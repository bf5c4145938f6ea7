import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "puppeteer-core";
import puppeteer from "puppeteer-core";
import { describe } from "vitest";
import { type E2eSandbox, type RunningAgent, waitFor } from "./e2e-helpers.js";
import { runLimitMs } from "./e2e-limits.js";

/** Debian's chromium: the browser the console's end-to-end tests drive (never downloaded). */
export const CHROMIUM = "/usr/bin/chromium";

/** Where the test run writes its screenshots (ignored by git). */
export const SCREENSHOT_DIR: string = fileURLToPath(new URL("../.screenshots/", import.meta.url));

/**
 * `describe`, or (only where chromium is absent on a developer's machine) `describe.skip` with a
 * message saying so; in CI (`CI` set) a missing chromium fails loudly instead.
 */
export function describeWithChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (process.env.CI)
    throw new Error(
      `${CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium, which CI needs for the console's browser tests.`,
    );
  // The one message a developer sees instead of the tests: say what to install.
  process.stderr.write(
    `skipping the console's browser tests: ${CHROMIUM} is not installed (apt-get install chromium)\n`,
  );
  describe.skip(name, body);
}

/** A running `agent serve` and its one-time login link. */
export interface ServedConsole {
  agent: RunningAgent;
  loginUrl: string;
  origin: string;
}

/** How `agent serve` is started by {@link serveConsole}. */
export interface ServeOptions {
  /** Added to the minimal environment. */
  env?: Record<string, string>;
  /** More `serve` options (`--host`, `--tls-cert`, ...). */
  serveArgs?: string[];
  /** Global options in place of the sandbox's `--config` and `--state-dir` (another "machine"). */
  globalArgs?: string[];
}

/** Starts `agent serve` on a free port (loopback unless `serveArgs` say otherwise) and waits for its login link. */
export async function serveConsole(sandbox: E2eSandbox, options: ServeOptions = {}): Promise<ServedConsole> {
  const args = ["serve", "--port", "0", ...(options.serveArgs ?? [])];
  const agent = sandbox.start(options.globalArgs ? [...options.globalArgs, ...args] : args, {
    env: options.env ?? {},
    bare: options.globalArgs !== undefined,
    limitMs: 600_000,
  });
  const loginUrl = await waitFor(
    "the login link",
    () => /^(https?:\/\/\S+\/login\?token=\S+)$/m.exec(agent.stdout())?.[1],
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${agent.stderr()}`);
  });
  return { agent, loginUrl, origin: new URL(loginUrl).origin };
}

/** Stops a served console (as Ctrl-C does) and waits for it to exit. */
export async function stopConsole(served: ServedConsole): Promise<void> {
  served.agent.child.kill("SIGTERM");
  await served.agent.exited;
}

/** Launches headless chromium. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"],
  });
}

/**
 * Saves the page `page` shows at desktop and phone width as `<name>-desktop.png` and
 * `<name>-phone.png`, each in a fresh tab of its own size (a live page is not resized under its
 * event stream), with the same session.
 */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const cookies = await page.cookies();
  for (const [width, height, label] of [
    [1280, 900, "desktop"],
    [390, 844, "phone"],
  ] as const) {
    const tab = await page.browser().newPage();
    try {
      await tab.setViewport({ width, height });
      await tab.setCookie(...cookies);
      await tab.goto(page.url());
      await tab.screenshot({ path: `${SCREENSHOT_DIR}${name}-${label}.png` });
    } finally {
      await tab.close();
    }
  }
  // Input reaches only the tab in front.
  await page.bringToFront();
}

/** Waits until the page's main content contains `text` (the live refresh brings it). */
export async function waitForText(page: Page, text: string): Promise<void> {
  // The function runs in the page, where `document` exists; this package's types know only Node.
  await page.waitForFunction(
    (wanted: string) =>
      (
        globalThis as unknown as {
          document: { getElementById(id: string): { textContent: string | null } | null };
        }
      ).document
        .getElementById("main")
        ?.textContent?.includes(wanted),
    // What it waits for is a CLI process's write and the page's refresh: bounded as a CLI run is.
    // Checked on each change of the DOM, not on animation frames: a tab behind another is hidden,
    // and a hidden tab runs no animation frames, so a frame-polled wait would never see the refresh.
    { timeout: runLimitMs(60_000), polling: "mutation" },
    text,
  );
}

/** A logged-in API client of a served console: the session cookie and its CSRF token. */
export interface ConsoleSession {
  get(path: string): Promise<Response>;
  /** A state-changing request as the console's own pages send it (same Origin, the CSRF token). */
  post(path: string, body?: Record<string, string>): Promise<Response>;
}

/** Opens the login link without a browser and reads the session's CSRF token off a page. */
export async function consoleSession(served: ServedConsole): Promise<ConsoleSession> {
  const login = await fetch(served.loginUrl, { redirect: "manual" });
  if (login.status !== 303) throw new Error(`the login link answered ${login.status}`);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const get = (path: string) => fetch(`${served.origin}${path}`, { headers: { cookie } });
  const page = await (await get("/approvals")).text();
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error("the console's page carries no CSRF token");
  return {
    get,
    post: (path, body = {}) =>
      fetch(`${served.origin}${path}`, {
        method: "POST",
        headers: { cookie, origin: served.origin, "x-csrf-token": csrf, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
  };
}
