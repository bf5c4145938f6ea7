import { userInfo } from "node:os";
import { assertNoProcessesAlive, isProcessAlive } from "@agent/mcp-testing/servers";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import type { Browser, Page } from "puppeteer-core";
import { expect } from "vitest";
import { agentEnv, mcpCall, setUpAgent, toolResultsSent } from "./e2e-agent-helpers.js";
import {
  describeWithChromium,
  launchChromium,
  type ServedConsole,
  screenshotBothWidths,
  serveConsole,
  stopConsole,
  waitForText,
} from "./e2e-console-helpers.js";
import { E2E_TIMEOUT_MS, type E2eSandbox, parseSingleJson, e2eTest as test, waitFor } from "./e2e-helpers.js";
import { exitGraceMs, runLimitMs } from "./e2e-limits.js";

const provider = "openai";
// A console, a browser and several CLI processes one after the other.
const timeout = E2E_TIMEOUT_MS * 4;
const operator = `console:${userInfo().username}`;

// Runs `scenario` with a served console and a browser, and stops both whatever happens.
async function withConsole(
  sandbox: E2eSandbox,
  scenario: (served: ServedConsole, browser: Browser) => Promise<void>,
): Promise<void> {
  const served = await serveConsole(sandbox, { env: agentEnv(provider) });
  const browser = await launchChromium();
  try {
    await scenario(served, browser);
  } finally {
    await browser.close();
    await stopConsole(served);
  }
}

async function loggedIn(browser: Browser, served: ServedConsole): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(served.loginUrl);
  await waitForText(page, "Approval queue");
  return page;
}

async function holdOneCall(sandbox: E2eSandbox): Promise<{ runId: string; requestId: string }> {
  const held = await sandbox.run(["run", "echo held", "--json"], { env: agentEnv(provider) });
  expect(held.code, held.stderr).toBe(3);
  const waiting = parseSingleJson(held.stdout);
  return { runId: String(waiting.runId), requestId: String(waiting.requestId) };
}

async function approvalOf(sandbox: E2eSandbox, requestId: string): Promise<Record<string, unknown>> {
  const shown = await sandbox.run(["approvals", "show", requestId, "--json"]);
  return parseSingleJson(shown.stdout).approval as Record<string, unknown>;
}

// Clicks `button` if the page still offers it, and waits for the answer page. The click happens in
// the page, in one task: a live refresh that re-renders the page between finding the button and
// clicking it (what a puppeteer element click can meet) cannot detach it in between.
async function submitIfPending(page: Page, button: string): Promise<boolean> {
  const navigation = page.waitForNavigation();
  const clicked = await page.evaluate((selector: string) => {
    const found = (
      globalThis as unknown as { document: { querySelector(s: string): { click(): void } | null } }
    ).document.querySelector(selector);
    found?.click();
    return found !== null;
  }, button);
  if (clicked) await navigation;
  else navigation.catch(() => undefined);
  return clicked;
}

// Clicks `button`, which the page must offer, and waits for the answer page.
async function submit(page: Page, button: string): Promise<void> {
  expect(await submitIfPending(page, button), `the page offers ${button}`).toBe(true);
}

// The page's own globals (the function runs in the page; this package's types know only Node).
type PageBody = { document: { body: { dataset: Record<string, string> } } };

// Marks the document the page shows now; a reload or navigation replaces it, a live refresh keeps it.
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (globalThis as unknown as PageBody).document.body.dataset.testMark = "kept";
  });
}

async function isMarkedDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as unknown as PageBody).document.body.dataset.testMark === "kept");
}

const heldEcho = [
  toolCallTurn([mcpCall("tc_1", "echo", { message: "held" })]),
  textTurn("done after approval"),
];

