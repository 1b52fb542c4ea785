/**
 * One conversation, one mailbox: a per-session actor, so no two guards race
 * over one session (two racing guards cause most duplicate and stall bugs in
 * the gateways of Hermes Agent and OpenClaw). The mailbox is the only
 * owner of its session's FIFO queue, steering buffer, running turn and its
 * AbortController, and (through its brokers) its pending approvals and
 * questions. Commands act on it directly; nothing else guards the session.
 */

import type { ChatRef } from "../../adapters/types.js";
import type { Message } from "../../agent/types.js";
import type { BusyMode } from "../../config/index.js";
import type { ApprovalBroker } from "./approvals.js";
import type { ClarifyBroker } from "./clarify.js";
import type { SessionInfo } from "./ports.js";
import type { Semaphore } from "./semaphore.js";
import { hasMedia, type InputPart, inputOf, mergeInputs, messageIdsOf, senderOf, type TurnInput } from "./turn-input.js";

export type AbortReason = "interrupt" | "stop" | "reset" | "timeout" | "shutdown";

export interface ActiveTurn {
  readonly id: string;
  /** Grows while the turn waits for a slot (new messages join it). */
  input: TurnInput;
  readonly controller: AbortController;
  /** waiting: for a concurrency slot; running: the agent works; finishing: the reply is being delivered. */
  phase: "waiting" | "running" | "finishing";
  /**
   * The agent was called. Until then the turn has done nothing that must be kept (it loads the session,
   * prepares media): interrupted before, its messages run in the next turn instead (see handBack).
   */
  agentStarted: boolean;
  abortReason: AbortReason | null;
  /** Steering messages the agent has taken into this turn. */
  readonly steered: InputPart[];
  /**
   * Gives the turn's concurrency slot back (idempotent). Called once the agent
   * is done, so a reply waiting for the platform's rate limit holds no slot.
   */
  releaseSlot: () => void;
}

export type PostResult =
  | { readonly kind: "started" }
  | { readonly kind: "queued"; readonly depth: number; readonly ack: BusyMode | null }
  | { readonly kind: "steered"; readonly ack: BusyMode | null }
  | { readonly kind: "merged" }
  | { readonly kind: "dropped" };

export interface Discarded {
  /** Inbound rows that will never get a turn (mark them dropped). */
  readonly rowIds: readonly number[];
  readonly messageIds: readonly string[];
  readonly wasRunning: boolean;
}

export interface MailboxHost {
  readonly slots: Semaphore;
  readonly queueMax: number;
  readonly ackCooldownMs: number;
  /** A turn that starts with media waits this long (again after each arrival) for the rest of its burst; 0 = no wait. */
  readonly burstWindowMs: number;
  now(): number;
  /** Resolves false as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  newTurnId(): string;
  /** Runs one turn to its end; must not reject. */
  execute(mailbox: SessionMailbox, turn: ActiveTurn): Promise<void>;
  /** The mailbox has nothing to do (it may be evicted). */
  idle(mailbox: SessionMailbox): void;
}

/** Telegram albums hold at most 10 items: enough windows for one each. */
const MAX_BURST_ROUNDS = 10;

/** Media from the same sender right after media: parts of one burst (an album). */
function sameBurst(a: TurnInput, b: TurnInput): boolean {
  return hasMedia(a) && hasMedia(b) && senderOf(a).userId === senderOf(b).userId;
}

export class SessionMailbox {
  private readonly queue: TurnInput[] = [];
  private readonly steerBuffer: InputPart[] = [];
  private active: ActiveTurn | null = null;
  private draining = false;
  private closed = false;
  private lastAckAt = Number.NEGATIVE_INFINITY;
  /** Messages whose turn was discarded (interrupted): the next final reply answers them too. */
  private orphans: string[] = [];
  /**
   * The stored session and its history as of the last turn, so a turn does not
   * reload them from the store. The runtime is the session's only writer; the
   * commands that change either (/new, /resume, /retry, /undo, /model, /compress) drop it.
   */
  sessionCache: { readonly session: SessionInfo; readonly history: readonly Message[] } | null = null;
  /** Tools' per-session state (todo list, …). */
  readonly toolState = new Map<string, unknown>();
  /** Last place the session was talked to (replies of turns go to their own input's chat). */
  chat: ChatRef;
  lastActivityAt: number;

  constructor(
    readonly key: string,
    chat: ChatRef,
    readonly approvals: ApprovalBroker,
    readonly clarify: ClarifyBroker,
    private readonly host: MailboxHost,
  ) {
    this.chat = chat;
    this.lastActivityAt = host.now();
  }

