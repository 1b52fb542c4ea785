/**
 * The terminal as a platform: `hermes-gateway chat`. A typed line becomes an
 * inbound message, an answer to an approval or clarify question becomes the
 * click a button would have been; the runtime's replies, streams, progress
 * and prompts are shown on the terminal. Piped in, lines take turns with the
 * agent: after a line is sent, the next one is read once the conversation is
 * idle (Adapter.idle), and lines waiting meanwhile go to whichever question
 * comes first — so a script reads like a conversation. Typed by a person
 * (live input), a line sent while the agent works goes to the gateway at
 * once, and its busy mode decides, as on any chat platform.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../../config/timing/index.js";
import {
  type Adapter,
  type AdapterHealth,
  type ApprovalPrompt,
  approvalActionId,
  type Capabilities,
  type ChatRef,
  type ClarifyPrompt,
  clarifyActionId,
  clarifyUnansweredActionId,
  type DeliverResult,
  type InboundAction,
  type InboundEvent,
  type InboundMessage,
  type InboundSink,
  type SendOptions,
  type SentMessage,
  type StreamHandle,
  type TurnProgress,
} from "../types.js";
import type { LineInput } from "./line-input.js";
import { TerminalPrinter, type TerminalStreams } from "./printer.js";
import { PromptQueue } from "./prompt-queue.js";
import { askApproval, askClarify, type PromptIo } from "./prompts.js";
import { TerminalStream } from "./stream.js";

export interface TerminalOptions {
  /** The platform name the gateway knows the terminal by. */
  readonly platform: string;
  /** Who types: the machine's owner, as the gateway's access policy knows them. */
  readonly user: { readonly userId: string; readonly displayName: string };
  /** Lines typed or piped in; null when nobody can be asked anything (a one-shot run with no terminal). */
  readonly input: LineInput | null;
  readonly streams: TerminalStreams;
  /** Stream the answer as it is written (the REPL); otherwise it is printed whole. */
  readonly streamAnswers: boolean;
  /** A person types (a terminal): lines are sent as they come, not only once a turn is over. */
  readonly liveInput: boolean;
  /** approvals.timeout_s: a question closed after this long without an answer is shown as timed out. */
  readonly approvalTimeoutS: number;
  /** The time messages are stamped with and prompts are timed on (only `now` is read). */
  readonly clock: Pick<Clock, "now">;
}

/** How the conversation about one line ended. */
export type LineOutcome = "answered" | "failed" | "interrupted" | "done";

/** What the entry does about a Ctrl-C: nothing more, end the input (quit the REPL), or exit at once. */
export type InterruptAction = "handled" | "end-input" | "exit-now";

interface Exchange {
  readonly messageId: string;
  answered: boolean;
  failed: boolean;
  /** The id of the /stop a Ctrl-C sent, whose reply shows as "(interrupted)". */
  stopId: string | null;
  /** Resolves once the conversation is idle again. */
  readonly done: Promise<void>;
  settle(): void;
}

/** The REPL's read of the next line; `busy`: started while a turn ran (so without the prompt). */
interface Reading {
  readonly controller: AbortController;
  readonly busy: boolean;
}

const PROMPT = "› ";
const EXIT_WORDS = new Set(["/exit", "/quit"]);
const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";
const TERMINAL_HELP = [
  "In this terminal:",
  "  /exit, /quit   quit (also Ctrl-D, or Ctrl-C twice at the prompt)",
  "  /clear         clear the screen",
  "  Ctrl-C         interrupt the running reply (as /stop); a second one exits at once",
].join("\n");

export class TerminalAdapter implements Adapter {
  readonly platform: string;
  readonly capabilities: Capabilities;
  /** This run's conversation: one chat, new for every process (`--resume` points it at a stored session). */
  readonly chat: ChatRef;
  readonly #printer: TerminalPrinter;
  readonly #prompts: PromptQueue;
  #sink: InboundSink | null = null;
  #exchange: Exchange | null = null;
  #reading: Reading | null = null;
  #exitArmed = false;
  #nextId = 1;

  constructor(private readonly opts: TerminalOptions) {
    this.platform = opts.platform;
    this.chat = { platform: opts.platform, chatId: randomUUID(), chatType: "dm" };
    this.capabilities = {
      maxMessageLength: Number.MAX_SAFE_INTEGER,
      lengthUnit: "codepoint",
      format: "markdown",
      // Answers are typed letters and numbers: the "buttons" of a terminal.
      buttons: true,
      edits: false,
      threads: false,
      reactions: false,
      typing: false,
      streams: opts.streamAnswers,
      editIntervalMs: 0,
      prompts: opts.input ? "inline" : "none",
    };
    this.#printer = new TerminalPrinter(opts.streams);
    this.#prompts = new PromptQueue((err) => this.#printer.notice(`hermes-gateway chat: could not ask: ${String(err)}`));
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = null;
    this.#prompts.closeAll();
    this.#exchange?.settle();
  }

