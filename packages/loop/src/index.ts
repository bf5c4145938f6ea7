/** The agent run lives here; see README.md. */
export const LOOP_PACKAGE = "@agent/loop";
