/** The terminal platform (`hermes-gateway chat`): lines in, answers out, questions asked in place. */
export { type InterruptAction, type LineOutcome, TerminalAdapter, type TerminalOptions } from "./adapter.js";
export { type LineDisplay, LineInput, type LineReader } from "./line-input.js";
export type { TerminalStreams } from "./printer.js";
export { parseApprovalAnswer, parseClarifyAnswer } from "./prompts.js";
