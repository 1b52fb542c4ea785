/**
 * What the scheduler (gateway/cron) asks of the runtime: run a job's prompt
 * as a turn of its own on the "cron" platform (its hint, its toolset,
 * approvals.cron_mode), deliver the output where the job says — through
 * egress, once per run — and check a target before a job is stored.
 */
import type { ChatRef } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import type { RuntimeCore } from "./core.js";
import { deliverText, outcomeError } from "./deliver.js";
import { type DetachedResult, runDetached } from "./detached.js";
import { allowedChats, isAllowedChat, resolveTarget, targetOf } from "./targets.js";

export interface ScheduledRunSpec {
  readonly jobId: string;
  readonly runId: number;
  readonly name: string;
  readonly prompt: string;
  readonly model: string | null;
  /** The chat the job was made in (send_message's "origin"). */
  readonly origin: ChatRef | null;
  readonly createdBy: string | null;
}

export interface ScheduledWork {
  /** Runs the job's turn; resolves promptly after `signal` aborts. Rejects only when its session could not be made. */
  run(spec: ScheduledRunSpec, signal: AbortSignal): Promise<DetachedResult>;
  /**
   * Sends `text` to `target` under `key` (at most once). Resolves with what became of it: "sent", "local", or why
   * it was not delivered. Never rejects.
   */
  deliver(target: string, origin: ChatRef | null, text: string, key: string): Promise<string>;
  /** Why a job made in `origin` may not deliver to `target`; null when it may. */
  checkTarget(target: string, origin: ChatRef | null): string | null;
}

const DELIVERY_TIMEOUT_MS = 120_000;

export function scheduledWork(core: RuntimeCore): ScheduledWork {
  return {
    run: (spec, signal) =>
      runDetached(
        core,
        {
          sessionKey: `cron:${spec.jobId}:${spec.runId}`,
          platform: "cron",
          prompt: spec.prompt,
          model: spec.model,
          chat: spec.origin,
          interactive: false,
          userId: spec.createdBy,
          label: spec.name,
        },
        signal,
      ),
    async deliver(target, origin, text, key) {
      try {
        const chat = allowedTarget(core, target, origin);
        if (chat === "local") return "local";
        const outcome = await deliverText(core, chat, text, key, AbortSignal.timeout(DELIVERY_TIMEOUT_MS));
        return outcome.status === "sent" ? "sent" : `not delivered: ${outcomeError(outcome)}`;
      } catch (err) {
        if (!(err instanceof HermesError)) core.logger.error({ err, target }, "could not deliver a scheduled job's output");
        return `not delivered: ${err instanceof Error ? err.message : String(err)}`;
      }
    },
    checkTarget(target, origin) {
      try {
        allowedTarget(core, target, origin, { homeLater: true });
        return null;
      } catch (err) {
        if (err instanceof HermesError) return err.message;
        throw err;
      }
    },
  };
}

/**
 * The chat `target` names, when the configuration allows it; `local` when it names none. With `homeLater`, a
 * platform without a home channel yet passes (it may get one with /sethome before the job runs).
 */
function allowedTarget(
  core: Pick<RuntimeCore, "config" | "egress" | "store">,
  target: string,
  origin: ChatRef | null,
  opts: { homeLater?: boolean } = {},
): ChatRef | "local" {
  let chat: ChatRef | "local";
  try {
    chat = resolveTarget(core, target, origin);
  } catch (err) {
    if (opts.homeLater && err instanceof HermesError && err.code === "HGW_ERR_TARGET_NO_HOME") return "local";
    throw err;
  }
  if (chat === "local") return chat;
  if (!isAllowedChat(allowedChats(core, core.egress.platforms(), origin), chat)) throw new HermesError("HGW_ERR_TARGET_NOT_ALLOWED", `(${targetOf(chat)})`);
  return chat;
}
