/**
 * Clarifying questions of one session: the agent asks, the next plain message
 * (or a choice button) answers. Unanswered questions time out.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { ChatRef } from "../../adapters/types.js";
import type { Clarifier, ClarifyAnswer, ClarifyRequest, Clock } from "../../agent/types.js";
import { sleepUnlessAborted } from "../../config/timing/index.js";
import type { PromptIndex, ResolveOutcome } from "./approvals.js";
import { RELEASED } from "./clock.js";
import type { Egress } from "./egress.js";
import { TEXT } from "./texts.js";
import type { Typing } from "./typing.js";

interface Entry {
  readonly id: string;
  readonly req: ClarifyRequest;
  settle(a: ClarifyAnswer): void;
}

export interface ClarifyBrokerDeps {
  readonly egress: Egress;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timeoutMs: number;
  readonly index: PromptIndex<ClarifyBroker>;
}

export interface ClarifyTurnEnv {
  readonly chat: ChatRef;
  readonly typing: Typing;
}

export class ClarifyBroker {
  private readonly pending = new Map<string, Entry>();

  constructor(private readonly deps: ClarifyBrokerDeps) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  clarifierFor(env: ClarifyTurnEnv): Clarifier {
    return { ask: (req, signal) => this.ask(req, signal, env) };
  }

  async ask(req: ClarifyRequest, signal: AbortSignal, env: ClarifyTurnEnv): Promise<ClarifyAnswer> {
    if (signal.aborted) return { kind: "unavailable" };
    const id = randomBytes(6).toString("base64url");
    let settle!: (a: ClarifyAnswer) => void;
    const answered = new Promise<ClarifyAnswer>((r) => (settle = r));
    this.pending.set(id, { id, req, settle });
    this.deps.index.register(id, this);
    const done = new AbortController();
    const onAbort = () => this.settle(id, { kind: "unavailable" });
    signal.addEventListener("abort", onAbort, { once: true });
    env.typing.pause();
    try {
      void this.expireLater(id, done.signal);
      void this.sendPrompt(id, req, env.chat);
      return await answered;
    } finally {
      done.abort(RELEASED);
      signal.removeEventListener("abort", onAbort);
      env.typing.resume();
    }
  }

  /** Answers the oldest open question with a typed reply ("2" picks the second choice). */
  answerText(text: string, by: string): ResolveOutcome {
    const first = this.pending.values().next();
    if (first.done) return "already";
    const { id, req } = first.value;
    const n = Number.parseInt(text.trim(), 10);
    const picked = String(n) === text.trim() && n >= 1 && n <= req.choices.length ? req.choices[n - 1] : undefined;
    return this.settle(id, { kind: "answer", text: picked ?? text, by });
  }

  /** The person cannot answer (clarifyUnansweredActionId): the agent is told nobody can be asked. */
  decline(id: string): ResolveOutcome {
    return this.settle(id, { kind: "unavailable" });
  }

  /** Answers a question from a choice button. */
  answerChoice(id: string, index: number, by: string): ResolveOutcome {
    const entry = this.pending.get(id);
    const choice = entry?.req.choices[index];
    if (!entry || choice === undefined) return "already";
    return this.settle(id, { kind: "answer", text: choice, by });
  }

  private settle(id: string, a: ClarifyAnswer): ResolveOutcome {
    const entry = this.pending.get(id);
    if (!entry) return "already";
    this.pending.delete(id);
    this.deps.index.unregister(id);
    entry.settle(a);
    return "resolved";
  }

  private async expireLater(id: string, signal: AbortSignal): Promise<void> {
    if (await sleepUnlessAborted(this.deps.clock, this.deps.timeoutMs, signal)) this.settle(id, { kind: "timeout" });
  }

  private async sendPrompt(id: string, req: ClarifyRequest, chat: ChatRef): Promise<void> {
    const { egress, logger } = this.deps;
    const adapter = egress.adapter(chat.platform);
    const signal = AbortSignal.timeout(15_000);
    try {
      // The terminal asks every question itself ("inline"); elsewhere a question without choices is a message.
      if ((adapter.capabilities.buttons && req.choices.length > 0) || adapter.capabilities.prompts === "inline") {
        await adapter.sendClarify(chat, { requestId: id, question: req.question, choices: req.choices, allowFreeText: req.allowFreeText }, signal);
      } else {
        await adapter.send(chat, { text: TEXT.clarifyFallback(req.question, req.choices) }, signal);
      }
    } catch (err) {
      logger.warn({ err, requestId: id }, "clarify prompt could not be sent");
      this.settle(id, { kind: "unavailable" });
    }
  }
}
