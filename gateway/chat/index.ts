/** `hermes-gateway chat`: the agent in the terminal (one-shot `-q` or an interactive REPL). */
export { chatCommand } from "./command.js";
export { startSession, resumeSession, runTurn, cliToolContext, CLI_PLATFORM, type ChatDeps, type ChatSession, type TurnIo } from "./session.js";
