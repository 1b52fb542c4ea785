/** The terminal platform (`hermes-gateway chat`): lines in, answers out, questions asked in place. */
export { TerminalAdapter, type InterruptAction, type LineOutcome, type TerminalOptions } from "./adapter.js";
export { LineInput, type LineDisplay, type LineReader } from "./line-input.js";
export { parseApprovalAnswer, parseClarifyAnswer } from "./prompts.js";
export type { TerminalStreams } from "./printer.js";
