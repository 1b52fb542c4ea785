/**
 * The dependency direction of docs/architecture.md, checked by parsing every
 * import of the repository's source folders, so the architecture cannot rot
 * silently: the top-level table, the sub-layers inside `gateway/` and
 * `agent/`, the composition root, tests and benches apart, and no import
 * cycle. The last cases run the same checks on a small tree that breaks every
 * rule once, proving each check reports what it exists to catch.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildGraph, type SourceSet } from "./architecture/import-graph.js";
import {
  agentLayerOf,
  agentViolations,
  compositionRootViolations,
  cycleViolations,
  gatewayLayerOf,
  gatewayViolations,
  TOP_LAYERS,
  testBenchViolations,
  topLayerOf,
  topLevelViolations,
} from "./architecture/layers.js";
import { readSourceTree } from "./architecture/source-tree.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FOLDERS = [...TOP_LAYERS, "test", "bench"];

const tree = readSourceTree(ROOT, FOLDERS);
const productOnly = (files: SourceSet): SourceSet => new Map([...files].filter(([f]) => topLayerOf(f) !== null));
const all = buildGraph(tree);
const product = buildGraph(productOnly(tree));

describe("architecture", () => {
  it("reads source files, and the imports between them, in every folder it checks", () => {
    for (const folder of FOLDERS) expect([...tree.keys()].filter((f) => f.startsWith(`${folder}/`)).length, folder).toBeGreaterThan(5);
    expect(product.refs.filter((r) => r.to !== null).length).toBeGreaterThan(1000);
    expect([...tree.keys()].filter((f) => f.startsWith("gateway/")).every((f) => gatewayLayerOf(f) !== null)).toBe(true);
    expect([...tree.keys()].filter((f) => f.startsWith("agent/")).every((f) => agentLayerOf(f) !== null)).toBe(true);
  });

  it("imports between the top-level folders only in the allowed direction (config ← agent ← tools; adapters ← gateway)", () => {
    expect(topLevelViolations(product)).toEqual([]);
  });

  it("keeps the sub-layers of gateway/: store below the runtime's ports, entries thin over the one composition root", () => {
    expect(gatewayViolations(product)).toEqual([]);
  });

  it("keeps the sub-layers of agent/: resilience below the providers, compression below the loop", () => {
    expect(agentViolations(product)).toEqual([]);
  });

  it("builds the gateway's parts in gateway/wiring/ only", () => {
    expect(compositionRootViolations(productOnly(tree))).toEqual([]);
  });

  it("has no import cycle in product code", () => {
    expect(cycleViolations(product)).toEqual([]);
  });

  it("keeps tests and benchmarks apart: no test imports a benchmark, and neither has an import cycle", () => {
    expect(testBenchViolations(all)).toEqual([]);
    expect(cycleViolations(all)).toEqual([]);
  });

  it("keeps SQL in the store, and process.env and signal handlers in gateway/", () => {
    const violations: string[] = [];
    for (const [file, text] of productOnly(tree)) {
      if (/from\s+["']better-sqlite3["']/.test(text) && !file.startsWith("gateway/store/"))
        violations.push(`${file} uses better-sqlite3 outside gateway/store`);
      if (topLayerOf(file) !== "gateway" && /\bprocess\.env\b/.test(text)) violations.push(`${file} reads process.env`);
      if (topLayerOf(file) !== "gateway" && /\bprocess\.on\(\s*["']SIG/.test(text)) violations.push(`${file} installs a signal handler`);
    }
    expect(violations).toEqual([]);
  });
});

/** A tree that breaks each rule once, beside imports every rule allows. */
const BROKEN: Record<string, string> = {
  "config/index.ts": `export const x = 1;\n`,
  "agent/types.ts": `import type { X } from "../config/index.js";\nexport interface Message { role: string }\n`,
  "agent/resilience/backoff.ts": `import { stream } from "../providers/stream.js";\nexport const delay = 1;\n`,
  "agent/providers/stream.ts": `import { delay } from "../resilience/backoff.js";\nexport const stream = 1;\n`,
  "tools/memory/tool.ts": `import type { Message } from "../../agent/types.js";\nimport { run } from "../../agent/loop/run.js";\n`,
  "agent/loop/run.ts": `import { tools } from "../../gateway/tools.js";\nexport const run = 1;\n`,
  "agent/compression/compress.ts": `import { run } from "../loop/run.js";\n`,
  "adapters/telegram/adapter.ts": `import { run } from "../../agent/loop/run.js";\nimport { send } from "../discord/send.js";\n`,
  "adapters/discord/send.ts": `export const send = 1;\n`,
  "gateway/store/sessions.ts": `import { Runtime } from "../runtime/runtime.js";\nimport { run } from "../../agent/loop/run.js";\n`,
  "gateway/runtime/runtime.ts": `import { Store } from "../store/sessions.js";\nimport type { Config } from "../../config/index.js";\n`,
  "gateway/wiring/engine.ts": `import { createToolSystem } from "../tools.js";\nexport const engine = createToolSystem();\n`,
  "gateway/tools.ts": `export function createToolSystem() {}\n`,
  "gateway/cli/run.ts": `import { engine } from "../wiring/engine.js";\nimport type { Store } from "../store/sessions.js";\nimport { createToolSystem } from "../tools.js";\ncreateToolSystem();\n`,
  "gateway/cli/status.ts": `import { Runtime } from "../runtime/runtime.js";\n`,
  "gateway/media/index.ts": `import { engine } from "../wiring/engine.js";\n`,
  "gateway/stray/thing.ts": `export const y = 1;\n`,
  "test/helpers.ts": `import { table } from "../bench/report.js";\n`,
  "bench/report.ts": `import { fake } from "../test/fakes/server.js";\nexport const table = 1;\n`,
  "test/fakes/server.ts": `import { table } from "../../bench/report.js";\nexport const fake = 1;\n`,
};

