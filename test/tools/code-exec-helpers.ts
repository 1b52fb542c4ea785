/**
 * A rig for execute_code: a temp working directory with files, a registry
 * holding the real file, terminal (behind a real approval policy) and web
 * tools (against the fake web) plus execute_code, and a ToolContext whose
 * agent run offers exactly those tools.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { IterationBudget, ToolRegistry, type ToolView } from "../../agent/index.js";
import type { ToolContext } from "../../agent/types.js";
import { buildConfig } from "../../config/load.js";
import type { Config } from "../../config/schema.js";
import { systemClock } from "../../config/timing/index.js";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import { createCodeExecTool, resolveInterpreter } from "../../tools/code-exec/index.js";
import { createFileTools } from "../../tools/files/index.js";
import { createTerminalTool, ProcessRegistry } from "../../tools/terminal/index.js";
import { createWebTools, type WebTools } from "../../tools/web/index.js";
import { type FakeWeb, startFakeWeb } from "../fakes/web-server.js";
import { approvalsConfig, choose, makeContext, ScriptedApprover } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";

export interface CodeRig {
  readonly dir: string;
  readonly web: FakeWeb;
  readonly approver: ScriptedApprover;
  readonly registry: ToolRegistry;
  view(toolsets?: readonly string[]): Promise<ToolView>;
  ctx(view: ToolView, budget?: IterationBudget): ToolContext;
  run(code: string, signal?: AbortSignal, toolsets?: readonly string[]): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export function codeConfig(code: Record<string, unknown>): Config {
  return buildConfig({ yamlText: stringify({ code_execution: code }), file: null, env: {}, home: "/tmp/hermes-test" });
}

/** Languages this machine can run: node always, python when a Python 3 runs. */
export async function languages(): Promise<("python" | "node")[]> {
  const python = await resolveInterpreter(codeConfig({ language: "python" }).code_execution, process.env);
  return python ? ["python", "node"] : ["node"];
}

export async function makeCodeRig(code: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<CodeRig> {
  const dir = await mkdtemp(join(tmpdir(), "hgw-code-"));
  for (let i = 1; i <= 3; i++) await writeFile(join(dir, `note${i}.txt`), `note ${i}\nsecond line of note ${i}\n`);
  const web = await startFakeWeb();
  const config = codeConfig(code);
  const approver = new ScriptedApprover(choose("deny"));
  const processes = new ProcessRegistry({ killGraceMs: 300 });
  const webTools: WebTools = createWebTools({ ...config.web, duckduckgo: { url: `${web.url}/ddg/html/` } });
  const exec = createCodeExecTool({ config: config.code_execution, env, secrets: ["sk-live-secret-value"], killGraceMs: 300 });
  const registry = new ToolRegistry();
  const policy = createApprovalPolicy({ approvals: approvalsConfig() });
  for (const def of createFileTools({ maxResultChars: 100_000, policy })) registry.register(def);
  registry.register(createTerminalTool({ policy, registry: processes, killGraceMs: 300 }));
  registry.register(webTools.search);
  registry.register(webTools.extract);
  registry.register(exec.tool, { schemaOverride: exec.schemaOverride });
  const view = (toolsets: readonly string[] = ["file", "terminal", "web", "code_execution"]) => registry.view(toolsets);
  const ctx = (v: ToolView, budget = new IterationBudget(20)): ToolContext => ({
    ...makeContext({ approver, clock: systemClock, cwd: dir, home: dir }),
    agent: { budget, depth: 0, model: "test-model", toolsets: ["file", "terminal", "web", "code_execution"], tools: v, progress: () => undefined },
  });
  return {
    dir,
    web,
    approver,
    registry,
    view,
    ctx,
    async run(source, signal = new AbortController().signal, toolsets) {
      const v = await view(toolsets);
      return JSON.parse(await callTool(exec.tool, { code: source }, ctx(v), signal)) as Record<string, any>;
    },
    async close() {
      await processes.shutdown();
      await webTools.close();
      await web.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
