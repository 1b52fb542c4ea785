/**
 * `hermes-gateway <command> --help` for every command, found by iterating the
 * command tables, so a command added without its help fails here; and the
 * overview (`hermes-gateway --help`) names exactly the commands there are.
 */
import { describe, expect, it } from "vitest";
import { COMMANDS, HELP, main, OWN_OPTIONS } from "../../gateway/cli/main.js";
import { captureIo } from "./helpers.js";

const names = [...Object.keys(COMMANDS), ...Object.keys(OWN_OPTIONS)];

describe("hermes-gateway <command> --help", () => {
  it("has more than the handful of commands it started with", () => {
    expect(names.length).toBeGreaterThan(8);
  });

  for (const name of names) {
    it(`${name} --help (and -h) prints its own usage and exits 0`, async () => {
      for (const flag of ["--help", "-h"]) {
        const io = captureIo();
        expect(await main([name, flag], { HERMES_HOME: "/nonexistent/hermes-help-test" }, io)).toBe(0);
        expect(io.stdout()).toMatch(new RegExp(`^Usage: hermes-gateway ${name}\\b`));
        expect(io.stdout()).not.toBe(HELP);
        expect(io.stderr()).toBe("");
      }
    });
  }

  it("the overview lists every command, and nothing that is not one", () => {
    const listed = new Set([...HELP.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1] as string));
    expect([...listed].sort()).toEqual([...names].sort());
  });

  it("a command that does not exist is a usage error with the overview", async () => {
    const io = captureIo();
    expect(await main(["frobnicate", "--help"], {}, io)).toBe(0);
    expect(io.stdout()).toBe(HELP);
    const bad = captureIo();
    expect(await main(["frobnicate"], {}, bad)).toBe(64);
    expect(bad.stderr()).toContain("unknown command: frobnicate");
  });
});
