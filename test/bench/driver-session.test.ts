/**
 * The daemon benchmark's load driver runs itself again in a Linux session of
 * its own at a lower group niceness (bench/driver-session.ts). A small script
 * stands in for the bench: it calls driverSession() and, where it is to run
 * the bench, reports its pid, session and autogroup and exits with code 7,
 * which the first process must hand on.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { autogroupsEnabled } from "../../tools/shared/autogroup.js";

const SESSION = fileURLToPath(new URL("../../bench/driver-session.ts", import.meta.url));

interface Ran {
  readonly code: number | null;
  readonly pid: number;
  readonly sid: number;
  readonly group: string;
  readonly note: string;
  readonly outerPid: number;
}

let dir = "";
let script = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hermes-driver-session-"));
  script = join(dir, "bench.mjs");
  await writeFile(
    script,
    `
    import { readFileSync } from "node:fs";
    const { driverSession } = await import(${JSON.stringify(SESSION)});
    const outerPid = Number(process.env.OUTER_PID ?? process.pid);
    process.env.OUTER_PID = String(outerPid);
    const s = await driverSession(Number(process.argv[2]));
    if (s.kind === "exited") {
      process.exitCode = s.code;
    } else {
      // /proc/self/stat: the session id is the 6th field, counted after the command's closing parenthesis.
      const stat = readFileSync("/proc/self/stat", "utf8");
      const sid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
      const group = readFileSync("/proc/self/autogroup", "utf8").trim();
      process.stdout.write(JSON.stringify({ pid: process.pid, sid, group, note: s.note, outerPid }));
      process.exitCode = 7;
    }
    `,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(nice: number): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", script, String(nice)], { timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      if (!stdout.startsWith("{")) return reject(new Error(`no report (code ${code}): ${stderr}`));
      resolve({ code, ...(JSON.parse(stdout) as Omit<Ran, "code">) });
    });
  });
}

describe.runIf(autogroupsEnabled())("driverSession (Linux autogroups)", () => {
  it("runs the bench again as a session leader at the given group niceness and hands on its exit code", async () => {
    const ownGroup = readFileSync("/proc/self/autogroup", "utf8");
    const r = await run(5);
    expect(r.code).toBe(7);
    expect(r.pid).not.toBe(r.outerPid); // a second process ran the bench…
    expect(r.sid).toBe(r.pid); // …leading a session of its own…
    expect(r.group).toMatch(/nice 5$/); // …whose group has the niceness asked for
    expect(r.note).toContain("group niceness 5");
    expect(readFileSync("/proc/self/autogroup", "utf8")).toBe(ownGroup); // the caller's group is untouched
  });

  it("leaves the bench where it was started with --driver-nice=0", async () => {
    const r = await run(0);
    expect(r.code).toBe(7);
    expect(r.pid).toBe(r.outerPid);
    expect(r.sid).not.toBe(r.pid);
    expect(r.note).toContain("--driver-nice=0");
  });
});
