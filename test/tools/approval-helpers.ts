/**
 * Test seams for the approval policy and the terminal tools: a ToolContext
 * with in-memory state and an approver that records requests and answers
 * from a script.
 */
import type { ApprovalDecision, ApprovalRequest, Approver, ToolContext } from "../../agent/types.js";
import type { Config } from "../../config/schema.js";
import { ConfigSchema } from "../../config/schema.js";
import { type Clock, systemClock } from "../../config/timing/index.js";
import { until as waitUntil } from "../wait.js";

export function approvalsConfig(overrides: Partial<Config["approvals"]> = {}): Config["approvals"] {
  return { ...ConfigSchema.parse({}).approvals, ...overrides };
}

/** Waits (vi.waitFor, real time, every 5 ms) until `pred` holds; the guard's parser is asynchronous, so "has it got there yet" needs a real wait. */
export async function until(pred: () => boolean, timeoutMs = 5000): Promise<void> {
  await waitUntil(pred, "the condition", timeoutMs, 5);
}

/** Lets queued promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
}

type Answer = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision> | ApprovalDecision | null;

/** An approver that records each request and its signal and answers with `answer`. */
export class ScriptedApprover implements Approver {
  readonly requests: { req: ApprovalRequest; signal: AbortSignal }[] = [];
  constructor(private answer: Answer) {}

  setAnswer(answer: Answer): void {
    this.answer = answer;
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | null {
    this.requests.push({ req, signal });
    const out = this.answer(req, signal);
    return out === null ? null : Promise.resolve(out);
  }
}

export const choose =
  (choice: ApprovalDecision["choice"], extra: Partial<ApprovalDecision> = {}): Answer =>
  () => ({ choice, decidedBy: "user-42", ...extra });

/** Answers only when the signal aborts (with `deny`, as the Approver contract says). */
export const never: Answer = (_req, signal) =>
  new Promise((resolve) => signal.addEventListener("abort", () => resolve({ choice: "deny", decidedBy: "adapter" }), { once: true }));

export interface ContextOptions {
  readonly approver?: Approver;
  readonly clock?: Clock;
  readonly platform?: string;
  readonly cwd?: string;
  readonly home?: string;
  readonly sessionKey?: string;
  readonly notify?: (text: string) => void;
}

export function makeContext(o: ContextOptions = {}): ToolContext & { readonly stateMap: Map<string, unknown> } {
  const stateMap = new Map<string, unknown>();
  return {
    taskId: "task-1",
    sessionId: "session-1",
    sessionKey: o.sessionKey ?? "telegram:dm:42",
    platform: o.platform ?? "telegram",
    userId: "42",
    cwd: o.cwd ?? process.cwd(),
    home: o.home ?? "/home/alice",
    approver: o.approver ?? new ScriptedApprover(() => null),
    clarifier: { ask: async () => ({ kind: "unavailable" }) },
    sessions: { search: () => [] },
    clock: o.clock ?? systemClock,
    state: { get: <T>(k: string) => stateMap.get(k) as T | undefined, set: <T>(k: string, v: T) => void stateMap.set(k, v) },
    notify: o.notify ?? (() => undefined),
    stateMap,
  };
}
