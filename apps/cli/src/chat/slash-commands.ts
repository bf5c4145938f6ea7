/** The slash commands of `agent chat`, with what each does (the `/help` text). */
export const CHAT_COMMANDS = Object.freeze({
  "/tools": "the tools the model is offered, and their policy",
  "/approvals": "approval requests still waiting for a decision",
  "/runs": "the runs, newest first (this chat is one)",
  "/audit": "the story of this chat's run (/audit --verbose: every event)",
  "/model": "the model, and the tokens (and cost) used so far",
  "/help": "this list",
  "/quit": "leave the chat (so do Ctrl-D, and Ctrl-C at the prompt)",
});
