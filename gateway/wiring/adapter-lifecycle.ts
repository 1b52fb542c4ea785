/**
 * Connecting and disconnecting platform adapters. One platform that cannot
 * connect never holds the others back: it is retried in the background
 * (30 s doubling to 5 min, as Hermes Agent's reconnect watcher) and shown in
 * /readyz — unless the failure is one no retry can fix: the adapter reports
 * its health `fatal` (a rejected token, a refused intent) or the error is a
 * configuration error (HGW_ERR_CONFIG_*, e.g. a transport without its
 * credential). That is logged once and the platform stays down until the
 * configuration is fixed and the daemon restarted.
 */
import type { Logger } from "pino";
import type { Adapter, InboundSink } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import { linkedSignal } from "../../config/linked-signal.js";
import { type BackoffPolicy, backoffDelayMs, NO_JITTER, raceAbort, sleepUnlessAborted, systemClock } from "../../config/timing/index.js";

/** 30 s doubling to 5 min, as Hermes Agent's reconnect watcher; one wait per platform, nothing to spread out. */
const RECONNECT_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 30_000, maxMs: 300_000, jitter: NO_JITTER });
/** How long a failed attempt may take to release what it opened before the next one. */
const CLEANUP_MS = 5000;

export interface AdapterSupervisor {
  /** Stops retrying and stops every adapter. */
  stop(signal: AbortSignal): Promise<void>;
}

interface Supervision {
  readonly sink: InboundSink;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Aborted by the supervisor's stop(): no attempt starts or goes on after it. */
  readonly stopped: AbortSignal;
}

/**
 * Starts every adapter; resolves once each has connected, failed, or run out of `connectTimeoutMs`.
 * `signal` bounds the first attempts (start-up); the background retries end with the supervisor's stop().
 */
export async function startAdapters(
  adapters: ReadonlyMap<string, Adapter>,
  sink: InboundSink,
  connectTimeoutMs: number,
  logger: Logger,
  signal: AbortSignal,
): Promise<AdapterSupervisor> {
  const stopper = new AbortController();
  const s: Supervision = { sink, timeoutMs: connectTimeoutMs, logger, stopped: stopper.signal };
  const retrying = new Set<Promise<void>>();
  await Promise.all(
    [...adapters.values()].map(async (adapter) => {
      if ((await connectOnce(adapter, s, signal, 1)) !== "retry") return;
      const loop = retryInBackground(adapter, s);
      retrying.add(loop);
      void loop.finally(() => retrying.delete(loop));
    }),
  );
  return {
    async stop(stopSignal) {
      stopper.abort();
      // An attempt in flight gives up at once; let it finish before its adapter is stopped under it.
      await raceAbort(Promise.allSettled([...retrying]), stopSignal).catch(() => undefined);
      await stopAdapters(adapters, logger, stopSignal);
    },
  };
}

type Attempt = "connected" | "given up" | "retry";

async function connectOnce(adapter: Adapter, s: Supervision, signal: AbortSignal, attempt: number): Promise<Attempt> {
  const deadline = linkedSignal([signal, s.stopped], s.timeoutMs);
  try {
    await adapter.start(s.sink, deadline.signal);
    s.logger.info({ platform: adapter.platform }, "platform connected");
    return "connected";
  } catch (err) {
    if (signal.aborted || s.stopped.aborted) return "given up";
    if (cannotBeFixedByRetrying(adapter, err)) {
      s.logger.error({ platform: adapter.platform, err }, "platform cannot connect and is not retried; fix its configuration and restart");
      return "given up";
    }
    s.logger.error(
      { platform: adapter.platform, err, retryInS: backoffDelayMs(RECONNECT_BACKOFF, attempt) / 1000 },
      "platform failed to connect; retrying in the background",
    );
    return "retry";
  } finally {
    deadline.dispose();
  }
}

async function retryInBackground(adapter: Adapter, s: Supervision): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (!(await sleepUnlessAborted(systemClock, backoffDelayMs(RECONNECT_BACKOFF, attempt), s.stopped))) return;
    const cleanup = linkedSignal([s.stopped], CLEANUP_MS);
    try {
      await adapter.stop(cleanup.signal);
    } catch (err) {
      s.logger.warn({ platform: adapter.platform, err }, "cleanup before reconnect failed");
    } finally {
      cleanup.dispose();
    }
    if ((await connectOnce(adapter, s, s.stopped, attempt + 1)) !== "retry") return;
  }
}

/** A rejected credential (the adapter says `fatal`) or a configuration error comes back the same on every try. */
function cannotBeFixedByRetrying(adapter: Adapter, err: unknown): boolean {
  return adapter.health().state === "fatal" || (err instanceof HermesError && err.code.startsWith("HGW_ERR_CONFIG_"));
}

async function stopAdapters(adapters: ReadonlyMap<string, Adapter>, logger: Logger, signal: AbortSignal): Promise<void> {
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
