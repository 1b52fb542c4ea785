import { describe, expect, it } from "vitest";
import {
  buildToolsetCatalog,
  expandToolsets,
  findToolsetCycle,
  PLATFORM_BUNDLES,
  requestedToolsets,
  resolveToolsets,
  STATIC_TOOLSETS,
  type ToolsetSpec,
} from "../../agent/tools/toolsets.js";
import { HermesError } from "../../config/errors.js";
import { buildConfig } from "../../config/load.js";

const CORE = [
  "clarify",
  "delegate_task",
  "execute_code",
  "memory",
  "patch",
  "process",
  "read_file",
  "search_files",
  "session_search",
  "skill_manage",
  "skill_view",
  "skills_list",
  "terminal",
  "todo",
  "web_extract",
  "web_search",
  "write_file",
];
const config = (yaml = "") => buildConfig({ yamlText: yaml, file: null, env: {}, home: "/tmp/hermes-test-home" });
const sorted = (s: Iterable<string>) => [...s].sort();

describe("toolsets: platform bundles", () => {
  const EXPECTED: Record<(typeof PLATFORM_BUNDLES)[number], string[]> = {
    "hermes-cli": CORE,
    "hermes-telegram": sorted([...CORE, "cronjob", "send_message"]),
    "hermes-discord": sorted([...CORE, "cronjob", "send_message"]),
    "hermes-slack": sorted([...CORE, "cronjob", "send_message"]),
    "hermes-api": sorted([...CORE, "cronjob", "send_message"]),
    // Cron runs: nobody to ask, and no scheduling of more runs.
    "hermes-cron": sorted([...CORE.filter((t) => t !== "clarify"), "send_message"]),
  };
  it.each(PLATFORM_BUNDLES)("%s exposes the core tools (chat platforms also the gateway's own)", (bundle) => {
    const { tools, unknown } = expandToolsets(buildToolsetCatalog(new Map()), [bundle]);
    expect(sorted(tools)).toEqual(EXPECTED[bundle]);
    expect(unknown).toEqual([]);
  });

  it("bundles include every MCP toolset the registry reports; other registered toolsets stay opt-in", () => {
    const catalog = buildToolsetCatalog(
      new Map([
        ["mcp-github", ["gh_search"]],
        ["mcp-linear", ["linear_issue"]],
        ["plugin-x", ["x_tool"]],
      ]),
    );
    const { tools } = expandToolsets(catalog, ["hermes-telegram"]);
    expect(tools.has("gh_search") && tools.has("linear_issue")).toBe(true);
    expect(tools.has("x_tool")).toBe(false);
    expect(expandToolsets(catalog, ["plugin-x"]).tools).toEqual(new Set(["x_tool"]));
  });

  it("a registered toolset with a static name extends it", () => {
    const catalog = buildToolsetCatalog(new Map([["file", ["read_file", "file_stat"]]]));
    expect(catalog.get("file")!.tools).toEqual(["read_file", "write_file", "patch", "search_files", "file_stat"]);
  });
});

describe("toolsets: composition", () => {
  const custom = (specs: Record<string, Partial<ToolsetSpec>>) =>
    buildToolsetCatalog(new Map(), Object.fromEntries(Object.entries(specs).map(([k, v]) => [k, { description: k, tools: [], includes: [], ...v }])));

  it("expands includes transitively, once each, in first-visit order", () => {
    const c = custom({ a: { tools: ["t1"], includes: ["b", "c"] }, b: { tools: ["t2"], includes: ["c"] }, c: { tools: ["t3"] } });
    const r = expandToolsets(c, ["a"]);
    expect(r.toolsets).toEqual(["a", "b", "c"]);
    expect(sorted(r.tools)).toEqual(["t1", "t2", "t3"]);
  });

  it("detects cycles and names them", () => {
    const c = custom({ a: { includes: ["b"] }, b: { includes: ["c"] }, c: { includes: ["a"] }, ok: { tools: ["t"] } });
    let error: unknown;
    try {
      expandToolsets(c, ["a"]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HermesError);
    expect((error as HermesError).code).toBe("HGW_ERR_TOOLSET_CYCLE");
    expect((error as HermesError).message).toContain("a → b → c → a");
    expect(findToolsetCycle(c)).toContain("a → b → c → a");
    expect(findToolsetCycle(buildToolsetCatalog(new Map()))).toBeNull();
    expect(() => expandToolsets(custom({ self: { includes: ["self"] } }), ["self"])).toThrow(/self → self/);
  });

  it("reports unknown names instead of failing", () => {
    const r = expandToolsets(buildToolsetCatalog(new Map()), ["file", "mcp-not-yet", "typo"]);
    expect(r.unknown).toEqual(["mcp-not-yet", "typo"]);
    expect(sorted(r.tools)).toEqual(["patch", "read_file", "search_files", "write_file"]);
  });

  it("a disabled toolset is not entered and removes its tools even when listed elsewhere", () => {
    const c = custom({ a: { tools: ["x"], includes: ["b"] }, b: { tools: ["x", "y"] } });
    expect(sorted(expandToolsets(c, ["a"], { toolsets: ["b"] }).tools)).toEqual([]);
    expect(sorted(expandToolsets(c, ["a"], { tools: ["y"] }).tools)).toEqual(["x"]);
  });

  it("the static data is frozen", () => {
    expect(Object.isFrozen(STATIC_TOOLSETS)).toBe(true);
  });
});

describe("resolveToolsets(config, platform)", () => {
  const catalog = buildToolsetCatalog(new Map([["mcp-gh", ["gh"]]]));
  it.each([
    { name: "platform default bundle", yaml: "", platform: "telegram", requested: ["hermes-telegram"] },
    { name: "CLI uses top-level toolsets", yaml: "toolsets: [file, terminal]", platform: "cli", requested: ["file", "terminal"] },
    {
      name: "platform_toolsets wins",
      yaml: "platform_toolsets: { discord: [file] }\ngateway: { platforms: { discord: { toolsets: [todo] } } }",
      platform: "discord",
      requested: ["file"],
    },
    {
      name: "platform block toolsets",
      yaml: "gateway: { platforms: { slack: { toolsets: [todo, memory] } } }",
      platform: "slack",
      requested: ["todo", "memory"],
    },
    { name: "platform_toolsets for the CLI", yaml: "toolsets: [file]\nplatform_toolsets: { cli: [todo] }", platform: "cli", requested: ["todo"] },
    { name: "api bundle", yaml: "", platform: "api", requested: ["hermes-api"] },
  ])("$name", ({ yaml, platform, requested }) => {
    expect(requestedToolsets(config(yaml), platform)).toEqual(requested);
  });

  it("applies disabled_toolsets and disabled_tools", () => {
    const r = resolveToolsets(config("disabled_toolsets: [terminal, mcp-gh]\ndisabled_tools: [clarify]"), "telegram", catalog);
    expect(r.tools.has("terminal") || r.tools.has("process") || r.tools.has("gh") || r.tools.has("clarify")).toBe(false);
    expect(r.tools.has("read_file")).toBe(true);
    expect(r.toolsets).not.toContain("terminal");
    expect(r.exclude).toEqual({ toolsets: ["terminal", "mcp-gh"], tools: ["clarify"] });
  });
});