describe("the checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "hgw-arch-"));
  for (const [file, text] of Object.entries(BROKEN)) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files = readSourceTree(dir, FOLDERS);
  const graph = buildGraph(productOnly(files));

  it("reads the tree from disk as it reads the repository", () => {
    expect([...files.keys()].sort()).toEqual(Object.keys(BROKEN).sort());
  });

  it("reports a forbidden import between top-level folders, and a sibling platform", () => {
    expect(topLevelViolations(graph).sort()).toEqual([
      "adapters/telegram/adapter.ts (adapter telegram) imports sibling platform discord",
      "adapters/telegram/adapter.ts (adapters) imports ../../agent/loop/run.js (agent)",
      "agent/loop/run.ts (agent) imports ../../gateway/tools.js (gateway)",
      "tools/memory/tool.ts (tools) imports ../../agent/loop/run.js (agent): only type imports are allowed",
    ]);
  });

  it("reports a forbidden import between the sub-layers of gateway/, and a file in none", () => {
    expect(gatewayViolations(graph).sort()).toEqual([
      "gateway/cli/status.ts (entries) imports ../runtime/runtime.js (runtime): only type imports are allowed",
      "gateway/media/index.ts (services) imports ../wiring/engine.js (wiring)",
      "gateway/runtime/runtime.ts (runtime) imports ../store/sessions.js (store)",
      "gateway/store/sessions.ts (store) imports ../../agent/loop/run.js (agent): only type imports are allowed",
      "gateway/store/sessions.ts (store) imports ../runtime/runtime.js (runtime)",
      "gateway/stray/thing.ts is in no sub-layer of gateway/",
    ]);
  });

  it("reports a forbidden import between the sub-layers of agent/", () => {
    expect(agentViolations(graph).sort()).toEqual([
      "agent/compression/compress.ts (compression) imports ../loop/run.js (loop)",
      "agent/resilience/backoff.ts (resilience) imports ../providers/stream.js (providers)",
    ]);
  });

  it("reports a part built outside the composition root", () => {
    expect(compositionRootViolations(productOnly(files))).toEqual([
      "gateway/cli/run.ts builds createToolSystem (gateway/tools.ts); parts are built in gateway/wiring/ only",
    ]);
  });

  it("reports each import cycle with its path", () => {
    expect(cycleViolations(graph)).toEqual([
      "import cycle: agent/providers/stream.ts → agent/resilience/backoff.ts → agent/providers/stream.ts",
      "import cycle: gateway/runtime/runtime.ts → gateway/store/sessions.ts → gateway/runtime/runtime.ts",
    ]);
  });

  it("reports a test importing a benchmark, and the cycle between them", () => {
    const both = buildGraph(files);
    expect(testBenchViolations(both).sort()).toEqual([
      "test/fakes/server.ts (a test) imports ../../bench/report.js (a benchmark)",
      "test/helpers.ts (a test) imports ../bench/report.js (a benchmark)",
    ]);
    expect(cycleViolations(both)).toContain("import cycle: bench/report.ts → test/fakes/server.ts → bench/report.ts");
  });
});
