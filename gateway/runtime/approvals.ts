/**
 * Dangerous-command approvals of one session (Hermes Agent's approval flow): the channel
 * through which the approval policy (tools/approval) asks a person. Each
 * request has its own id and is resolved exactly once — by a click, /approve,
 * /deny, a plain "yes"/"no", the timeout (deny), or the turn ending (deny).
 * Every decision is audited in the store and shown on the prompt message.
 * What the session has already approved (/yolo, "session" choices) is the
 * policy's to remember, in the session's tool state: it asks only when a
 * person must decide.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { ChatRef } from "../../adapters/types.js";
import type { ApprovalDecision, ApprovalRequest, Approver, Clock } from "../../agent/types.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import { RELEASED } from "./clock.js";
import type { Egress } from "./egress.js";
import type { RuntimeStore } from "./ports.js";
import { OUTCOME_LABEL, TEXT } from "./texts.js";
import type { Typing } from "./typing.js";

export type OfferedChoice = "once" | "session" | "always" | "deny";
export type ResolveOutcome = "resolved" | "already";

export interface Decider {
  readonly userId: string;
  readonly displayName: string;
}

/** Runtime-wide map from a prompt's request id to the broker that owns it, so a click finds its session. */
export class PromptIndex<B> {
  private readonly byId = new Map<string, B>();
  register(id: string, owner: B): void {
    this.byId.set(id, owner);
  }
  unregister(id: string): void {
    this.byId.delete(id);
  }
  get(id: string): B | undefined {
    return this.byId.get(id);
  }
  get size(): number {
    return this.byId.size;
  }
}

export interface ApprovalTurnEnv {
  readonly chat: ChatRef;
  readonly sessionId: string;
  readonly typing: Typing;
}

interface Entry {
  readonly id: string;
  readonly req: ApprovalRequest;
  readonly offered: readonly OfferedChoice[];
  readonly env: ApprovalTurnEnv;
  readonly requestedAt: number;
  promptMessageId: string | null;
  outcomeText: string | null;
  settle(d: ApprovalDecision): void;
}

export interface ApprovalBrokerDeps {
  readonly sessionKey: string;
  readonly platform: string;
  readonly store: RuntimeStore;
  readonly egress: Egress;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timeoutMs: number;
  readonly index: PromptIndex<ApprovalBroker>;
}

const PROMPT_SEND_TIMEOUT_MS = 15_000;

export class ApprovalBroker {
  private readonly pending = new Map<string, Entry>();

  constructor(private readonly deps: ApprovalBrokerDeps) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Pending request ids, oldest first. */
  pendingIds(): readonly string[] {
    return [...this.pending.keys()];
  }

  /** The Approver a turn's tools use. */
  approverFor(env: ApprovalTurnEnv): Approver {
    return { request: (req, signal) => this.request(req, signal, env) };
  }

  async request(req: ApprovalRequest, signal: AbortSignal, env: ApprovalTurnEnv): Promise<ApprovalDecision> {
    const now = this.deps.clock.now();
    if (signal.aborted) return this.auto(req, env, { choice: "deny", reason: "the turn was stopped" }, now);
    const id = randomBytes(6).toString("base64url");
    const offered: OfferedChoice[] = ["once", "session", ...(req.allowPermanent ? (["always"] as const) : []), "deny"];
    let settle!: (d: ApprovalDecision) => void;
    const decided = new Promise<ApprovalDecision>((r) => (settle = r));
    const entry: Entry = { id, req, offered, env, requestedAt: now, promptMessageId: null, outcomeText: null, settle };
    this.pending.set(id, entry);
    this.deps.index.register(id, this);
    const done = new AbortController();
    const onAbort = () => this.resolve(id, { choice: "deny", reason: "the turn was stopped" }, null);
    signal.addEventListener("abort", onAbort, { once: true });
    env.typing.pause();
    try {
      void this.expireLater(id, done.signal);
      void this.sendPrompt(entry);
      return await decided;
    } finally {
      done.abort(RELEASED);
      signal.removeEventListener("abort", onAbort);
      env.typing.resume();
    }
  }

  /**
   * Decides a pending request once. A choice that was not offered ("always"
   * when only session-wide approval is allowed) is narrowed to "session".
   */
  resolve(id: string, decision: ApprovalDecision, by: Decider | null): ResolveOutcome {
    const entry = this.pending.get(id);
    if (!entry) return "already";
    this.pending.delete(id);
    this.deps.index.unregister(id);
    const choice = decision.choice === "always" && !entry.offered.includes("always") ? "session" : decision.choice;
    const final: ApprovalDecision = { ...decision, choice, decidedBy: by?.userId ?? decision.decidedBy };
    this.audit(entry.req, entry.env, final, entry.id, entry.requestedAt);
    entry.outcomeText = outcomeText(final, by);
    if (entry.promptMessageId) void this.showOutcome(entry);
    entry.settle(final);
    return "resolved";
  }

