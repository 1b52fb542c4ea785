import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeJson } from "../../gateway/terminal-text.js";

const HOSTILE = "Ev\u202Eil\u202C \x1b]0;owned\x07\x1b[31mred\x1b[0m\x1b[2J\rover\nforged line\u009b2J\u2066x\u2069\u200f\x00\x7f";

describe("terminalSafe", () => {
  it("removes escape sequences and shows every other control as a space", () => {
    const out = terminalSafe(HOSTILE);
    expect(out).toBe("Ev il  red over forged line x    ");
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it("leaves ordinary text, emoji and other scripts alone", () => {
    expect(terminalSafe("Grace Hopper 👩‍💻 — 你好 مرحبا")).toBe("Grace Hopper 👩‍💻 — 你好 مرحبا");
  });
});

describe("terminalSafeJson", () => {
  it("escapes what JSON.stringify leaves raw, and the value stays the same", () => {
    const line = JSON.stringify({ name: HOSTILE });
    const safe = terminalSafeJson(line);
    expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(safe)).toEqual({ name: HOSTILE });
  });
});

describe("doctor's lines", () => {
  it("are terminal-safe whatever the daemon's /readyz said", async () => {
    const { formatSetupLines } = await import("../../gateway/setup-report.js");
    const out = formatSetupLines([{ subject: "mcp files", status: "error", message: `failed: ${HOSTILE}` }]);
    expect(out).toBe("✗ mcp files            failed: Ev il  red over forged line x    ");
  });
});
