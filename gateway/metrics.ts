/**
 * Prometheus metrics on a registry of our own (never prom-client's global one),
 * so two daemons in one test process don't share counters.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  readonly registry: Registry;
  readonly inbound: Counter<"platform">;
  readonly outbound: Counter<"platform">;
  readonly turns: Counter<"platform" | "outcome">;
  readonly errors: Counter<"kind">;
  /** Content type and body for GET /metrics. */
  render(): Promise<{ contentType: string; body: string }>;
  close(): void;
}

/** Sampling interval of the event-loop delay histogram: fine enough to see a 20 ms stall, cheap when idle. */
const LOOP_SAMPLE_MS = 10;

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "hermes_" });
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loop.enable();
  // The histogram records the whole time between two samples; the delay is what exceeds the sampling interval.
  const lateMs = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS) : 0);
  new Gauge({
    name: "hermes_event_loop_delay_ms",
    help: `How late the event loop ran a timer sampled every ${LOOP_SAMPLE_MS} ms (ms, over the last scrape interval), by quantile.`,
    labelNames: ["quantile"],
    registers: [registry],
    collect() {
      this.set({ quantile: "p50" }, lateMs(loop.percentile(50)));
      this.set({ quantile: "p99" }, lateMs(loop.percentile(99)));
      this.set({ quantile: "max" }, lateMs(loop.max));
      loop.reset();
    },
  });
  const inbound = new Counter({ name: "hermes_inbound_messages_total", help: "Inbound events accepted, by platform.", labelNames: ["platform"], registers: [registry] });
  const outbound = new Counter({ name: "hermes_outbound_messages_total", help: "Messages sent to platforms, by platform.", labelNames: ["platform"], registers: [registry] });
  const turns = new Counter({ name: "hermes_turns_total", help: "Agent turns finished, by platform and outcome.", labelNames: ["platform", "outcome"], registers: [registry] });
  const errors = new Counter({ name: "hermes_errors_total", help: "Errors, by kind.", labelNames: ["kind"], registers: [registry] });
  return {
    registry,
    inbound,
    outbound,
    turns,
    errors,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    close() {
      loop.disable();
      registry.clear();
    },
  };
}
