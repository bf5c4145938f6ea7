/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The outcome of {@link expandVariables}: the expanded text, or what stopped it (never a value). */
export type ExpansionResult =
  | {
      ok: true;
      value: string;
      /** The values taken from `env` (not defaults): they are treated as secrets in every output. */
      substituted: string[];
    }
  | { ok: false; problem: "missing_variable"; variable: string }
  | { ok: false; problem: "malformed_reference" };

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?$/s;

/**
 * Expands `${NAME}` and `${NAME:-default}` in `text` from `env`, as a shell does: the default applies
 * when the variable is unset or empty, and a set-but-empty variable without a default expands to "".
 * `$${` stands for a literal `${`; any other `$` is kept as is. The result never reveals which
 * value was used: a failure names only the variable.
 */
export function expandVariables(text: string, env: Environment): ExpansionResult {
  let result = "";
  let index = 0;
  const substituted: string[] = [];
  while (index < text.length) {
    const dollar = text.indexOf("$", index);
    if (dollar === -1) break;
    result += text.slice(index, dollar);
    if (text.startsWith("$${", dollar)) {
      result += "${";
      index = dollar + 3;
      continue;
    }
    if (!text.startsWith("${", dollar)) {
      result += "$";
      index = dollar + 1;
      continue;
    }
    const close = text.indexOf("}", dollar + 2);
    const match = close === -1 ? null : REFERENCE.exec(text.slice(dollar + 2, close));
    if (!match) return { ok: false, problem: "malformed_reference" };
    const [, variable = "", fallback] = match;
    const value = env[variable];
    if (fallback !== undefined && (value === undefined || value === "")) {
      result += fallback;
    } else if (value === undefined) {
      return { ok: false, problem: "missing_variable", variable };
    } else {
      result += value;
      substituted.push(value);
    }
    index = close + 1;
  }
  return { ok: true, value: result + text.slice(index), substituted };
}
