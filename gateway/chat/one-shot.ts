/**
 * `chat -q "…"`: one turn, the final answer on stdout, progress on stderr.
 * Exit 0 when the turn ended with an answer, 1 when it failed or was
 * interrupted. Approval and clarify questions are asked on the terminal only
 * when stdin is one; otherwise dangerous commands are refused (the model reads
 * why) and clarify reports that nobody can be asked.
 */
import type { AgentLoopResult } from "../../agent/index.js";
import { EXIT } from "../cli/exit-codes.js";
import { scrubMemoryContext } from "../tools-session.js";
import type { LineReader } from "./line-input.js";
import { noApprover, noClarifier, terminalApprover, terminalClarifier } from "./prompts.js";
import { TurnPrinter, type ChatStreams } from "./render.js";
import { endSession, runTurn, type ChatDeps, type ChatSession } from "./session.js";

export interface OneShotIo extends ChatStreams {
  /** A reader on an interactive stdin, or null when nobody can answer questions. */
  readonly input: LineReader | null;
  /** Registers the Ctrl-C handler for the duration of the turn; returns the unregister function. */
  onInterrupt(handler: () => void): () => void;
  /** Leaves at once (a second Ctrl-C while the turn is still winding down). */
  forceExit(): void;
}

export async function runOneShot(deps: ChatDeps, session: ChatSession, query: string, io: OneShotIo): Promise<number> {
  const printer = new TurnPrinter(io, { streamText: false });
  const write = (t: string) => printer.notice(t.replace(/\n$/, ""));
  const prompts = io.input ? { input: io.input, write, clock: deps.clock, approvalTimeoutS: deps.config.approvals.timeout_s } : null;
  const controller = new AbortController();
  const off = io.onInterrupt(() => {
    if (controller.signal.aborted) return io.forceExit();
    io.err("\ninterrupted (Ctrl-C again to exit now)\n");
    controller.abort(new Error("interrupted by the user"));
  });
  try {
    const { result, persistErrors } = await runTurn(
      deps,
      session,
      query,
      {
        approver: prompts ? terminalApprover(prompts) : noApprover,
        clarifier: prompts ? terminalClarifier(prompts) : noClarifier,
        emit: (e) => printer.handle(e),
        notify: (text) => printer.notice(`[notification] ${text}`),
      },
      controller.signal,
    );
    if (persistErrors > 0) io.err(`warning: ${persistErrors} store write(s) failed; the session history is incomplete\n`);
    return finish(result, session, io);
  } finally {
    off();
    endSession(deps, session, "cli_close");
  }
}

function finish(result: AgentLoopResult, session: ChatSession, io: ChatStreams): number {
  switch (result.stop.kind) {
    case "interrupted":
      io.err(`The turn was interrupted. Continue with: hermes-gateway chat --resume ${session.id}\n`);
      return EXIT.FAILURE;
    case "error":
      io.err(`hermes-gateway chat: the model call failed (${result.stop.error.reason}): ${result.stop.error.message}\n`);
      return EXIT.FAILURE;
    default: {
      const answer = scrubMemoryContext(result.finalText);
      io.out(answer.endsWith("\n") ? answer : `${answer}\n`);
      io.err(`session: ${session.id}\n`);
      return EXIT.OK;
    }
  }
}