  /** Resolves every pending request of the session (oldest first) with the same decision. */
  resolveAll(decision: ApprovalDecision, by: Decider | null, all: boolean): number {
    const ids = all ? this.pendingIds() : this.pendingIds().slice(0, 1);
    return ids.filter((id) => this.resolve(id, decision, by) === "resolved").length;
  }

  private auto(req: ApprovalRequest, env: ApprovalTurnEnv, d: ApprovalDecision, now: number): ApprovalDecision {
    this.audit(req, env, d, `auto-${randomBytes(4).toString("hex")}`, now);
    return d;
  }

  private async expireLater(id: string, signal: AbortSignal): Promise<void> {
    if (await sleepUnlessAborted(this.deps.clock, this.deps.timeoutMs, signal)) this.resolve(id, { choice: "timeout" }, null);
  }

  private async sendPrompt(entry: Entry): Promise<void> {
    const { egress, logger } = this.deps;
    const chat = entry.env.chat;
    const adapter = egress.adapter(chat.platform);
    const signal = AbortSignal.timeout(PROMPT_SEND_TIMEOUT_MS);
    try {
      const sent = adapter.capabilities.buttons
        ? await adapter.sendApproval(
            chat,
            { requestId: entry.id, command: entry.req.command, description: entry.req.description, choices: entry.offered },
            signal,
          )
        : await adapter.send(chat, { text: TEXT.approvalFallback(entry.req.command, entry.req.description, entry.offered.includes("always")) }, signal);
      entry.promptMessageId = sent.messageIds[0] ?? null;
      if (entry.outcomeText && entry.promptMessageId) await this.showOutcome(entry);
    } catch (err) {
      logger.warn({ err, requestId: entry.id }, "approval prompt could not be sent");
      this.resolve(entry.id, { choice: "deny", reason: "the approval request could not be shown to the user" }, null);
    }
  }

  private async showOutcome(entry: Entry): Promise<void> {
    if (!entry.promptMessageId || !entry.outcomeText) return;
    const chat = entry.env.chat;
    const adapter = this.deps.egress.adapter(chat.platform);
    try {
      if (adapter.capabilities.buttons)
        await adapter.resolveApproval(chat, entry.promptMessageId, entry.outcomeText, AbortSignal.timeout(PROMPT_SEND_TIMEOUT_MS));
    } catch (err) {
      this.deps.logger.warn({ err, requestId: entry.id }, "could not show the approval outcome");
    }
  }

  private audit(req: ApprovalRequest, env: ApprovalTurnEnv, d: ApprovalDecision, requestId: string, requestedAt: number): void {
    this.deps.store.recordApprovalDecision({
      requestId,
      sessionId: env.sessionId,
      sessionKey: this.deps.sessionKey,
      platform: this.deps.platform,
      command: req.command,
      category: req.category,
      choice: d.choice,
      decidedBy: d.decidedBy ?? null,
      reason: d.reason ?? null,
      requestedAt,
      decidedAt: this.deps.clock.now(),
    });
  }
}

function outcomeText(d: ApprovalDecision, by: Decider | null): string {
  if (d.choice === "timeout") return "⏱ Timed out — denied";
  const label = OUTCOME_LABEL[d.choice];
  if (by) return `${label} by ${by.displayName || by.userId}`;
  return d.reason ? `${label} — ${d.reason}` : label;
}

const ONCE_WORDS = new Set(["approve", "yes", "y", "ok", "okay", "confirm", "👍", "approve once", "once"]);
const DENY_WORDS = new Set(["deny", "no", "n", "reject", "cancel", "👎"]);
const ALWAYS_WORDS = new Set(["always", "approve always", "always approve"]);
const SESSION_WORDS = new Set(["session", "approve session", "session approve"]);

/** Maps a plain-text answer to an approval choice, or null when it is ordinary text. */
export function parseApprovalWord(text: string): OfferedChoice | null {
  const t = text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, "");
  if (ONCE_WORDS.has(t)) return "once";
  if (DENY_WORDS.has(t)) return "deny";
  if (ALWAYS_WORDS.has(t)) return "always";
  if (SESSION_WORDS.has(t)) return "session";
  return null;
}
