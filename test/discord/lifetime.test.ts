/**
 * stop() leaves nothing behind: the process that ran the adapter ends on its
 * own right after, with no timer, socket or handle keeping it alive.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("./fixtures/adapter-lifetime.ts", import.meta.url));

describe("Discord adapter lifetime", () => {
  it("after stop() the process exits at once, the socket closed with 1000", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    // A process that does not end by itself is ended here, so a failing run leaves nothing behind either.
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const [code] = (await once(child, "exit")) as [number];
    const exitedAt = Date.now();
    clearTimeout(killer);
    expect(code, err).toBe(0);
    const report = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { stopped: number; closes: number[]; resources: string[] };
    expect(report.closes).toEqual([4200, 1000]);
    // A timer or a ref'd socket left behind (discord.js's REST sweepers, a keep-alive connection: 4 s) would hold it up.
    expect(exitedAt - report.stopped, `still active at stop: ${report.resources.join(", ")}`).toBeLessThan(1000);
  }, 30_000);
});