  get current(): ActiveTurn | null {
    return this.active;
  }
  get queueDepth(): number {
    return this.queue.length;
  }
  get busy(): boolean {
    return this.active !== null || this.queue.length > 0;
  }
  get isIdle(): boolean {
    return !this.busy && !this.draining && this.approvals.pendingCount === 0 && this.clarify.pendingCount === 0;
  }

  /** Routes a new message according to the busy mode (as Hermes Agent's gateway does). */
  post(part: InputPart, mode: BusyMode): PostResult {
    this.chat = part.event.chat;
    this.lastActivityAt = this.host.now();
    const input = inputOf(part);
    const turn = this.active;
    if (!turn && this.queue.length === 0) {
      this.queue.push(input);
      void this.drain();
      return { kind: "started" };
    }
    const waiting = this.joinable;
    if (waiting && (mode !== "queue" || sameBurst(waiting.input, input))) {
      // The turn has not started yet: the new text (or the next photo of an album) simply joins it.
      waiting.input = mergeInputs(waiting.input, input);
      return { kind: "merged" };
    }
    // Steering joins the running turn only while nothing waits behind it: a message steered past a queued one would run first.
    if (mode === "steer" && turn?.phase === "running" && !turn.abortReason && this.queue.length === 0 && !hasMedia(input) && part.text.trim()) {
      this.steerBuffer.push(part);
      return { kind: "steered", ack: this.ackDue("steer") };
    }
    return this.enqueue(input, mode, turn);
  }

  /** /queue: always a separate future turn, whatever the busy mode. */
  postQueued(part: InputPart): PostResult {
    this.chat = part.event.chat;
    const input = inputOf(part);
    if (!this.active && this.queue.length === 0) {
      this.queue.push(input);
      void this.drain();
      return { kind: "started" };
    }
    if (this.queue.length >= this.host.queueMax) return { kind: "dropped" };
    this.queue.push(input);
    return { kind: "queued", depth: this.queue.length, ack: null };
  }

  /**
   * /steer: inject into the running turn (`running`), or join the turn about to start (`joined`: waiting for a slot,
   * or replayed after a restart ahead of the /steer it had taken); null when no turn is there to take it.
   */
  steer(part: InputPart): "running" | "joined" | null {
    const waiting = this.joinable;
    if (waiting && !waiting.abortReason) {
      waiting.input = mergeInputs(waiting.input, inputOf(part));
      return "joined";
    }
    const turn = this.active;
    if (turn?.phase !== "running" || turn.abortReason) return null;
    this.steerBuffer.push(part);
    return "running";
  }

  /** The turn about to start, which new input may still join (nothing is queued behind it), or null. */
  private get joinable(): ActiveTurn | null {
    const turn = this.active;
    return turn?.phase === "waiting" && this.queue.length === 0 ? turn : null;
  }

  /** Called by the running turn's agent at tool boundaries. */
  takeSteer(turn: ActiveTurn): string | null {
    if (this.active !== turn || turn.abortReason) return null;
    const part = this.steerBuffer.shift();
    if (!part) return null;
    turn.steered.push(part);
    return part.text;
  }

  /** The agent took the last `n` steering texts but never delivered them: they go back to the buffer (and so to the next turn). */
  giveBackSteers(turn: ActiveTurn, n: number): void {
    if (n <= 0) return;
    this.steerBuffer.unshift(...turn.steered.splice(Math.max(0, turn.steered.length - n)));
  }

  /** /stop and /new: abort the running turn and drop everything queued. */
  stop(reason: "stop" | "reset"): Discarded {
    const turn = this.active;
    const dropped: TurnInput[] = [...this.queue.splice(0), ...this.steerBuffer.splice(0).map(inputOf)];
    const wasRunning = turn !== null && !turn.abortReason;
    if (turn) this.abortTurn(turn, reason);
    const all = turn ? [turn.input, ...turn.steered.map(inputOf), ...dropped] : dropped;
    return {
      rowIds: dropped.flatMap((i) => i.parts.map((p) => p.rowId)).concat(turn?.phase === "waiting" ? turn.input.parts.map((p) => p.rowId) : []),
      messageIds: [...this.takeOrphans(), ...all.flatMap(messageIdsOf)],
      wasRunning,
    };
  }

  /** Aborts the running turn (inactivity timeout, shutdown). */
  abortCurrent(reason: AbortReason): boolean {
    if (!this.active || this.active.abortReason) return false;
    this.abortTurn(this.active, reason);
    return true;
  }

