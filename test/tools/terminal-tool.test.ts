/**
 * The terminal tool with real child processes: output and exit codes,
 * workdir, timeout, ANSI stripping, redaction, the output cap, the policy
 * in front of every command, and killing the whole process group when the
 * turn is interrupted.
 */
import { existsSync } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { literalRedactor } from "../../tools/common/redact.js";
import { until } from "./approval-helpers.js";
import { alive, groupMembers, makeRig, pgidOf, pidsFrom, type Rig } from "./terminal-helpers.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function setup(opts: Parameters<typeof makeRig>[0] = {}): Promise<Rig> {
  rig = await makeRig(opts);
  return rig;
}

describe("terminal: foreground commands", () => {
  it("returns stdout and stderr, the exit code and the duration", async () => {
    const r = await (await setup()).run({ command: "echo hello; echo oops >&2; exit 3" });
    expect(r.output).toBe("hello\noops\n");
    expect(r).toMatchObject({ exit_code: 3, status: "error" });
    expect(typeof r.duration_s).toBe("number");
  });

  it("reports success with status ok", async () => {
    const r = await (await setup()).run({ command: "printf 'a\\nb\\n' | wc -l" });
    expect(r).toMatchObject({ exit_code: 0, status: "ok" });
    expect(String(r.output).trim()).toBe("2");
  });

  it("runs in workdir resolved against the session's working directory", async () => {
    const t = await setup();
    await mkdir(join(t.dir, "sub"));
    const r = await t.run({ command: "pwd", workdir: "sub" });
    expect(String(r.output).trim()).toBe(await realpath(join(t.dir, "sub")));
    const missing = await t.run({ command: "pwd", workdir: "nope" });
    expect(missing).toMatchObject({ status: "error", exit_code: -1 });
    expect(String(missing.error)).toContain("workdir does not exist");
  });

  it("kills a command that outlives its timeout, children included", async () => {
    const t = await setup();
    const started = Date.now();
    const r = await t.run({ command: "sleep 60 & echo $! > bg.pid; sleep 60", timeout: 1 });
    expect(r).toMatchObject({ status: "timeout", exit_code: null });
    expect(String(r.error)).toContain("timeout");
    expect(Date.now() - started).toBeLessThan(10_000);
    const [bg] = await pidsFrom(join(t.dir, "bg.pid"), 1);
    await until(() => !alive(bg as number));
  });

  it("returns when the shell exits even if a stray background job holds the output open", async () => {
    const t = await setup();
    const started = Date.now();
    const r = await t.run({ command: "sleep 30 & echo $! > bg.pid; echo started" });
    const [bg] = await pidsFrom(join(t.dir, "bg.pid"), 1);
    try {
      expect(r).toMatchObject({ status: "ok", exit_code: 0, output: "started\n" });
      expect(String(r.note)).toContain("background=true");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      process.kill(bg as number, "SIGKILL");
    }
  });

  it("strips ANSI escape codes", async () => {
    const r = await (await setup()).run({ command: "printf '\\033[31mred\\033[0m \\033[1mbold\\033[0m\\n'" });
    expect(r.output).toBe("red bold\n");
  });

  it("masks secrets with built-in patterns and the injected redactor", async () => {
    const t = await setup({ redact: literalRedactor(["hunter2-config-secret"]) });
    const r = await t.run({
      command:
        "echo key=sk-proj-abcdefghijklmnop1234567890 gh=ghp_abcdefghijklmnopqrstuvwxyz0123; echo hunter2-config-secret; echo 'Authorization: Bearer abc.def.ghi123'",
    });
    const out = String(r.output);
    expect(out).not.toMatch(/abcdefghijklmnop1234567890|ghp_abcdefghij|hunter2-config-secret|abc\.def\.ghi123/);
    expect(out).toContain("Bearer ***");
  });

  it("caps long output keeping the head and the tail", async () => {
    const t = await setup({ maxOutputChars: 3000 });
    const r = await t.run({ command: "echo START; head -c 200000 /dev/zero | tr '\\0' 'a'; echo; echo END" });
    const out = String(r.output);
    expect(r.truncated).toBe(true);
    expect(out.startsWith("START\n")).toBe(true);
    expect(out.trimEnd().endsWith("END")).toBe(true);
    expect(out).toMatch(/\[\.\.\. \d+ characters of output omitted/);
    expect(out.length).toBeLessThan(3300);
  });
});

describe("terminal: the approval policy runs first", () => {
  it("never runs a hardline command", async () => {
    const t = await setup();
    const r = await t.run({ command: "touch ran.txt && reboot" });
    expect(r).toMatchObject({ status: "blocked", exit_code: -1, code: "HGW_ERR_COMMAND_BLOCKED" });
    expect(String(r.error)).toMatch(/^BLOCKED \(hardline\): system shutdown\/reboot\./);
    expect(existsSync(join(t.dir, "ran.txt"))).toBe(false);
  });

  it("does not run a dangerous command the user denied", async () => {
    const t = await setup({ answer: "deny" });
    await mkdir(join(t.dir, "victim"));
    const r = await t.run({ command: "rm -rf ./victim" });
    expect(r).toMatchObject({ status: "blocked", code: "HGW_ERR_COMMAND_DENIED" });
    expect(String(r.error)).toMatch(/^BLOCKED: Command denied by user\./);
    expect(existsSync(join(t.dir, "victim"))).toBe(true);
    expect(t.approver.requests[0]?.req.command).toBe("rm -rf ./victim");
  });

  it("runs it once approved", async () => {
    const t = await setup({ answer: "once" });
    await mkdir(join(t.dir, "victim"));
    expect(await t.run({ command: "rm -rf ./victim" })).toMatchObject({ status: "ok", exit_code: 0 });
    expect(existsSync(join(t.dir, "victim"))).toBe(false);
  });

  it("rejects malformed arguments with a readable error", async () => {
    const t = await setup();
    expect(await t.run({ command: "  " })).toMatchObject({ status: "error", error: "command must be a non-empty string" });
    expect(await t.run({ command: "ls", timeout: -5 })).toEqual({
      error: "Invalid arguments for terminal: $.timeout: must be >= 1, got -5. Fix the arguments and call the tool again.",
    });
  });
});

describe("terminal: interrupting the turn", () => {
  it("kills the whole process group — SIGTERM then SIGKILL — and leaves no descendant", async () => {
    const t = await setup();
    const controller = new AbortController();
    // The inner shell ignores SIGTERM, so only the SIGKILL escalation can stop it.
    const command = "bash -c 'trap \"\" TERM; sleep 100 & echo $! >> pids; sleep 100 & echo $! >> pids; echo $$ >> pids; wait'";
    const pending = t.run({ command }, controller.signal);
    const pids = await pidsFrom(join(t.dir, "pids"), 3);
    const pgid = pgidOf(pids[2] as number);
    expect(groupMembers(pgid).length).toBeGreaterThanOrEqual(3);
    const started = Date.now();
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ status: "interrupted" });
    expect(Date.now() - started).toBeLessThan(5_000);
    await until(() => pids.every((p) => !alive(p)), 3_000);
    expect(groupMembers(pgid)).toEqual([]);
  });
});
