/**
 * delegate_task with the gateway's SubagentRunner: children run the real
 * agent loop on the same injected stream (scripted here, routed by whose
 * request it is), with restricted tools, a budget drawn from the parent's,
 * the parent's interrupt, progress relayed, and sessions stored in a real
 * in-memory store, linked to the parent's.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IterationBudget, ToolRegistry, type ToolView } from "../../agent/index.js";
import type { ModelRequest, ProviderEvent, StreamFn, SubagentProgress, ToolContext, ToolDefinition } from "../../agent/types.js";
import { childSessionsOver, createSubagentRunner, SUBAGENT_SOURCE } from "../../gateway/agent-turn/delegation.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { createDelegateTool } from "../../tools/delegate/index.js";
import { errorTurn, makeContext, textTurn, toolTurn } from "../agent/helpers.js";
import { testConfig } from "../runtime/helpers/harness.js";
import { callInView } from "./call-tool.js";

type Brain = (req: ModelRequest, signal: AbortSignal) => ProviderEvent[] | Promise<ProviderEvent[]>;

/** A stream that asks `brain` what to answer; an abort while it thinks ends the call as the providers do. */
function streamOf(brain: () => Brain): StreamFn {
  return async function* (req, signal) {
    try {
      yield* await brain()(req, signal);
    } catch {
      yield* errorTurn({ reason: "aborted", message: "aborted", retryable: false });
    }
  };
}

const isChild = (req: ModelRequest) => req.system.startsWith("You are a focused subagent");
const goalOf = (req: ModelRequest) => /YOUR TASK:\n(.*)\n/.exec(req.system)?.[1] ?? "";
const toolNames = (req: ModelRequest) => req.tools.map((t) => t.name).sort();
const lastIsTool = (req: ModelRequest) => req.messages.at(-1)?.role === "tool";

const stub = (name: string, toolset: string, result = `{"ok":true,"tool":"${name}"}`): ToolDefinition => ({
  name,
  toolset,
  schema: { name, description: `${name} tool`, parameters: { type: "object", properties: { q: { type: "string" } } } },
  parallelSafe: true,
  execute: async () => result,
});

interface Rig {
  readonly store: Store;
  readonly parentId: string;
  readonly progress: SubagentProgress[];
  readonly requests: ModelRequest[];
  brain: Brain;
  call(
    args: Record<string, unknown>,
    o?: { depth?: number; budget?: IterationBudget; signal?: AbortSignal; ctx?: Partial<ToolContext> },
  ): Promise<Record<string, any>>;
  view(): Promise<ToolView>;
}

async function makeRig(delegation: Record<string, unknown> = {}, extra: readonly ToolDefinition[] = []): Promise<Rig> {
  const config = testConfig({ delegation });
  const store = openStore(":memory:");
  const parentId = store.sessions.create({ source: "telegram", userId: "42", systemPrompt: "parent prompt" });
  const registry = new ToolRegistry();
  const requests: ModelRequest[] = [];
  const rig: Rig = {
    store,
    parentId,
    progress: [],
    requests,
    brain: () => textTurn("unscripted"),
    view: () => registry.view(["hermes-core"]),
    async call(args, o = {}) {
      const tools = await rig.view();
      const budget = o.budget ?? new IterationBudget(90);
      const ctx: ToolContext = {
        ...makeContext({ sessionId: parentId, userId: "42", platform: "telegram", ...o.ctx }),
        agent: { budget, depth: o.depth ?? 0, model: "parent-model", toolsets: ["hermes-core"], tools, progress: (p) => rig.progress.push(p) },
      };
      return JSON.parse(await callInView(tools, "delegate_task", args, ctx, o.signal ?? new AbortController().signal)) as Record<string, any>;
    },
  };
  const stream = streamOf(() => (req, signal) => (requests.push(req), rig.brain(req, signal)));
  const runner = createSubagentRunner({ config, stream, view: (ts) => registry.view(ts), sessions: childSessionsOver(store) });
  for (const def of [
    stub("lookup", "web"),
    stub("read_note", "file"),
    stub("memory", "memory"),
    stub("clarify", "clarify"),
    stub("execute_code", "code_execution"),
    ...extra,
  ])
    registry.register(def);
  registry.register(createDelegateTool({ config: config.delegation, runner }));
  return rig;
}

let rig: Rig;
afterEach(() => rig.store.close());

