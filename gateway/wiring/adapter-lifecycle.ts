/**
 * Connecting and disconnecting platform adapters. One platform that cannot
 * connect never holds the others back: it is retried in the background
 * (30 s doubling to 5 min, as Hermes Agent's reconnect watcher) and shown in
 * /readyz — unless its adapter reports the failure fatal (a rejected token),
 * which no retry can fix.
 */
import type { Logger } from "pino";
import { linkedSignal } from "../../adapters/shared/linked-signal.js";
import type { Adapter, InboundSink } from "../../adapters/types.js";

const RETRY_BASE_MS = 30_000;
const RETRY_MAX_MS = 300_000;

export interface AdapterSupervisor {
  /** Stops retrying and stops every adapter. */
  stop(signal: AbortSignal): Promise<void>;
}

/** Starts every adapter; resolves once each has connected, failed, or run out of `connectTimeoutMs`. */
export async function startAdapters(adapters: ReadonlyMap<string, Adapter>, sink: InboundSink, connectTimeoutMs: number, logger: Logger, signal: AbortSignal): Promise<void> {
  await Promise.all([...adapters.values()].map((a) => connectOnce(a, sink, connectTimeoutMs, logger, signal, 1)));
}

async function connectOnce(adapter: Adapter, sink: InboundSink, timeoutMs: number, logger: Logger, signal: AbortSignal, attempt: number): Promise<void> {
  // Not AbortSignal.any([signal, AbortSignal.timeout(ms)]): on Node 20 a timeout signal held only by the composite
  // can be garbage-collected before it fires, and the connect timeout then never comes.
  const deadline = linkedSignal([signal], timeoutMs);
  try {
    await adapter.start(sink, deadline.signal);
    logger.info({ platform: adapter.platform }, "platform connected");
  } catch (err) {
    if (signal.aborted) return;
    if (adapter.health().state === "fatal") {
      // A rejected token or a refused permission comes back the same on every try: said once, clearly, not retried.
      logger.error({ platform: adapter.platform, err }, "platform cannot connect and is not retried; fix its configuration and restart");
      return;
    }
    const delay = Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
    logger.error({ platform: adapter.platform, err, retryInS: delay / 1000 }, "platform failed to connect; retrying in the background");
    const timer = setTimeout(() => {
      adapter
        .stop(AbortSignal.timeout(5000))
        .catch((stopErr: unknown) => logger.warn({ platform: adapter.platform, err: stopErr }, "cleanup before reconnect failed"))
        .then(() => connectOnce(adapter, sink, timeoutMs, logger, signal, attempt + 1));
    }, delay);
    timer.unref();
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  } finally {
    deadline.dispose();
  }
}

export async function stopAdapters(adapters: ReadonlyMap<string, Adapter>, logger: Logger, signal: AbortSignal): Promise<void> {
  await Promise.all(
    [...adapters.values()].map(async (a) => {
      try {
        await a.stop(signal);
      } catch (err) {
        logger.warn({ platform: a.platform, err }, "platform did not stop cleanly");
      }
    }),
  );
}
