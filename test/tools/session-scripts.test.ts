/**
 * Scripts written during the session are judged by their contents when a
 * command runs them: a shell script, a Makefile (with its includes), a
 * package.json's scripts, a script that runs another script — through the
 * same guard as a command typed at the prompt, deny rules included. An
 * interpreter script or a compiled program written during the session needs
 * approval; scripts older than the session are the user's and run as before.
 * End to end: with no approval channel, the victim directory survives.
 */
import { chmod, mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../agent/types.js";
import type { Config } from "../../config/schema.js";
import { type Category, DANGEROUS as D, HARDLINE as H } from "../../tools/approval/guard-types.js";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import { createWriteFileTool } from "../../tools/files/index.js";
import { ProcessRegistry } from "../../tools/terminal/processes.js";
import { createTerminalTool } from "../../tools/terminal/terminal-tool.js";
import { approvalsConfig, makeContext, ScriptedApprover } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";
import { parse, tempDir } from "./core-tools-context.js";

let root: string;
let cleanup: () => Promise<void>;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir("hgw-scripts-"));
  home = join(root, "home");
  cwd = join(home, "proj");
  await mkdir(join(home, "victim"), { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(join(home, "victim/precious.txt"), "keep me\n");
});
afterEach(() => cleanup());

function policyFor(o: { sessionStart?: number; approvals?: Partial<Config["approvals"]> } = {}) {
  return createApprovalPolicy({
    approvals: approvalsConfig(o.approvals),
    guard: { home, hermesHome: join(home, ".hermes") },
    ...(o.sessionStart !== undefined ? { sessionStart: o.sessionStart } : {}),
  });
}

const noChannel = () => makeContext({ approver: new ScriptedApprover(() => null), cwd, home: join(home, ".hermes") });

async function files(entries: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(cwd, name, ".."), { recursive: true });
    await writeFile(join(cwd, name), text);
    if (name.endsWith(".sh") || !name.includes(".")) await chmod(join(cwd, name), 0o755);
  }
}

type Case = readonly [label: string, written: Record<string, string>, command: string, tier: "hardline" | "dangerous" | "safe", category: Category | null];

const CASES: readonly Case[] = [
  ["bash x.sh", { "x.sh": "rm -rf ~/victim\n" }, "bash x.sh", "dangerous", D.recursiveDelete],
  ["sh ./x.sh", { "x.sh": "rm -rf ~/victim\n" }, "sh ./x.sh", "dangerous", D.recursiveDelete],
  ["./x.sh", { "x.sh": "#!/bin/sh\nrm -rf ~/victim\n" }, "./x.sh", "dangerous", D.recursiveDelete],
  ["source", { "lib/env.sh": "rm -rf ~/victim\n" }, "source lib/env.sh", "dangerous", D.recursiveDelete],
  ["a script in a directory cd-ed into", { "tools/x.sh": "rm -rf ~/victim\n" }, "cd tools && bash x.sh", "dangerous", D.recursiveDelete],
  ["hardline inside", { "x.sh": "echo start\nrm -rf /\n" }, "bash x.sh", "hardline", H.rootDelete],
  ["a script that runs a script", { "a.sh": "bash b.sh\n", "b.sh": "rm -rf ~/victim\n" }, "bash a.sh", "dangerous", D.recursiveDelete],
  ["make", { Makefile: "all:\n\t@echo building\n\trm -rf ~/victim\n" }, "make", "dangerous", D.recursiveDelete],
  ["make -f", { "build.mk": "VICTIM := ~/victim\nclean:\n\t$(RM) -r $(VICTIM)\n" }, "make -f build.mk clean", "dangerous", D.recursiveDelete],
  [
    "make with an included makefile",
    { Makefile: "include rules.mk\nall:\n\techo ok\n", "rules.mk": "x:\n\trm -rf ~/victim\n" },
    "make all",
    "dangerous",
    D.recursiveDelete,
  ],
  ["$(shell …) in a Makefile", { Makefile: "X := $(shell rm -rf ~/victim)\nall:\n\techo ok\n" }, "make", "dangerous", D.recursiveDelete],
  ["npm test", { "package.json": JSON.stringify({ scripts: { test: "rm -rf ~/victim" } }) }, "npm test", "dangerous", D.recursiveDelete],
  ["an install lifecycle script", { "package.json": JSON.stringify({ scripts: { postinstall: "reboot" } }) }, "npm install", "hardline", H.shutdown],
  ["yarn SCRIPT", { "package.json": JSON.stringify({ scripts: { prebuild: "rm -rf ~/victim", build: "tsc" } }) }, "yarn build", "dangerous", D.recursiveDelete],
  ["python x.py", { "x.py": "import shutil, os\nshutil.rmtree(os.path.expanduser('~/victim'))\n" }, "python3 x.py", "dangerous", D.sessionScript],
  ["python x.py running a shell command", { "x.py": "import os\nos.system('rm -rf /')\n" }, "python3 x.py", "hardline", H.rootDelete],
  ["node x.js", { "x.js": "require('fs').rmSync(process.env.HOME + '/victim', { recursive: true })\n" }, "node x.js", "dangerous", D.sessionScript],
  ["./x.py with a shebang", { "x.py": "#!/usr/bin/env python3\nimport shutil\n" }, "./x.py", "dangerous", D.sessionScript],
  ["a compiled program", { prog: "\u007fELF\u0000\u0000binary" }, "./prog", "dangerous", D.sessionScript],
];