describe("delegate_task: children", () => {
  beforeEach(async () => {
    rig = await makeRig({ max_concurrent_children: 3 });
  });

  it("runs each task as a child with its own conversation and returns the summaries in order", async () => {
    rig.brain = (req) => {
      if (!isChild(req)) return textTurn("parent should not be called");
      return lastIsTool(req) ? textTurn(`summary of ${goalOf(req)}`) : toolTurn([{ name: "lookup", args: { q: goalOf(req) } }]);
    };
    const r = await rig.call({ tasks: [{ goal: "find alpha", context: "alpha is a letter" }, { goal: "find beta" }] });
    expect(r["results"].map((x: { task_index: number; status: string; summary: string }) => [x.task_index, x.status, x.summary])).toEqual([
      [0, "completed", "summary of find alpha"],
      [1, "completed", "summary of find beta"],
    ]);
    const first = rig.requests.find((q) => goalOf(q) === "find alpha")!;
    expect(first.system).toContain("CONTEXT:\nalpha is a letter");
    expect(first.messages).toEqual([{ role: "user", content: "find alpha" }]);
    expect(first.model).toBe("parent-model");
    expect(r["results"][0]).toMatchObject({ api_calls: 2, tool_calls: 1 });
  });

  it("never gives children delegate_task, clarify, memory or execute_code; toolsets narrow what they get", async () => {
    rig.brain = () => textTurn("done");
    await rig.call({ goal: "everything" });
    await rig.call({ goal: "only web", toolsets: ["web"] });
    const byGoal = (g: string) => toolNames(rig.requests.find((q) => goalOf(q) === g)!);
    expect(byGoal("everything")).toEqual(["lookup", "read_note"]);
    expect(byGoal("only web")).toEqual(["lookup"]);
  });

  it("stores each child's session, linked to the parent's, ended with its status", async () => {
    rig.brain = (req) => (lastIsTool(req) ? textTurn("found it") : toolTurn([{ name: "read_note" }]));
    const r = await rig.call({ goal: "read the note" });
    const id = r["results"][0].session_id as string;
    const session = rig.store.sessions.get(id)!;
    expect(session).toMatchObject({
      parentSessionId: rig.parentId,
      source: SUBAGENT_SOURCE,
      userId: "42",
      endReason: "completed",
      model: "parent-model",
      apiCallCount: 2,
    });
    expect(session.systemPrompt).toContain("YOUR TASK:\nread the note");
    expect(rig.store.messages.loadConversation(id).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(rig.store.sessions.children(rig.parentId).map((s) => s.id)).toEqual([id]);
  });

  it("relays each child's start, tool calls and end to the parent's progress stream", async () => {
    rig.brain = (req) => (lastIsTool(req) ? textTurn("ok") : toolTurn([{ name: "lookup", args: { q: "x" } }]));
    await rig.call({ goal: "look it up" });
    const shown = rig.progress.filter((p) => p.kind !== "activity");
    expect(shown).toEqual([
      { label: "1", kind: "started", preview: "look it up" },
      { label: "1", kind: "tool", toolName: "lookup", preview: "x" },
      { label: "1", kind: "finished", preview: "completed" },
    ]);
  });

  it("runs the children at the same time", async () => {
    let waiting: (() => void)[] = [];
    rig.brain = async (req) => {
      if (lastIsTool(req) || req.messages.length > 1) return textTurn("done");
      // Each child's first call waits for the others: sequential children would never get here all at once.
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 3) waiting.forEach((w) => w());
      });
      return textTurn(`done ${goalOf(req)}`);
    };
    const r = await Promise.race([
      rig.call({ tasks: [{ goal: "a" }, { goal: "b" }, { goal: "c" }] }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("children ran one by one")), 3000)),
    ]);
    expect(r["results"].map((x: { summary: string }) => x.summary)).toEqual(["done a", "done b", "done c"]);
    waiting = [];
  });

  it("refuses more tasks than max_concurrent_children, and a call with neither goal nor tasks", async () => {
    const many = await rig.call({ tasks: [{ goal: "1" }, { goal: "2" }, { goal: "3" }, { goal: "4" }] });
    expect(many["error"]).toContain("Invalid arguments for delegate_task: $.tasks: must have at most 3 items (got 4)");
    expect((await rig.call({}))["error"]).toContain("Give `goal` or a non-empty `tasks` list");
    expect(rig.requests).toHaveLength(0);
  });
});

