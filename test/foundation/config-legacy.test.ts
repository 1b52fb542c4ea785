/** Keys of earlier releases keep loading after an upgrade, mapped onto today's keys. */
import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError } from "../../config/index.js";

const build = (yamlText: string) => buildConfig({ yamlText, env: {}, file: "config.yaml", home: "/h" });

describe("legacy agent.guardrails keys", () => {
  it("mode: block turns hard stops on with its thresholds as the hard-stop counts", () => {
    const g = build("agent:\n  guardrails:\n    mode: block\n    exact_failure_threshold: 4\n    no_progress_threshold: 6\n").agent.guardrails;
    expect(g.hard_stop_enabled).toBe(true);
    expect(g.hard_stop_after).toEqual({ exact_failure: 4, same_tool_failure: 8, idempotent_no_progress: 6 });
    expect(g.warn_after).toEqual({ exact_failure: 2, same_tool_failure: 3, idempotent_no_progress: 2 });
  });

  it("mode: warn (or thresholds alone) become the warning counts", () => {
    const g = build("agent:\n  guardrails:\n    same_tool_failure_threshold: 7\n").agent.guardrails;
    expect(g.hard_stop_enabled).toBe(false);
    expect(g.warn_after.same_tool_failure).toBe(7);
    expect(build("agent:\n  guardrails:\n    mode: warn\n").agent.guardrails.warn_after.exact_failure).toBe(2);
  });

  it("today's keys win over a legacy threshold given beside them", () => {
    const g = build("agent:\n  guardrails:\n    exact_failure_threshold: 9\n    warn_after:\n      exact_failure: 3\n").agent.guardrails;
    expect(g.warn_after.exact_failure).toBe(3);
  });

  it("an unknown mode is still an error with its path", () => {
    expect(() => build("agent:\n  guardrails:\n    mode: explode\n")).toThrow(ConfigError);
    try {
      build("agent:\n  guardrails:\n    mode: explode\n");
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.path)).toContain("agent.guardrails.mode");
    }
  });
});
