/** The tests' own waits: `until` (vi.waitFor on real time) and ChildOutput (on a child's output, as it arrives). */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { ChildOutput } from "./fakes/child-output.js";
import { until } from "./wait.js";

const node = (script: string) => spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });

describe("until", () => {
  it("resolves with the first truthy value, from a plain or an async check", async () => {
    let n = 0;
    expect(await until(() => ++n >= 3 && n, "the third check", 2000, 5)).toBe(3);
    expect(await until(async () => "found", "an async check", 2000)).toBe("found");
  });

  it("rejects naming what it waited for after the timeout", async () => {
    await expect(until(() => false, "the impossible", 60, 10)).rejects.toThrow("timed out after 60 ms waiting for the impossible");
  });
});

describe("ChildOutput", () => {
  it("resolves when the output shows what is waited for, and keeps both outputs", async () => {
    const child = node(`console.error("warming up"); setTimeout(() => console.log("ready 42"), 50); setTimeout(() => {}, 10_000);`);
    const output = new ChildOutput(child);
    try {
      const port = await output.until(() => /ready (\d+)/.exec(output.stdout())?.[1], "the ready line", 5000);
      expect(port).toBe("42");
      expect(output.stderr()).toContain("warming up");
    } finally {
      child.kill();
    }
  });

  it("fails at once, with what the process printed, when it ends without it", async () => {
    const child = node(`console.log("bye")`);
    const output = new ChildOutput(child);
    const started = Date.now();
    await expect(output.until(() => (output.stdout().includes("never") ? true : undefined), "the line", 20_000)).rejects.toThrow(
      /the line: the process ended; stdout:\nbye/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(output.until(() => undefined, "after the end", 20_000)).rejects.toThrow("after the end: the process ended");
  });

  it("fails after the timeout when the process stays silent", async () => {
    const child = node(`setTimeout(() => {}, 10_000)`);
    const output = new ChildOutput(child);
    try {
      await expect(output.until(() => undefined, "a word", 100)).rejects.toThrow("a word: not within 100 ms");
    } finally {
      child.kill();
      await once(child, "close");
    }
  });
});