describeWithChromium("the operator console in a real browser", () => {
  test("logs in with the link, sees a run of another process appear, approves its held call and watches it complete after resume", {
    timeout,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, provider, heldEcho, {
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
    });
    try {
      await withConsole(sandbox, async (served, browser) => {
        const page = await loggedIn(browser, served);
        // The link opened one session; a second browser with the same link is refused.
        const replay = await browser.newPage();
        const refused = await replay.goto(served.loginUrl);
        expect(refused?.status()).toBe(403);
        await replay.close();
        await page.goto(`${served.origin}/runs`);
        await waitForText(page, "No runs.");
        await markDocument(page);
        const { runId, requestId } = await holdOneCall(sandbox);
        // The run of the other process shows up on the open page, by its live refresh alone.
        await waitForText(page, runId);
        expect(await isMarkedDocument(page), "the runs page was not reloaded").toBe(true);
        await screenshotBothWidths(page, "runs");
        await page.goto(`${served.origin}/runs/${runId}`);
        await waitForText(page, "HELD");
        await screenshotBothWidths(page, "run-waiting");
        await page.goto(`${served.origin}/approvals`);
        await waitForText(page, "PENDING");
        await screenshotBothWidths(page, "approvals");
        await page.goto(`${served.origin}/approvals/${requestId}`);
        await waitForText(page, '{"message":"held"}');
        await screenshotBothWidths(page, "approval");
        await submit(page, "#approve");
        await waitForText(page, "Approved once");
        expect(await approvalOf(sandbox, requestId)).toMatchObject({
          status: "granted",
          decidedBy: operator,
        });
        await page.goto(`${served.origin}/runs/${runId}`);
        await submit(page, "#resume");
        // The transcript streams in: the page turns to completed by itself.
        await waitForText(page, "COMPLETED");
        await waitForText(page, "done after approval");
        await screenshotBothWidths(page, "run-completed");
        await page.goto(`${served.origin}/audit`);
        await page.waitForFunction(
          (id: string) =>
            (
              globalThis as unknown as { document: { body: { textContent: string } } }
            ).document.body.textContent.includes(id),
          { timeout: runLimitMs(60_000), polling: "mutation" },
          requestId,
        );
        await screenshotBothWidths(page, "audit");
        await page.goto(`${served.origin}/servers`);
        await waitForText(page, "mcp__s__echo");
        await screenshotBothWidths(page, "servers");
        // The page shows a kept status; "Check again now" asks the servers again (one more connection).
        const connections = sandbox.received("s", "initialize").length;
        await submit(page, "#check-again");
        await waitForText(page, "mcp__s__echo");
        expect(sandbox.received("s", "initialize").length).toBeGreaterThan(connections);
      });
      expect(model.requests).toHaveLength(2);
      expect(sandbox.received("s", "tools/call")).toHaveLength(1);
    } finally {
      await model.close();
    }
  });

  test("a running run cancelled from its page ends cancelled, its process and its server gone", {
    timeout,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(
      sandbox,
      provider,
      // The call runs until it is cancelled (far longer than any wait of this test).
      [toolCallTurn([mcpCall("tc_1", "slow", { maxMs: 600_000 })]), textTurn("never reached")],
      {
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
        policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
      },
    );
    try {
      await withConsole(sandbox, async (served, browser) => {
        const page = await loggedIn(browser, served);
        // Not in bubblewrap: the server's recorded pid is then a host pid this test can look for.
        const running = sandbox.start(["run", "go slow", "--json"], {
          env: agentEnv(provider),
          isolated: false,
        });
        await waitFor("the call to reach the server", () => sandbox.received("s", "tools/call").length === 1);
        const listed = await sandbox.run(["runs", "list", "--json"]);
        const [run] = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string }> }).runs;
        const runId = String(run?.runId);
        // The server and the wire recorder in front of it, each started by the run's process.
        const serverPids = sandbox
          .records("s")
          .filter((record) => record.event === "started")
          .map((record) => Number(record.pid));
        expect(serverPids.length).toBeGreaterThan(0);
        expect(isProcessAlive(serverPids[0] as number)).toBe(true);
        await page.goto(`${served.origin}/runs/${runId}`);
        await waitForText(page, "RUNNING");
        await submit(page, "#cancel");
        await waitForText(page, "Cancel requested");
        const ended = await running.exited;
        expect(ended.signal).toBeNull();
        const shown = await sandbox.run(["runs", "show", runId, "--json"]);
        expect(shown.code, shown.stderr).toBe(0);
        expect(parseSingleJson(shown.stdout)).toMatchObject({ kind: "agent", run: { status: "cancelled" } });
        await assertNoProcessesAlive(serverPids, exitGraceMs());
        // The open run page turns to cancelled by itself.
        await waitForText(page, "CANCELLED");
      });
      expect(sandbox.received("s", "notifications/cancelled")).toHaveLength(1);
      expect(model.requests).toHaveLength(1);
    } finally {
      await model.close();
    }
  });

  test("a call denied in the page is observed as denied by the run", { timeout }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, provider, heldEcho, {
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    try {
      await withConsole(sandbox, async (served, browser) => {
        const page = await loggedIn(browser, served);
        const { runId, requestId } = await holdOneCall(sandbox);
        await page.goto(`${served.origin}/approvals/${requestId}`);
        await page.type("#reason", "not today");
        await submit(page, "#deny");
        await waitForText(page, "Denied");
        expect(await approvalOf(sandbox, requestId)).toMatchObject({ status: "denied", decidedBy: operator });
        const resumed = await sandbox.run(["resume", runId, "--json"], { env: agentEnv(provider) });
        expect(resumed.code, resumed.stderr).toBe(0);
      });
      expect(toolResultsSent(model, 1).join("")).toContain("policy_denied");
      expect(sandbox.received("s", "tools/call")).toEqual([]);
    } finally {
      await model.close();
    }
  });

  test("two browsers and a shell racing for one request give one decision, and the late clicks say who won", {
    timeout,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, provider, heldEcho, {
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    try {
      await withConsole(sandbox, async (served, browser) => {
        const first = await loggedIn(browser, served);
        const other = await launchChromium();
        try {
          const second = await other.newPage();
          // The same operator's session in a second browser (the link itself works only once).
          await second.setCookie(...(await first.cookies()));
          const { requestId } = await holdOneCall(sandbox);
          for (const page of [first, second]) await page.goto(`${served.origin}/approvals/${requestId}`);
          // A page that already shows the decision taken elsewhere (it refreshes live) has no button left.
          const [shell] = await Promise.all([
            sandbox.run(["approvals", "approve", requestId]),
            submitIfPending(first, "#approve"),
            submitIfPending(second, "#deny"),
          ]);
          const said: string[] = await Promise.all(
            [first, second].map((page) => page.$eval("main", (main) => main.textContent ?? "")),
          );
          const won = [
            shell.code === 0,
            ...said.map((text) => text.includes("Approved once") || text.includes("Denied:")),
          ].filter(Boolean);
          expect(won).toHaveLength(1);
          const decisions = sandbox
            .auditEvents()
            .filter(
              (event) =>
                event.requestId === requestId &&
                (event.type === "approval_granted" || event.type === "approval_denied"),
            );
          expect(decisions).toHaveLength(1);
          const record = await approvalOf(sandbox, requestId);
          // Every page, late click or live refresh, ends showing who decided.
          for (const text of said) expect(text).toContain(String(record.decidedBy));
        } finally {
          await other.close();
        }
      });
    } finally {
      await model.close();
    }
  });

  test("a hostile tool description and result render as text", { timeout }, async ({ sandbox }) => {
    const hostile = `<img src=x onerror="document.title='pwned'">\u001b[31mred`;
    const model = await setUpAgent(
      sandbox,
      provider,
      [toolCallTurn([mcpCall("tc_1", "hostile", {})]), textTurn("<b>model text</b>")],
      {
        mcpServers: {
          s: sandbox.scriptableServer("s", {
            tools: [
              {
                name: "hostile",
                description: hostile,
                result: `<script>document.title='pwned'</script>\u001b[2J<i>r</i>`,
              },
            ],
          }),
        },
        policy: { rules: [{ tool: "mcp__s__hostile", decision: "allow" }] },
      },
    );
    try {
      await withConsole(sandbox, async (served, browser) => {
        const page = await loggedIn(browser, served);
        const ran = await sandbox.run(["run", "go", "--json"], { env: agentEnv(provider) });
        expect(ran.code, ran.stderr).toBe(0);
        const { runId } = parseSingleJson(ran.stdout);
        await page.goto(`${served.origin}/runs/${String(runId)}`);
        await waitForText(page, "<script>document.title='pwned'</script>");
        await waitForText(page, "<b>model text</b>");
        await page.goto(`${served.origin}/servers`);
        await waitForText(page, `<img src=x onerror="document.title='pwned'">`);
        await screenshotBothWidths(page, "servers-hostile");
        for (const path of ["/servers", `/runs/${String(runId)}`]) {
          await page.goto(`${served.origin}${path}`);
          expect(await page.$$("main img, main script, main b, main i")).toEqual([]);
          expect(await page.title()).not.toContain("pwned");
          expect(await page.$eval("main", (main) => main.textContent ?? "")).not.toContain("\u001b");
        }
      });
    } finally {
      await model.close();
    }
  });
});