/** Written during the session and harmless: these run without asking. */
const HARMLESS: readonly (readonly [written: Record<string, string>, command: string])[] = [
  [{ "ok.sh": "echo hello\nls -la\n" }, "bash ok.sh"],
  [{ "ok.mk": "all:\n\techo ok\n" }, "make -f ok.mk"],
  [{ "pkg/package.json": JSON.stringify({ scripts: { clean: "rm -rf ~/victim", test: "echo ok" } }) }, "npm --prefix pkg test"],
];

describe("policy: scripts written during the session are judged by their contents", () => {
  it.each(CASES)("%s", async (_label, written, command, tier, category) => {
    await files(written);
    const decision = await policyFor({ sessionStart: Date.now() - 60_000 }).check(command, noChannel(), new AbortController().signal);
    expect(decision.analysis.tier).toBe(tier);
    if (category) expect(decision.analysis.findings.map((f) => f.category)).toContain(category.key);
    expect(decision.allowed).toBe(tier === "safe");
  });

  it("applies deny rules to what the script runs", async () => {
    await files({ "x.sh": "rm -rf ~/victim\n" });
    const decision = await policyFor({ sessionStart: 0, approvals: { deny: ["rm -rf *"], mode: "off" } }).check(
      "bash x.sh",
      noChannel(),
      new AbortController().signal,
    );
    expect(decision).toMatchObject({ allowed: false, via: "deny_rule" });
  });

  it("refuses a harmful script and lets harmless ones run", async () => {
    const policy = policyFor({ sessionStart: 0 });
    for (const [written, command] of HARMLESS) {
      await files(written);
      expect(await policy.check(command, noChannel(), new AbortController().signal)).toMatchObject({ allowed: true, via: "safe" });
    }
    await files({ "x.sh": "echo hello\nrm -rf ~/victim\n" });
    expect(await policy.check("bash x.sh", noChannel(), new AbortController().signal)).toMatchObject({ allowed: false, code: "HGW_ERR_NO_APPROVAL_CHANNEL" });
  });

  it("leaves scripts older than the session alone, and judges them again once rewritten", async () => {
    await files({ "x.sh": "rm -rf ~/victim\n", "x.py": "import shutil\n" });
    // The session starts after both were written (on a busy machine the second may be written a few ms later).
    const written = Math.max(...(await Promise.all(["x.sh", "x.py"].map(async (f) => (await stat(join(cwd, f))).ctimeMs))));
    const policy = policyFor({ sessionStart: written + 1 });
    expect((await policy.check("bash x.sh", noChannel(), new AbortController().signal)).analysis.tier).toBe("safe");
    expect((await policy.check("python3 x.py", noChannel(), new AbortController().signal)).analysis.tier).toBe("safe");
    await new Promise((r) => setTimeout(r, 5));
    await files({ "x.sh": "rm -rf ~/victim\n" });
    expect((await policy.check("bash x.sh", noChannel(), new AbortController().signal)).analysis.tier).toBe("dangerous");
  });
});

describe("terminal and write_file under one policy, no approval channel", () => {
  it("a script written with write_file and then run does not delete the victim", async () => {
    const policy = policyFor();
    const registry = new ProcessRegistry({ killGraceMs: 200 });
    const terminal = createTerminalTool({ policy, registry, env: { ...process.env, HOME: home } }) as unknown as ToolDefinition;
    const write = createWriteFileTool({ policy });
    const ctx = noChannel();
    try {
      for (const [name, content, command] of [
        ["wipe.sh", "#!/bin/sh\nrm -rf ~/victim\n", "sh wipe.sh"],
        ["Makefile", "all:\n\trm -rf $$HOME/victim\n", "make"],
        ["wipe.py", "import shutil, os\nshutil.rmtree(os.path.expanduser('~/victim'))\n", "python3 wipe.py"],
      ] as const) {
        expect(parse(await callTool(write, { path: join(cwd, name), content }, ctx, new AbortController().signal)).success).toBe(true);
        const r = parse(await callTool(terminal, { command }, ctx, new AbortController().signal));
        expect(r).toMatchObject({ status: "blocked", code: "HGW_ERR_NO_APPROVAL_CHANNEL" });
      }
      expect((await stat(join(home, "victim/precious.txt"))).isFile()).toBe(true);
    } finally {
      await registry.shutdown();
    }
  });
});
