/**
 * The layers of docs/architecture.md as data, and the check of an import
 * graph against them: the five top-level folders, the sub-layers inside
 * `gateway/` and `agent/`, sibling platforms, tests and benches, and import
 * cycles. Every check returns readable violations (empty when the tree obeys).
 */
import { findCycles, type ImportGraph, type ImportRef } from "./import-graph.js";

/** May `from` import `to`: yes, only type-only imports (erased by the compiler), or no. */
export type Allowance = "yes" | "types" | "no";

export const TOP_LAYERS = ["config", "agent", "tools", "adapters", "gateway"] as const;
export type TopLayer = (typeof TOP_LAYERS)[number];

/** The dependency table of the project: row imports column. */
export const TOP_RULES: Readonly<Record<TopLayer, Readonly<Record<TopLayer, Allowance>>>> = {
  config: { config: "yes", agent: "no", tools: "no", adapters: "no", gateway: "no" },
  agent: { config: "yes", agent: "yes", tools: "no", adapters: "no", gateway: "no" },
  tools: { config: "yes", agent: "types", tools: "yes", adapters: "no", gateway: "no" },
  adapters: { config: "yes", agent: "no", tools: "no", adapters: "yes", gateway: "no" },
  gateway: { config: "yes", agent: "yes", tools: "yes", adapters: "yes", gateway: "yes" },
};

/**
 * Inside `gateway/`, bottom to top: small helpers every part may use; the
 * store (all SQL); the runtime (the inbound pipeline, mailboxes, turns,
 * egress), which knows nothing of the store and reaches it only through its
 * ports (`runtime/ports.ts`); the services that implement those ports and the
 * tool system over the agent core, the tools and the store (media, cron, the
 * agent side of a turn, tools, HTTP); the composition root that builds and
 * wires them (`wiring/`); and the entries, thin over it (the CLI: the
 * daemon's `run`, `chat`, the other commands), which name the store's and the
 * runtime's types but get every part from the composition root.
 */
export const GATEWAY_LAYERS = ["base", "store", "runtime", "services", "wiring", "entries"] as const;
export type GatewayLayer = (typeof GATEWAY_LAYERS)[number];

export const GATEWAY_RULES: Readonly<Record<GatewayLayer, Readonly<Record<GatewayLayer, Allowance>>>> = {
  base: { base: "yes", store: "no", runtime: "no", services: "no", wiring: "no", entries: "no" },
  store: { base: "yes", store: "yes", runtime: "no", services: "no", wiring: "no", entries: "no" },
  runtime: { base: "yes", store: "no", runtime: "yes", services: "no", wiring: "no", entries: "no" },
  services: { base: "yes", store: "yes", runtime: "yes", services: "yes", wiring: "no", entries: "no" },
  wiring: { base: "yes", store: "yes", runtime: "yes", services: "yes", wiring: "yes", entries: "no" },
  entries: { base: "yes", store: "types", runtime: "types", services: "yes", wiring: "yes", entries: "yes" },
};

/** Files directly in `gateway/` that import no other part of it (but each other): usable from every sub-layer. */
export const GATEWAY_BASE_FILES: readonly string[] = [
  "gateway/lifecycle.ts",
  "gateway/log.ts",
  "gateway/metrics.ts",
  "gateway/pid-file.ts",
  "gateway/records.ts",
  "gateway/setup-report.ts",
  "gateway/terminal-text.ts",
  "gateway/tools-session.ts",
];

const GATEWAY_FOLDERS: Readonly<Record<string, GatewayLayer>> = {
  store: "store",
  runtime: "runtime",
  media: "services",
  cron: "services",
  "agent-turn": "services",
  wiring: "wiring",
  cli: "entries",
};

/** The sub-layer of a file of `gateway/` (a folder not listed above is a violation of its own). */
export function gatewayLayerOf(file: string): GatewayLayer | null {
  const rest = file.slice("gateway/".length);
  if (rest === "cli.ts") return "entries";
  if (!rest.includes("/")) return GATEWAY_BASE_FILES.includes(file) ? "base" : "services";
  return GATEWAY_FOLDERS[rest.split("/")[0] as string] ?? null;
}

/**
 * Inside `agent/`: the provider-neutral types at the bottom; history helpers
 * (alternation, token estimates), resilience (classification, backoff, pools,
 * failover), the tool registry and the prompt layers on them; the providers
 * over resilience; compression over the history helpers; the loop over
 * compression and the tool registry; `index.ts`, the public surface, over all.
 */
export const AGENT_LAYERS = ["types", "history", "resilience", "providers", "tools", "prompt", "compression", "loop", "trajectory", "index"] as const;
export type AgentLayer = (typeof AGENT_LAYERS)[number];

export const AGENT_ALLOWED: Readonly<Record<AgentLayer, readonly AgentLayer[]>> = {
  types: [],
  history: ["types"],
  resilience: ["types"],
  providers: ["types", "resilience"],
  tools: ["types"],
  prompt: ["types"],
  compression: ["types", "history"],
  loop: ["types", "history", "compression", "tools"],
  trajectory: ["types"],
  index: AGENT_LAYERS.filter((l) => l !== "index"),
};

export function agentLayerOf(file: string): AgentLayer | null {
  const rest = file.slice("agent/".length);
  if (rest === "types.ts") return "types";
  if (rest === "index.ts") return "index";
  if (rest === "trajectory.ts") return "trajectory";
  const folder = rest.split("/")[0] as string;
  return rest.includes("/") && (AGENT_LAYERS as readonly string[]).includes(folder) ? (folder as AgentLayer) : null;
}

export function topLayerOf(file: string): TopLayer | null {
  const top = file.split("/")[0] ?? "";
  return (TOP_LAYERS as readonly string[]).includes(top) ? (top as TopLayer) : null;
}

