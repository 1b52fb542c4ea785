/**
 * execute_code running real Python and Node scripts that call read_file,
 * terminal and web_search over the Unix socket: the allow-list, the approval
 * policy on terminal calls, the clean environment, limits, interruption and
 * clean-up.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonHead } from "../../tools/code-exec/dispatch.js";
import { choose } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";
import { type CodeRig, languages, makeCodeRig } from "./code-exec-helpers.js";
import { alive } from "./terminal-helpers.js";

const LANGS = await languages();

/** The same script in both languages. */
const S = {
  threeTools: {
    python: `from hermes_tools import read_file, terminal, web_search
r = read_file("note2.txt")
t = terminal("echo from-shell")
w = web_search("socket rpc", limit=2)
print(r["content"].splitlines()[0])
print(t["output"].strip(), t["exit_code"])
print([h["title"] for h in w["data"]["web"]])`,
    node: `import { read_file, terminal, web_search } from "hermes_tools";
const [r, t, w] = await Promise.all([read_file({ path: "note2.txt" }), terminal({ command: "echo from-shell" }), web_search({ query: "socket rpc", limit: 2 })]);
console.log(r.content.split("\\n")[0]);
console.log(t.output.trim(), t.exit_code);
console.log(JSON.stringify(w.data.web.map((h) => h.title)));`,
  },
  forbidden: {
    python: `from hermes_tools import call_tool\nprint(call_tool("memory", action="add")["error"])\nprint(call_tool("execute_code", code="1")["error"])`,
    node: `import { callTool } from "hermes_tools";\nconsole.log((await callTool("memory", { action: "add" })).error);\nconsole.log((await callTool("execute_code", { code: "1" })).error);`,
  },
  dangerous: {
    python: `from hermes_tools import terminal\nr = terminal("rm -rf ./build")\nprint(r["status"])`,
    node: `import { terminal } from "hermes_tools";\nconsole.log((await terminal({ command: "rm -rf ./build" })).status);`,
  },
  environment: {
    python: `import os\nprint(os.getcwd())\nprint(sorted(os.environ.keys()))\nprint(os.environ.get("OPENAI_API_KEY"), os.environ.get("EXTRA_OK"))\nprint(os.environ["HERMES_RPC_SOCKET"])`,
    node: `console.log(process.cwd());\nconsole.log(JSON.stringify(Object.keys(process.env).sort()));\nconsole.log(process.env.OPENAI_API_KEY, process.env.EXTRA_OK);\nconsole.log(process.env.HERMES_RPC_SOCKET);`,
  },
  sleepy: {
    python: `import subprocess, time\np = subprocess.Popen(["sleep", "30"])\nprint("started", p.pid, flush=True)\ntime.sleep(30)`,
    node: `import { spawn } from "node:child_process";\nconst c = spawn("sleep", ["30"], { stdio: "ignore" });\nconsole.log("started", c.pid);\nawait new Promise((r) => setTimeout(r, 30000));`,
  },
  loud: {
    python: `print("start")\nfor i in range(20000): print("x" * 20)\nprint("the end")`,
    node: `console.log("start");\nfor (let i = 0; i < 20000; i++) console.log("x".repeat(20));\nconsole.log("the end");`,
  },
  broken: { python: `def f(:\n  pass`, node: `const x = ;` },
  manyCalls: {
    python: `from hermes_tools import read_file\nfor i in range(1, 4):\n    r = read_file(f"note{i}.txt")\n    print(r.get("error") or "ok")`,
    node: `import { read_file } from "hermes_tools";\nfor (let i = 1; i <= 3; i++) { const r = await read_file({ path: \`note\${i}.txt\` }); console.log(r.error ?? "ok"); }`,
  },
  badArgs: {
    python: `from hermes_tools import call_tool\nprint(call_tool("read_file", limit=3)["error"])`,
    node: `import { callTool } from "hermes_tools";\nconsole.log((await callTool("read_file", { limit: 3 })).error);`,
  },
} as const;

