import type { GateVerdict, ToolGate } from "@agent/tools";

/** A gate that always answers the same, recording what it was asked. */
export function fixedGate(verdict: "allow" | "deny" | "waiting"): ToolGate & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async admit(request) {
      asked.push(request.tool.name);
      const answers: Record<typeof verdict, GateVerdict> = {
        allow: { type: "allow", via: "policy", isolation: "none", run: (execute) => execute() },
        deny: { type: "deny", reason: "not today" },
        waiting: { type: "waiting", requestId: "apr_1" },
      };
      return answers[verdict];
    },
  };
}