/** The platform folder of an adapter file (null for the shared parts: `common/`, `types.ts`, …). */
function platformOf(file: string): string | null {
  const parts = file.split("/");
  return parts[0] === "adapters" && parts.length > 2 && parts[1] !== "common" ? (parts[1] as string) : null;
}

function refused(allowance: Allowance, ref: ImportRef): boolean {
  return allowance === "no" || (allowance === "types" && !ref.typeOnly);
}

function describe(ref: ImportRef, from: string, to: string, allowance: Allowance): string {
  return `${ref.from} (${from}) imports ${ref.spec} (${to})${allowance === "types" ? ": only type imports are allowed" : ""}`;
}

/** Edges of product code against the top-level table, sibling platforms, and imports that name no file. */
export function topLevelViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const ref of graph.refs) {
    const from = topLayerOf(ref.from);
    if (!from || !ref.spec.startsWith(".")) continue;
    if (ref.to === null) {
      out.push(`${ref.from} imports ${ref.spec}, which names no source file`);
      continue;
    }
    const to = topLayerOf(ref.to);
    if (!to) {
      out.push(`${ref.from} imports ${ref.spec}, outside the product's folders`);
      continue;
    }
    if (refused(TOP_RULES[from][to], ref)) out.push(describe(ref, from, to, TOP_RULES[from][to]));
    const a = platformOf(ref.from);
    const b = platformOf(ref.to);
    if (a && b && a !== b) out.push(`${ref.from} (adapter ${a}) imports sibling platform ${b}`);
  }
  return out;
}

/**
 * What the store may import from outside `gateway/`: the configuration and the
 * agent's types (the messages it keeps) — no tool, adapter or agent code.
 */
export const STORE_OUTSIDE: Readonly<Record<Exclude<TopLayer, "gateway">, Allowance>> = { config: "yes", agent: "types", tools: "no", adapters: "no" };

/** Edges inside `gateway/` against its sub-layers, and the store's edges out of `gateway/`. */
export function gatewayViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const ref of graph.refs) {
    const to = ref.to ? topLayerOf(ref.to) : null;
    if (!ref.from.startsWith("gateway/store/") || !to || to === "gateway") continue;
    if (refused(STORE_OUTSIDE[to], ref)) out.push(describe(ref, "store", to, STORE_OUTSIDE[to]));
  }
  for (const file of graph.files.keys()) if (file.startsWith("gateway/") && gatewayLayerOf(file) === null) out.push(`${file} is in no sub-layer of gateway/`);
  for (const ref of graph.refs) {
    if (!ref.from.startsWith("gateway/") || !ref.to?.startsWith("gateway/")) continue;
    const from = gatewayLayerOf(ref.from);
    const to = gatewayLayerOf(ref.to);
    if (!from || !to) continue;
    const allowance = GATEWAY_RULES[from][to];
    if (refused(allowance, ref)) out.push(describe(ref, from, to, allowance));
  }
  return out;
}

/** Edges inside `agent/` against its sub-layers. */
export function agentViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const file of graph.files.keys()) if (file.startsWith("agent/") && agentLayerOf(file) === null) out.push(`${file} is in no sub-layer of agent/`);
  for (const ref of graph.refs) {
    if (!ref.from.startsWith("agent/") || !ref.to?.startsWith("agent/")) continue;
    const from = agentLayerOf(ref.from);
    const to = agentLayerOf(ref.to);
    if (!from || !to || from === to) continue;
    if (!AGENT_ALLOWED[from].includes(to)) out.push(describe(ref, from, to, "no"));
  }
  return out;
}

/** Tests never import benchmarks (benchmarks may use the tests' fakes and harnesses). */
export function testBenchViolations(graph: ImportGraph): string[] {
  return graph.refs.filter((r) => r.from.startsWith("test/") && r.to?.startsWith("bench/")).map((r) => `${r.from} (a test) imports ${r.spec} (a benchmark)`);
}

/**
 * Import cycles among the files of the graph. Type-only imports count: a
 * cycle of types still means neither module can be read, changed or moved
 * without the other.
 */
export function cycleViolations(graph: ImportGraph): string[] {
  return findCycles(graph.edges).map((path) => `import cycle: ${path.join(" → ")}`);
}

/**
 * The gateway's parts, each by the module that defines its builder: built
 * (called, or constructed with `new`) in the composition root only, so there
 * is one place that decides what the daemon and chat are made of.
 */
export const BUILT_IN_WIRING: Readonly<Record<string, string>> = {
  openStore: "gateway/store/index.ts",
  createRuntime: "gateway/runtime/runtime.ts",
  createToolSystem: "gateway/tools.ts",
  createMedia: "gateway/media/index.ts",
  createAgentRunner: "gateway/agent-turn/runner.ts",
  createAgentPromptBuilder: "gateway/agent-turn/prompt.ts",
  CronScheduler: "gateway/cron/scheduler.ts",
  createHttpServer: "gateway/http.ts",
  createMetrics: "gateway/metrics.ts",
  createLifecycle: "gateway/lifecycle.ts",
};

/** Product files outside `gateway/wiring/` that build one of the gateway's parts. */
export function compositionRootViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (!topLayerOf(file) || file.startsWith("gateway/wiring/")) continue;
    for (const [name, home] of Object.entries(BUILT_IN_WIRING)) {
      if (file === home) continue;
      if (new RegExp(`\\bnew\\s+${name}\\b|(?<!function\\s+)\\b${name}\\s*\\(`).test(text))
        out.push(`${file} builds ${name} (${home}); parts are built in gateway/wiring/ only`);
    }
  }
  return out;
}