describe.each(LANGS)("execute_code (%s)", (language) => {
  let rig: CodeRig;
  beforeEach(async () => {
    rig = await makeCodeRig({ language, timeout_s: 20 }, { ...process.env, OPENAI_API_KEY: "sk-live-secret-value", EXTRA_OK: "passed" });
  });
  afterEach(async () => rig.close());

  it("a script calls read_file, terminal and web_search through the socket; only its output comes back", async () => {
    const r = await rig.run(S.threeTools[language]);
    expect(r).toMatchObject({ status: "success", exit_code: 0, tool_calls_made: 3, language });
    expect(r["output"]).toContain("     1|note 2");
    expect(r["output"]).toContain("from-shell 0");
    expect(r["output"]).toMatch(/socket rpc: Result one.*socket rpc: Result two/);
    expect(new URLSearchParams(rig.web.requests.at(-1)!.body).get("q")).toBe("socket rpc");
  });

  it("exposes only allowed tools: others, execute_code included, are refused by name", async () => {
    const r = await rig.run(S.forbidden[language]);
    const lines = String(r["output"]).trim().split("\n");
    expect(lines[0]).toContain(
      "Tool 'memory' is not available in execute_code. Available: patch, read_file, search_files, terminal, web_extract, web_search, write_file",
    );
    expect(lines[1]).toContain("Tool 'execute_code' is not available");
    expect(r["tool_calls_made"]).toBe(0);
  });

  it("offers only the tools the agent run has", async () => {
    const r = await rig.run(S.threeTools[language], undefined, ["file", "code_execution"]);
    expect(r["status"]).toBe("error");
    expect(r["error"]).toMatch(/terminal|web_search/);
  });

  it("sends a dangerous terminal command through the same approval policy", async () => {
    const denied = await rig.run(S.dangerous[language]);
    expect(denied["output"].trim()).toBe("blocked");
    expect(rig.approver.requests.map((q) => q.req.command)).toEqual(["rm -rf ./build"]);
    rig.approver.setAnswer(choose("once"));
    expect((await rig.run(S.dangerous[language]))["output"].trim()).toBe("ok");
  });

  it("runs in the working directory with a clean environment: no secrets, only allow-listed names", async () => {
    const r = await rig.run(S.environment[language]);
    const [cwd, keys, secrets, socket] = String(r["output"]).trim().split("\n");
    expect(cwd).toBe(rig.dir);
    expect(keys).not.toContain("OPENAI_API_KEY");
    expect(keys).not.toContain("EXTRA_OK");
    expect(keys).not.toContain("NODE_OPTIONS");
    expect(secrets).toMatch(/^(None None|undefined undefined)$/);
    // The socket lived in a private directory that is gone once the run ended.
    expect(socket).toMatch(/hermes-code-.*\/rpc\.sock$/);
    expect(existsSync(socket!)).toBe(false);
    expect(existsSync(dirname(socket!))).toBe(false);
  });

  it("kills the script and everything it started at the timeout", async () => {
    await rig.close();
    rig = await makeCodeRig({ language, timeout_s: 1 });
    const started = Date.now();
    const r = await rig.run(S.sleepy[language]);
    expect(r["status"]).toBe("timeout");
    const pid = Number(/started (\d+)/.exec(r["output"])?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(r["error"]).toContain("longer than 1 s");
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it("stops at once when the turn is interrupted", async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 400);
    const started = Date.now();
    const r = await rig.run(S.sleepy[language], ctl.signal);
    expect(r["status"]).toBe("interrupted");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("caps the output, keeping its start and end", async () => {
    await rig.close();
    rig = await makeCodeRig({ language, max_output_chars: 3000 });
    const r = await rig.run(S.loud[language]);
    expect(r["status"]).toBe("success");
    expect(r["output"]).toMatch(/^start\n/);
    expect(r["output"]).toMatch(/the end\n?$/);
    expect(r["output"]).toContain("characters of output omitted");
    expect(r["output"].length).toBeLessThan(3300);
  });

  it("returns the interpreter's error for a broken script", async () => {
    const r = await rig.run(S.broken[language]);
    expect(r["status"]).toBe("error");
    expect(r["error"]).toMatch(/SyntaxError/);
  });

  it("stops tool calls at max_tool_calls", async () => {
    await rig.close();
    rig = await makeCodeRig({ language, max_tool_calls: 2 });
    const r = await rig.run(S.manyCalls[language]);
    expect(String(r["output"]).trim().split("\n")).toEqual(["ok", "ok", "Tool call limit reached (2). No more tool calls in this script."]);
    expect(r["tool_calls_made"]).toBe(2);
  });

  it("validates a call's arguments against the tool's schema", async () => {
    const r = await rig.run(S.badArgs[language]);
    expect(r["output"]).toContain("Invalid arguments for read_file: $.path: is required");
  });
});

describe("execute_code: the tool", () => {
  it("refunds its iteration, names its language once known, and runs only inside an agent run", async () => {
    const rig = await makeCodeRig({ language: "node" });
    try {
      const view = await rig.view();
      const def = view.get("execute_code")!;
      expect(def.refundsIteration).toBe(true);
      expect(view.schemas.find((s) => s.name === "execute_code")!.description).toContain("JavaScript (Node.js");
      const { agent: _agent, ...noRun } = rig.ctx(view);
      const r = JSON.parse(await callTool(def, { code: "console.log(1)" }, noRun, new AbortController().signal));
      expect(r["error"]).toContain("needs an agent run");
    } finally {
      await rig.close();
    }
  });
});

describe("execute_code: results a script reads", () => {
  it("get the tool's JSON without the guidance for the model that may follow it", () => {
    const json = '{"content":"a\\n\\nb","total_lines":2}';
    expect(jsonHead(`${json}\n\n[Checkpoint: update your todo list]`)).toBe(json);
    expect(jsonHead(json)).toBe(json);
    expect(jsonHead("plain text\n\nmore")).toBe("plain text\n\nmore");
    expect(jsonHead("{not json\n\nhint")).toBe("{not json\n\nhint");
  });
});
