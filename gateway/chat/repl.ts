/**
 * The interactive chat: read a line, run a turn with the answer streamed to
 * stdout and tool lines on stderr, repeat. Works on a terminal and on piped
 * stdin alike. `/exit` (or end of input) quits, `/new` starts a fresh session,
 * `/compress [focus]` compresses the conversation now.
 * Ctrl-C interrupts the running turn; at the prompt, a second Ctrl-C exits.
 */
import { EXIT } from "../cli/exit-codes.js";
import { scrubMemoryContext } from "../tools-session.js";
import type { LineInput } from "./line-input.js";
import { terminalApprover, terminalClarifier } from "./prompts.js";
import { TurnPrinter, type ChatStreams } from "./render.js";
import { compressSession, endSession, runTurn, startSession, type ChatDeps, type ChatSession } from "./session.js";

export interface ReplIo extends ChatStreams {
  readonly input: LineInput;
  /** Registers the Ctrl-C handler; returns the unregister function. */
  onInterrupt(handler: () => void): () => void;
  /** Ends input (the pending prompt resolves with null). */
  closeInput(): void;
  /** Leaves at once (a turn that ignores the interrupt must not hold the terminal). */
  forceExit(): void;
}

const PROMPT = "› ";

const HELP = [
  "Commands:",
  "  /new                start a new session",
  "  /compress [focus]   summarise older messages now (continues in a linked session)",
  "  /exit               quit (also /quit, Ctrl-D, or Ctrl-C twice at the prompt)",
  "  /help               this list",
  "Ctrl-C during a reply interrupts it.",
].join("\n");

interface ReplState {
  session: ChatSession;
  turn: AbortController | null;
  /** A Ctrl-C arrived at the prompt; the next one exits. */
  exitArmed: boolean;
}

export async function runRepl(deps: ChatDeps, first: ChatSession, io: ReplIo): Promise<number> {
  const st: ReplState = { session: first, turn: null, exitArmed: false };
  const off = io.onInterrupt(() => interrupt(st, io));
  io.err(`hermes-gateway chat — session ${first.id}${first.history.length ? ` (resumed, ${first.history.length} messages)` : ""}. /help for commands.\n`);
  try {
    for (;;) {
      const line = await io.input.ask(PROMPT);
      if (line === null) break;
      st.exitArmed = false;
      const text = line.trim();
      if (!text) continue;
      if (text === "/exit" || text === "/quit") break;
      if (text === "/help") {
        io.err(`${HELP}\n`);
        continue;
      }
      if (text === "/new") {
        endSession(deps, st.session, "new_session");
        st.session = await startSession(deps);
        io.err(`new session ${st.session.id}\n`);
        for (const notice of st.session.notices ?? []) io.err(`${notice}\n`);
        continue;
      }
      const compress = /^\/(?:compress|compact)(?:\s+(.*))?$/i.exec(text);
      if (compress) {
        await compressNow(deps, st, compress[1]?.trim() || undefined, io);
        continue;
      }
      if (/^\/[a-z-]+$/i.test(text)) {
        io.err(`unknown command ${text}; /help lists them\n`);
        continue;
      }
      await turn(deps, st, text, io);
    }
  } finally {
    off();
    endSession(deps, st.session, "cli_close");
  }
  io.err(`bye — resume with: hermes-gateway chat --resume ${st.session.id}\n`);
  return EXIT.OK;
}

function interrupt(st: ReplState, io: ReplIo): void {
  if (st.turn?.signal.aborted) {
    io.err("\n^C again: exiting now\n");
    io.forceExit();
    return;
  }
  if (st.turn) {
    io.err("\n^C interrupting… (again to exit now)\n");
    st.turn.abort(new Error("interrupted by the user"));
    return;
  }
  if (st.exitArmed) {
    io.closeInput();
    return;
  }
  st.exitArmed = true;
  io.err("\n(press Ctrl-C again or type /exit to quit)\n");
  io.input.reprompt();
}

async function turn(deps: ChatDeps, st: ReplState, text: string, io: ReplIo): Promise<void> {
  const printer = new TurnPrinter(io, { streamText: true });
  const write = (t: string) => printer.notice(t.replace(/\n$/, ""));
  const prompts = { input: io.input, write, clock: deps.clock, approvalTimeoutS: deps.config.approvals.timeout_s };
  st.turn = new AbortController();
  try {
    const { result, persistErrors } = await runTurn(
      deps,
      st.session,
      text,
      { approver: terminalApprover(prompts), clarifier: terminalClarifier(prompts), emit: (e) => printer.handle(e), notify: (t) => printer.notice(`[notification] ${t}`) },
      st.turn.signal,
    );
    printer.endLine();
    if (result.stop.kind === "interrupted") io.err("(interrupted)\n");
    else if (result.stop.kind === "error") io.err(`error: the model call failed (${result.stop.error.reason}): ${result.stop.error.message}\n`);
    else if (!printer.wroteText && result.finalText) io.out(`${scrubMemoryContext(result.finalText)}\n`);
    if (persistErrors > 0) io.err(`warning: ${persistErrors} store write(s) failed; the session history is incomplete\n`);
  } finally {
    st.turn = null;
  }
}

/** `/compress`: interruptible like a turn (Ctrl-C aborts the summary call). */
async function compressNow(deps: ChatDeps, st: ReplState, focus: string | undefined, io: ReplIo): Promise<void> {
  st.turn = new AbortController();
  io.err("  … compressing the conversation\n");
  try {
    io.err(`🗜️ ${await compressSession(deps, st.session, focus, st.turn.signal)}\n`);
  } catch (err) {
    if (st.turn.signal.aborted) io.err("(interrupted)\n");
    else io.err(`error: compression failed: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    st.turn = null;
  }
}
