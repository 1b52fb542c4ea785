/**
 * Prometheus metrics on a registry of our own (never prom-client's global one),
 * so two daemons in one test process don't share counters. prom-client's
 * default collectors give the process figures (CPU, memory, heap, GC, handles,
 * and the event-loop delay); the daemon adds its counters and the latency
 * histograms of turns, their stages and model requests.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { ProviderEvent, StreamFn } from "../agent/types.js";

export interface Metrics {
  readonly registry: Registry;
  readonly inbound: Counter<"platform">;
  readonly outbound: Counter<"platform">;
  readonly turns: Counter<"platform" | "outcome">;
  readonly errors: Counter<"kind">;
  /** A turn from the agent's start to its end (the model's calls and the tools), by outcome. */
  readonly turnDuration: Histogram<"platform" | "outcome">;
  /** Each stage of a turn: the time from the mark before it to the stage's own (see TurnStage). */
  readonly turnStage: Histogram<"platform" | "stage">;
  /** One model request: sent → its first output, and → its end (outcome: ok or the classified failure). */
  readonly providerFirstToken: Histogram<"provider">;
  readonly providerRequest: Histogram<"provider" | "outcome">;
  /** Content type and body for GET /metrics. */
  render(): Promise<{ contentType: string; body: string }>;
  close(): void;
}

/**
 * Sampling interval of prom-client's event-loop histogram (its default, made explicit): fine enough to see a
 * 20 ms stall, cheap when idle. Each sample is the whole time between two runs of the sampling timer, so the
 * `hermes_nodejs_eventloop_lag_*_seconds` figures read ≈ 0.010 on an idle loop; lateness is what exceeds it.
 */
export const EVENT_LOOP_SAMPLE_MS = 10;

/** Stages of a turn run from tenths of a millisecond (a commit) to minutes (a model with tools). */
const STAGE_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const PROVIDER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "hermes_", eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers });
  return {
    registry,
    inbound: counter("hermes_inbound_messages_total", "Inbound events accepted, by platform.", ["platform"]),
    outbound: counter("hermes_outbound_messages_total", "Messages sent to platforms, by platform.", ["platform"]),
    turns: counter("hermes_turns_total", "Agent turns finished, by platform and outcome.", ["platform", "outcome"]),
    errors: counter("hermes_errors_total", "Errors, by kind.", ["kind"]),
    turnDuration: histogram(
      "hermes_turn_duration_seconds",
      "Agent turns from start to end (model calls and tools), by platform and outcome.",
      ["platform", "outcome"],
      TURN_BUCKETS,
    ),
    turnStage: histogram(
      "hermes_turn_stage_seconds",
      "Stages of the turns that sent a reply, each from the mark before it: committed (from received), prompt_built, first_token, model_done, reply_committed, reply_sent.",
      ["platform", "stage"],
      STAGE_BUCKETS,
    ),
    providerFirstToken: histogram("hermes_provider_first_token_seconds", "Model requests: sent → first output, by provider.", ["provider"], PROVIDER_BUCKETS),
    providerRequest: histogram(
      "hermes_provider_request_duration_seconds",
      "Model requests: sent → end, by provider and outcome (ok or the failure's reason).",
      ["provider", "outcome"],
      PROVIDER_BUCKETS,
    ),
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    close() {
      registry.clear();
    },
  };
}

/** Output of the model, as opposed to bookkeeping ("start", "usage") and the end. */
function isOutput(e: ProviderEvent): boolean {
  return e.type === "text_delta" || e.type === "reasoning_delta" || e.type === "toolcall_start";
}

/**
 * `stream` with each model request timed into the provider histograms; `provider` names the provider that
 * served it (read at its end: a fallback may have taken over). The events pass through unchanged.
 */
export function timedStream(stream: StreamFn, m: Metrics, provider: () => string): StreamFn {
  return async function* (request, signal) {
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    let first = true;
    let outcome = "abandoned";
    try {
      for await (const e of stream(request, signal)) {
        if (first && isOutput(e)) {
          first = false;
          m.providerFirstToken.observe({ provider: provider() }, seconds());
        }
        if (e.type === "done") outcome = "ok";
        else if (e.type === "error") outcome = e.error.reason;
        yield e;
      }
    } finally {
      m.providerRequest.observe({ provider: provider(), outcome }, seconds());
    }
  };
}
