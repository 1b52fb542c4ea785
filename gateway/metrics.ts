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

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "hermes_" });
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
  new Gauge({
    name: "hermes_event_loop_delay_ms",
    help: "Event-loop delay over the last scrape interval (ms), by quantile.",
    labelNames: ["quantile"],
    registers: [registry],
    collect() {
      this.set({ quantile: "p50" }, ms(loop.percentile(50)));
      this.set({ quantile: "p99" }, ms(loop.percentile(99)));
      this.set({ quantile: "max" }, ms(loop.max));
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
