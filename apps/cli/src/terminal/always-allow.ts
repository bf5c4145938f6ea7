import { messageOf } from "@agent/base";
import { type ApprovalRecord, type ApprovalStore, voidApprovalRequests } from "@agent/policy";
import type { EventSink } from "@agent/tools";
import { type AllowRuleEdit, type AllowRulePlan, planAllowRule } from "../config/allow-rule-edit.js";
import { writeEditedDocument } from "../config/config-document.js";
import { CONFIG_ERROR_CODES, ConfigError } from "../config/config-error.js";
import { askQuestion } from "./ask-question.js";
import { type CliIo, safeLine, styleFor, writeLine } from "./io.js";
import { unifiedDiff } from "./text-diff.js";

/** What "always allow this tool" needs of the command: the file to write, and how to use it at once. */
export interface AlwaysAllowTarget {
  /** The configuration file in use (absolute). */
  configFile: string;
  /** Reads the policy from the file again and makes the gate use it from the next call on. */
  reloadPolicy(): void;
}

/** Where the held request is recorded, and where its voiding is audited. */
export interface AlwaysAllowState {
  approvals: ApprovalStore;
  events: EventSink;
}

/**
 * The third answer at an approval prompt: shows the change to the configuration file as a diff,
 * asks to confirm, and writes the rule (in one rename, refused if the file changed since it was
 * read). The held request is then voided (the call was not approved once: the policy now allows
 * it) and the policy reloaded, so the caller's next check of the call passes the gate under it.
 * `again`: nothing was written (refused, declined, or the file changed); ask the first question again.
 */
export async function answerAlwaysAllow(
  state: AlwaysAllowState,
  target: AlwaysAllowTarget,
  io: CliIo,
  request: ApprovalRecord,
  signal: AbortSignal,
): Promise<"written" | "again" | "interrupted" | { decidedElsewhere: ApprovalRecord }> {
  const file = target.configFile;
  const refused = (reason: string): "again" => {
    writeLine(io.stderr, `agent: cannot always allow ${safeLine(request.toolName)}: ${safeLine(reason)}`);
    return "again";
  };
  let plan: AllowRulePlan;
  try {
    plan = planAllowRule(file, { name: request.toolName, effect: request.effect });
  } catch (error) {
    // The file is gone or no longer JSON: say so, and let the operator answer otherwise.
    if (ConfigError.isInstance(error)) return refused(error.message);
    throw error;
  }
  if (!plan.ok) return refused(`${plan.reason}.`);
  showEdit(io, plan.edit);
  let answer: string;
  try {
    answer = await askQuestion(io, `Write this rule to ${safeLine(file)}? [y/N] `, signal);
  } catch (error) {
    if (signal.aborted) return "interrupted";
    throw error;
  }
  if (!/^\s*y(es)?\s*$/i.test(answer)) {
    writeLine(io.stderr, "agent: nothing was written.");
    return "again";
  }
  // Decided from another shell while the diff was on screen: that decision stands, nothing is written.
  const current = await state.approvals.getApproval(request.id);
  if (current?.status !== "pending") return current ? { decidedElsewhere: current } : "again";
  try {
    writeEditedDocument(plan.edit.document, plan.edit.after, plan.edit.expected);
  } catch (error) {
    if (!(ConfigError.isInstance(error) && error.code === CONFIG_ERROR_CODES.changed)) throw error;
    writeLine(io.stderr, `agent: ${safeLine(error.message)}`);
    return "again";
  }
  await voidApprovalRequests(
    state.approvals,
    [current],
    state.events,
    `superseded: the operator added the rule ${JSON.stringify(plan.edit.rule)} to ${file} at the prompt`,
  );
  writeLine(
    io.stderr,
    `agent: added ${safeLine(JSON.stringify(plan.edit.rule))} to the policy rules of ${safeLine(file)}.`,
  );
  try {
    target.reloadPolicy();
  } catch (error) {
    // The rule is on disk; this command keeps the policy it started with (the call is held again).
    writeLine(io.stderr, `warning: the configuration could not be read again: ${safeLine(messageOf(error))}`);
  }
  return "written";
}

function showEdit(io: CliIo, edit: AllowRuleEdit): void {
  const style = styleFor(io.stderr, io.env);
  writeLine(io.stderr);
  writeLine(
    io.stderr,
    style.bold(
      `Always allowing ${safeLine(edit.rule.tool)} adds this rule to ${safeLine(edit.document.file)}:`,
    ),
  );
  for (const line of unifiedDiff(edit.document.text, edit.after, edit.document.file)) {
    // One line each, as written: tabs of the file's indentation kept, anything else escaped.
    const shown = line.split("\t").map(safeLine).join("\t");
    if (line.startsWith("+") && !line.startsWith("+++")) writeLine(io.stderr, style.green(shown));
    else if (line.startsWith("-") && !line.startsWith("---")) writeLine(io.stderr, style.red(shown));
    else writeLine(io.stderr, shown);
  }
  writeLine(io.stderr, "Every later call of this tool then runs without asking, with any arguments.");
}