  /** Shutdown: no new turns start; queued rows stay pending in the store for the next start. */
  close(): void {
    this.closed = true;
  }

  invalidateSession(): void {
    this.sessionCache = null;
  }

  addOrphans(ids: readonly string[]): void {
    this.orphans.push(...ids);
  }

  takeOrphans(): string[] {
    return this.orphans.splice(0);
  }

  private enqueue(input: TurnInput, mode: BusyMode, turn: ActiveTurn | null): PostResult {
    const tail = this.queue.at(-1);
    const album = tail && sameBurst(tail, input);
    if (tail && (album || mode === "interrupt")) {
      // Media bursts form one turn; in interrupt mode the newest texts replace the running work together.
      this.queue[this.queue.length - 1] = mergeInputs(tail, input);
    } else if (this.queue.length >= this.host.queueMax) {
      return { kind: "dropped" };
    } else {
      this.queue.push(input);
    }
    // Closed (the gateway drains): the new message cannot start a turn before the restart, so it must not cut the running one.
    const interrupting = mode === "interrupt" && turn?.phase === "running" && !this.closed;
    if (interrupting && turn && !turn.abortReason) this.abortTurn(turn, "interrupt");
    // A turn that is only delivering its reply is about done: the follow-up runs next without a notice.
    const ack = turn?.phase === "running" ? this.ackDue(interrupting ? "interrupt" : "queue") : null;
    return { kind: "queued", depth: this.queue.length, ack };
  }

  private abortTurn(turn: ActiveTurn, reason: AbortReason): void {
    turn.abortReason = reason;
    turn.controller.abort(new Error(`turn aborted: ${reason}`));
  }

  /** One busy acknowledgement per cooldown window per session. */
  private ackDue(mode: BusyMode): BusyMode | null {
    const now = this.host.now();
    if (now - this.lastAckAt < this.host.ackCooldownMs) return null;
    this.lastAckAt = now;
    return mode;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.queue.shift(); next && !this.closed; next = this.queue.shift()) await this.runOne(next);
    } finally {
      this.draining = false;
      this.lastActivityAt = this.host.now();
      if (this.isIdle) this.host.idle(this);
    }
  }

  private async runOne(input: TurnInput): Promise<void> {
    const turn: ActiveTurn = {
      id: this.host.newTurnId(),
      input,
      controller: new AbortController(),
      phase: "waiting",
      agentStarted: false,
      abortReason: null,
      steered: [],
      releaseSlot: () => {},
    };
    this.active = turn;
    let release: (() => void) | null = null;
    try {
      if (!(await this.awaitBurst(turn))) return; // stopped while waiting: the caller accounted for its rows
      release = await this.host.slots.acquire(turn.controller.signal).catch(() => null);
      if (!release) return; // stopped or shut down before it started: the caller accounted for its rows
      turn.releaseSlot = release;
      turn.phase = "running";
      await this.host.execute(this, turn);
    } finally {
      release?.();
      this.active = null;
      this.requeueLeftoverSteers();
      this.handBack(turn);
    }
  }

  /**
   * A turn interrupted before its agent started did nothing (the turn left its rows pending): its messages
   * run in the next turn, ahead of the ones that interrupted it, as if they had arrived together.
   */
  private handBack(turn: ActiveTurn): void {
    if (turn.agentStarted || turn.abortReason !== "interrupt") return;
    const next = this.queue.shift();
    this.queue.unshift(next ? mergeInputs(turn.input, next) : turn.input);
  }

  /**
   * An album arrives as one message per photo: a turn that starts with media
   * stays "waiting" (so the rest joins it) until a window passes with nothing new.
   * False when the turn was aborted meanwhile.
   */
  private async awaitBurst(turn: ActiveTurn): Promise<boolean> {
    const ms = this.host.burstWindowMs;
    if (ms <= 0 || !hasMedia(turn.input)) return true;
    for (let round = 0, seen = -1; round < MAX_BURST_ROUNDS && seen !== turn.input.parts.length; round++) {
      seen = turn.input.parts.length;
      if (!(await this.host.sleep(ms, turn.controller.signal))) return false;
    }
    return !turn.controller.signal.aborted;
  }

  /** Steering the agent never picked up becomes the next turn, so no message the user sent is lost. */
  private requeueLeftoverSteers(): void {
    const left = this.steerBuffer.splice(0);
    if (left.length === 0) return;
    this.queue.unshift(left.map(inputOf).reduce(mergeInputs));
  }
}