describe("delegate_task: budget, interrupts, depth", () => {
  it("children spend from the parent's budget and stop when it runs out", async () => {
    rig = await makeRig({ max_iterations: 50 });
    rig.brain = (req) => (isChild(req) ? toolTurn([{ name: "lookup", args: { q: String(req.messages.length) } }]) : textTurn("parent"));
    const budget = new IterationBudget(8);
    budget.consume(); // the parent's own call that asked for the delegation
    const r = await rig.call({ goal: "loop forever" }, { budget });
    expect(r["results"][0].status).toBe("budget_exhausted");
    expect(budget.remaining).toBe(0);
    expect(budget.used).toBe(8);
  });

  it("an interrupt of the parent stops every child at once", async () => {
    rig = await makeRig();
    rig.brain = (_req, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const started = Date.now();
    const r = await rig.call({ tasks: [{ goal: "a" }, { goal: "b" }] }, { signal: ctl.signal });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r["results"].map((x: { status: string }) => x.status)).toEqual(["interrupted", "interrupted"]);
    for (const x of r["results"]) expect(rig.store.sessions.get(x.session_id)!.endReason).toBe("interrupted");
  });

  it("a child already at max_spawn_depth may not delegate", async () => {
    rig = await makeRig({ max_spawn_depth: 1 });
    const r = await rig.call({ goal: "deeper" }, { depth: 1 });
    expect(r["error"]).toContain("delegation depth limit (delegation.max_spawn_depth = 1) is reached");
  });

  it("orchestrator children get delegate_task within the depth limit, and their children are labelled beneath them", async () => {
    rig = await makeRig({ max_spawn_depth: 2 });
    rig.brain = (req) => {
      const goal = goalOf(req);
      if (goal === "orchestrate" && !lastIsTool(req)) return toolTurn([{ name: "delegate_task", args: { goal: "leaf work" } }]);
      if (goal === "leaf work" && !lastIsTool(req)) return toolTurn([{ name: "lookup" }]);
      return textTurn(`${goal} done`);
    };
    const r = await rig.call({ goal: "orchestrate", role: "orchestrator" });
    expect(r["results"][0].summary).toBe("orchestrate done");
    const orchestrator = rig.requests.find((q) => goalOf(q) === "orchestrate")!;
    expect(toolNames(orchestrator)).toContain("delegate_task");
    expect(orchestrator.system).toContain("You are at depth 1. The delegation tree is capped at max_spawn_depth=2. Your own children MUST be leaves");
    expect(toolNames(rig.requests.find((q) => goalOf(q) === "leaf work")!)).not.toContain("delegate_task");
    expect(rig.progress.filter((p) => p.kind === "tool").map((p) => `${p.label} ${p.toolName}`)).toEqual(["1 delegate_task", "1.1 lookup"]);
    const [child] = rig.store.sessions.children(rig.parentId);
    expect(rig.store.sessions.children(child!.id)).toHaveLength(1);
  });

  it("at max_spawn_depth 1 an orchestrator is a leaf", async () => {
    rig = await makeRig({ max_spawn_depth: 1 });
    rig.brain = () => textTurn("done");
    await rig.call({ goal: "try", role: "orchestrator" });
    expect(toolNames(rig.requests[0]!)).not.toContain("delegate_task");
  });
});

describe("delegate_task: what children share with the parent", () => {
  it("asks the parent's approver, under the session's approvals; has no clarifier and its own tool state", async () => {
    const seen: Record<string, unknown> = {};
    const probe: ToolDefinition = {
      ...stub("probe", "file"),
      async execute(_a, ctx, signal) {
        seen["yolo"] = ctx.state.get("approvals.yolo");
        seen["todo"] = ctx.state.get("todo.items") ?? null;
        seen["clarify"] = (await ctx.clarifier.ask({ question: "?", choices: [], allowFreeText: true }, signal)).kind;
        await ctx.approver.request({ command: "rm -rf build", category: "recursive delete", description: "d", allowPermanent: false }, signal);
        return "{}";
      },
    };
    rig = await makeRig({}, [probe]);
    rig.brain = (req) => (lastIsTool(req) ? textTurn("ok") : toolTurn([{ name: "probe" }]));
    const parentState = new Map<string, unknown>([
      ["approvals.yolo", true],
      ["todo.items", ["parent todo"]],
    ]);
    const state = { get: <T>(k: string) => parentState.get(k) as T | undefined, set: <T>(k: string, v: T) => void parentState.set(k, v) };
    const asked: string[] = [];
    const approver = { request: (req: { command: string }) => (asked.push(req.command), Promise.resolve({ choice: "once" as const })) };
    await rig.call({ goal: "probe" }, { ctx: { state, approver } });
    expect(seen).toEqual({ yolo: true, todo: null, clarify: "unavailable" });
    expect(asked).toEqual(["rm -rf build"]);
  });
});