  health(): AdapterHealth {
    return { state: this.#sink ? "connected" : "stopped" };
  }

  // ---------------------------------------------------------------- the entry's side

  /**
   * The REPL: reads lines until the input ends or /exit. Piped in, each line waits for the turn before it to end;
   * typed live, a line sent during a turn goes to the gateway at once. Open questions take the input first.
   */
  async converse(): Promise<void> {
    const input = this.opts.input;
    if (!input) return;
    for (;;) {
      const line = await this.#read(input);
      if (line === undefined) continue;
      if (line === null) break;
      this.#exitArmed = false;
      const text = line.trim();
      if (!text) continue;
      if (EXIT_WORDS.has(text.toLowerCase())) break;
      if (text.toLowerCase() === "/clear") this.opts.streams.err(CLEAR_SCREEN);
      else if (this.#exchange) void this.#deliver(this.#message(text));
      else if (this.opts.liveInput) void this.#converseAbout(text);
      else await this.#converseAbout(text);
    }
    await this.#leave();
  }

  async #converseAbout(text: string): Promise<void> {
    await this.say(text);
    if (/^\/(help|commands)$/i.test(text)) this.#printer.notice(TERMINAL_HELP);
  }

  /** Reads the next line once no question is open; undefined when the read gave way (to a question, or to the prompt). */
  async #read(input: LineInput): Promise<string | null | undefined> {
    await this.#prompts.settled();
    const reading: Reading = { controller: new AbortController(), busy: this.#exchange !== null };
    this.#reading = reading;
    try {
      const line = await input.ask(reading.busy ? "" : PROMPT, reading.controller.signal);
      return reading.controller.signal.aborted ? undefined : line;
    } finally {
      if (this.#reading === reading) this.#reading = null;
    }
  }

  /** Leaving while a turn runs (live input): it is stopped first, so what it did is kept. */
  async #leave(): Promise<void> {
    const ex = this.#exchange;
    if (!ex) return;
    if (!ex.stopId) {
      const stop = this.#message("/stop");
      ex.stopId = stop.messageId;
      void this.#deliver(stop);
    }
    await ex.done;
  }

  /** Sends one line as a message and waits until the conversation is idle again. */
  async say(text: string): Promise<LineOutcome> {
    const event = this.#message(text);
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const ex: Exchange = { messageId: event.messageId, answered: false, failed: false, stopId: null, done, settle };
    this.#exchange = ex;
    try {
      const result = await this.#deliver(event);
      if (result?.status !== "accepted") {
        if (result) this.#printer.notice(`hermes-gateway chat: the message was not taken (${result.status === "ignored" ? result.reason : result.status})`);
        return "failed";
      }
      await done;
    } finally {
      if (this.#exchange === ex) this.#exchange = null;
    }
    if (ex.stopId) return "interrupted";
    return ex.failed ? "failed" : ex.answered ? "answered" : "done";
  }

  /** Ctrl-C: interrupts the running turn (as /stop); a second one exits. At the REPL prompt, two in a row quit. */
  interrupt(): InterruptAction {
    const ex = this.#exchange;
    if (ex?.stopId) {
      this.#printer.notice("\n^C again: exiting now");
      return "exit-now";
    }
    if (ex) {
      const stop = this.#message("/stop");
      ex.stopId = stop.messageId;
      this.#printer.notice(`\n^C interrupting… (again to exit now)`);
      void this.#deliver(stop);
      return "handled";
    }
    if (!this.#reading || this.#reading.busy) return "exit-now";
    if (this.#exitArmed) return "end-input";
    this.#exitArmed = true;
    this.#printer.notice("\n(press Ctrl-C again or type /exit to quit)");
    this.opts.input?.reprompt();
    return "handled";
  }

  // ---------------------------------------------------------------- outbound (the contract)

  async send(_chat: ChatRef, opts: SendOptions): Promise<SentMessage> {
    const ex = this.#exchange;
    if (ex?.stopId && opts.answers?.includes(ex.stopId)) this.#printer.notice("(interrupted)");
    else if (opts.final === "answer") {
      this.#printer.answer(opts.text);
      if (ex) ex.answered = true;
    } else {
      this.#printer.notice(opts.text);
      if (ex && opts.final === "failure") ex.failed = true;
    }
    for (const m of opts.media ?? []) this.#printer.notice(`📎 ${m.kind}: ${m.path}${m.caption ? ` — ${m.caption}` : ""}`);
    return { messageIds: [this.#id()] };
  }

  startStream(): StreamHandle {
    return new TerminalStream(this.#printer, this.#id(), () => {
      if (this.#exchange) this.#exchange.answered = true;
    });
  }

  progress(_chat: ChatRef, progress: TurnProgress): void {
    this.#printer.progress(progress);
  }

  idle(chat: ChatRef): void {
    if (chat.chatId !== this.chat.chatId) return;
    // Nothing waits for a person any more: a question still on screen is moot.
    this.#prompts.closeAll();
    const ex = this.#exchange;
    this.#exchange = null;
    ex?.settle();
    // A read begun during the turn (live input) starts again, showing the prompt.
    if (this.#reading?.busy) this.#reading.controller.abort();
  }

  async sendApproval(_chat: ChatRef, prompt: ApprovalPrompt): Promise<SentMessage> {
    const messageId = this.#id();
    this.#reading?.controller.abort(); // the question takes the input
    this.#prompts.add({ messageId, openedAt: this.opts.clock.now(), run: (signal) => this.#approve(prompt, messageId, signal) });
    return { messageIds: [messageId] };
  }

  async resolveApproval(_chat: ChatRef, messageId: string, outcome: string): Promise<void> {
    const job = this.#prompts.close(messageId);
    if (!job) return; // answered here: its click's reply was shown
    const timeoutMs = this.opts.approvalTimeoutS * 1000;
    const timedOut = this.opts.clock.now() - job.openedAt >= timeoutMs - 50;
    this.#printer.notice(`    ${timedOut ? `⏱ No answer within ${this.opts.approvalTimeoutS} s — denied` : outcome}`);
  }

  async sendClarify(_chat: ChatRef, prompt: ClarifyPrompt): Promise<SentMessage> {
    const messageId = this.#id();
    this.#reading?.controller.abort(); // the question takes the input
    this.#prompts.add({ messageId, openedAt: this.opts.clock.now(), run: (signal) => this.#clarify(prompt, messageId, signal) });
    return { messageIds: [messageId] };
  }

  async edit(): Promise<void> {}
  async delete(): Promise<void> {}
  async typing(): Promise<void> {}
  async react(): Promise<void> {}

  // ---------------------------------------------------------------- prompts

  get #promptIo(): PromptIo {
    const input = this.opts.input;
    if (!input) throw new Error("a question reached a terminal with no input (capabilities.prompts is none)");
    return { input, write: (t) => this.#printer.notice(t.replace(/\n$/, "")) };
  }

  async #approve(prompt: ApprovalPrompt, messageId: string, signal: AbortSignal): Promise<void> {
    const answer = await askApproval(this.#promptIo, prompt, signal);
    if (answer.kind === "closed") return;
    this.#prompts.close(messageId);
    if (answer.kind === "deny") {
      // The gateway's own /deny takes a reason the agent reads; it answers the oldest open approval, which is this one.
      await this.#deliver(this.#message(`/deny ${answer.reason}`));
      return;
    }
    const result = await this.#deliver(this.#action(approvalActionId(prompt.requestId, answer.choice), messageId));
    if (result?.status === "action" && result.reply.text) this.#printer.notice(`    ${result.reply.text}`);
  }

  async #clarify(prompt: ClarifyPrompt, messageId: string, signal: AbortSignal): Promise<void> {
    const reply = await askClarify(this.#promptIo, prompt, signal);
    if (reply.kind === "closed") return;
    this.#prompts.close(messageId);
    // Free text is a message: the gateway takes a message as the answer to the open question.
    const event =
      reply.kind === "text"
        ? this.#message(reply.text)
        : this.#action(reply.kind === "choice" ? clarifyActionId(prompt.requestId, reply.index) : clarifyUnansweredActionId(prompt.requestId), messageId);
    const result = await this.#deliver(event);
    if (result?.status === "action" && result.reply.alert && result.reply.text) this.#printer.notice(`    ${result.reply.text}`);
  }

  // ---------------------------------------------------------------- inbound

  async #deliver(event: InboundEvent): Promise<DeliverResult | null> {
    const sink = this.#sink;
    if (!sink) return null;
    try {
      return await sink.deliver(event);
    } catch (err) {
      this.#printer.notice(`hermes-gateway chat: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }

  #message(text: string): InboundMessage {
    const id = randomUUID();
    return {
      kind: "message",
      eventId: id,
      messageId: id,
      chat: this.chat,
      sender: this.#sender(),
      timestamp: this.opts.clock.now(),
      text,
      media: [],
      addressed: true,
    };
  }

  #action(actionId: string, messageId: string): InboundAction {
    return { kind: "action", eventId: randomUUID(), chat: this.chat, sender: this.#sender(), timestamp: this.opts.clock.now(), actionId, messageId };
  }

  #sender(): InboundMessage["sender"] {
    return { userId: this.opts.user.userId, displayName: this.opts.user.displayName, isBot: false };
  }

  #id(): string {
    return String(this.#nextId++);
  }
}
