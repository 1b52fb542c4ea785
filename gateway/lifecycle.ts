/**
 * Components start in order and stop in reverse. A component that fails to
 * start stops the ones already started, in reverse, before the error surfaces.
 * So does an aborted start (a SIGTERM during start-up): the component starting
 * then gives up (every start takes the signal) or finishes, and what has
 * started is stopped.
 */
import type { Logger } from "pino";

export interface Component {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  /** Must release every handle; `signal` aborts when the stop deadline passes. */
  stop(signal: AbortSignal): Promise<void>;
}

export interface Lifecycle {
  /** Rejects when a component fails to start or `signal` aborts, after stopping what had started. */
  start(signal: AbortSignal): Promise<void>;
  /** Idempotent: later calls return the first call's promise. */
  stop(timeoutMs: number): Promise<void>;
  readonly started: readonly string[];
}

export function createLifecycle(components: readonly Component[], logger: Logger): Lifecycle {
  const started: Component[] = [];
  let stopping: Promise<void> | undefined;

  async function stopAll(timeoutMs: number): Promise<void> {
    const deadline = AbortSignal.timeout(Math.max(1, timeoutMs));
    for (const c of [...started].reverse()) {
      const t0 = performance.now();
      try {
        await c.stop(deadline);
        logger.debug({ component: c.name, ms: Math.round(performance.now() - t0) }, "stopped");
      } catch (err) {
        logger.error({ component: c.name, err }, "component failed to stop cleanly");
      }
      started.splice(started.indexOf(c), 1);
    }
  }

  return {
    get started() {
      return started.map((c) => c.name);
    },
    async start(signal) {
      for (const c of components) {
        const t0 = performance.now();
        try {
          await c.start(signal);
          started.push(c);
          logger.debug({ component: c.name, ms: Math.round(performance.now() - t0) }, "started");
          signal.throwIfAborted();
        } catch (err) {
          if (signal.aborted) logger.info({ component: c.name, reason: String(signal.reason) }, "start-up aborted; stopping what has started");
          else logger.error({ component: c.name, err }, "component failed to start");
          await stopAll(5000);
          throw err;
        }
      }
    },
    stop(timeoutMs) {
      stopping ??= stopAll(timeoutMs);
      return stopping;
    },
  };
}
