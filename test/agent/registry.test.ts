import { describe, expect, it } from "vitest";
import { ArgsCompiler } from "../../agent/tools/args-compiler.js";
import { ToolRegistry } from "../../agent/tools/registry.js";
import type { ToolDefinition } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { tool } from "./helpers.js";

const inSet = (name: string, toolset: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({ ...tool(name, async () => "{}"), toolset, ...extra });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof HermesError ? err.code : "not a HermesError";
  }
  return undefined;
}

describe("ToolRegistry: registration", () => {
  it("refuses to let another toolset take a name, unless both are MCP", () => {
    const r = new ToolRegistry();
    r.register(inSet("read_file", "file"));
    expect(codeOf(() => r.register(inSet("read_file", "plugin-x")))).toBe("HGW_ERR_TOOL_CONFLICT");
    expect(codeOf(() => r.register(inSet("read_file", "mcp-files")))).toBe("HGW_ERR_TOOL_CONFLICT");
    expect(r.get("read_file")?.toolset).toBe("file");

    r.register(inSet("search", "mcp-github"));
    expect(codeOf(() => r.register(inSet("search", "mcp-gitlab")))).toBeUndefined();
    expect(r.get("search")?.toolset).toBe("mcp-gitlab");
    // Same toolset re-registering is a refresh.
    expect(codeOf(() => r.register(inSet("read_file", "file", { maxResultChars: 5 })))).toBeUndefined();
    expect(r.maxResultChars("read_file")).toBe(5);
  });

  it("rejects malformed definitions", () => {
    const r = new ToolRegistry();
    const bad = { ...inSet("a", "x"), schema: { name: "b", description: "", parameters: { type: "object" } } };
    expect(codeOf(() => r.register(bad))).toBe("HGW_ERR_TOOL_SCHEMA");
    const notObject = { ...inSet("a", "x"), schema: { name: "a", description: "", parameters: { type: "string" } } };
    expect(codeOf(() => r.register(notObject))).toBe("HGW_ERR_TOOL_SCHEMA");
  });

  it("bumps the generation on every change and rebuilds cached views", async () => {
    const r = new ToolRegistry();
    const g0 = r.generation;
    r.register(inSet("a", "s"));
    const v1 = await r.view(["s"]);
    expect(await r.view(["s"])).toBe(v1);
    r.register(inSet("b", "s"));
    expect(r.generation).toBe(g0 + 2);
    const v2 = await r.view(["s"]);
    expect(v2).not.toBe(v1);
    expect(v2.schemas.map((s) => s.name)).toEqual(["a", "b"]);
    expect(r.deregister("a")).toBe(true);
    expect(r.deregister("a")).toBe(false);
    expect((await r.definitions(["s"])).map((s) => s.name)).toEqual(["b"]);
    const g = r.generation;
    r.invalidate();
    expect(r.generation).toBe(g + 1);
    r.register(inSet("m1", "mcp-x"));
    r.register(inSet("m2", "mcp-x"));
    expect(r.deregisterToolset("mcp-x")).toEqual(["m1", "m2"]);
  });
});

describe("ToolRegistry: availability cache", () => {
  it("probes at most once per 30 s on the injected clock and drops unavailable tools", async () => {
    const clock = new FakeClock({ start: 1_000 });
    let probes = 0;
    let up = true;
    const r = new ToolRegistry({ clock });
    r.register(inSet("docker", "terminal", { available: () => (probes++, up) }));
    r.register(inSet("always", "terminal"));

    expect((await r.definitions(["terminal"])).map((s) => s.name)).toEqual(["always", "docker"]);
    up = false;
    await clock.advance(29_999);
    expect((await r.definitions(["terminal"])).map((s) => s.name)).toEqual(["always", "docker"]);
    expect(await r.available("docker")).toBe(true);
    expect(probes).toBe(1);
    await clock.advance(1);
    expect((await r.definitions(["terminal"])).map((s) => s.name)).toEqual(["always"]);
    expect(probes).toBe(2);
  });

  it("treats a throwing or rejecting probe as unavailable", async () => {
    const r = new ToolRegistry();
    r.register(
      inSet("a", "s", {
        available: () => {
          throw new Error("no docker");
        },
      }),
    );
    r.register(inSet("b", "s", { available: () => Promise.reject(new Error("nope")) }));
    r.register(inSet("c", "s", { available: () => Promise.resolve(true) }));
    expect((await r.definitions(["s"])).map((s) => s.name)).toEqual(["c"]);
  });
});

describe("ToolRegistry: schemas, overrides and validation", () => {
  const limited = (): ToolDefinition => ({
    ...tool("delegate", async () => "{}", { properties: { tasks: { type: "array", items: { type: "string" } } }, required: ["tasks"] }),
    toolset: "delegation",
  });

  it("applies a dynamic schema override and validates against the advertised schema", async () => {
    const r = new ToolRegistry();
    const maxConcurrent = 2;
    r.register(limited(), {
      schemaOverride: (s) => ({
        description: `Spawn up to ${maxConcurrent} parallel subagents.`,
        parameters: { ...s.parameters, properties: { tasks: { type: "array", items: { type: "string" }, maxItems: maxConcurrent } } },
      }),
    });
    const view = await r.view(["delegation"]);
    expect(view.schemas[0]!.description).toBe("Spawn up to 2 parallel subagents.");
    expect(view.validateArgs("delegate", { tasks: ["a", "b", "c"] })).toMatchObject({ ok: false, message: "$.tasks: must have at most 2 items (got 3)" });
    expect(r.validateArgs("delegate", { tasks: ["a"] })).toEqual({ ok: true, args: { tasks: ["a"] } });
    expect(r.validateArgs("delegate", {})).toMatchObject({ ok: false, message: "$.tasks: is required" });
    expect(r.validateArgs("nope", {})).toMatchObject({ ok: false });
    r.setSchemaOverride("delegate", undefined);
    expect((await r.view(["delegation"])).schemas[0]!.description).toBe("delegate tool");
  });

  it("exposes only tools the enabled toolsets reach, honouring exclusions", async () => {
    const r = new ToolRegistry({ defaultMaxResultChars: 1234 });
    for (const name of ["read_file", "write_file", "patch", "search_files"]) r.register(inSet(name, "file"));
    r.register(inSet("terminal", "terminal"));
    r.register(inSet("gh_search", "mcp-github"));
    const names = async (enabled: string[], exclude = {}) => (await r.definitions(enabled, exclude)).map((s) => s.name);
    expect(await names(["file"])).toEqual(["patch", "read_file", "search_files", "write_file"]);
    expect(await names(["hermes-cli"])).toEqual(["gh_search", "patch", "read_file", "search_files", "terminal", "write_file"]);
    expect(await names(["hermes-cli"], { toolsets: ["file"], tools: ["gh_search"] })).toEqual(["terminal"]);
    const view = await r.view(["file"]);
    expect(view.get("terminal")).toBeUndefined();
    expect(view.maxResultChars("read_file")).toBe(1234);
  });
});

const compiler = new ArgsCompiler();

/** The issues ajv finds, as "path: message" lines. */
function issues(schema: Record<string, unknown>, value: Record<string, unknown>, origin: "own" | "foreign" = "own"): string[] {
  const check = compiler.compile(schema, origin).check(value);
  return check.ok ? [] : check.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("argument validation (ajv)", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1 },
      mode: { enum: ["r", "w"] },
      count: { type: "integer", minimum: 0, maximum: 10 },
      tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      opts: { type: "object", properties: { deep: { type: "boolean" } }, additionalProperties: false },
      either: { anyOf: [{ type: "string" }, { type: "number" }] },
      ref: { $ref: "#/$defs/name" },
      nullable: { type: ["string", "null"] },
      "odd key": { type: "string", pattern: "^[a-z]+$" },
    },
    required: ["path"],
    $defs: { name: { type: "string", maxLength: 3 } },
  };
  it.each([
    [{ path: "a" }, []],
    [{}, ["$.path: is required"]],
    [{ path: 5 }, ["$.path: expected string, got integer 5"]],
    [{ path: "" }, ["$.path: must be at least 1 character long (got 0)"]],
    [{ path: "a", mode: "x" }, ['$.mode: must be one of "r", "w", got "x"']],
    [{ path: "a", count: 1.5 }, ["$.count: expected integer, got number"]],
    [{ path: "a", count: 11 }, ["$.count: must be <= 10, got 11"]],
    [{ path: "a", tags: ["x", 2] }, ["$.tags[1]: expected string, got integer 2"]],
    [{ path: "a", tags: ["x", "y", "z"] }, ["$.tags: must have at most 2 items (got 3)"]],
    [{ path: "a", opts: { deep: true, extra: 1 } }, ["$.opts.extra: is not an allowed property (allowed: deep)"]],
    [{ path: "a", either: true }, ["$.either: does not match any of the 2 allowed shapes (anyOf): expected string or number, got boolean"]],
    [{ path: "a", either: 3 }, []],
    [{ path: "a", ref: "long" }, ["$.ref: must be at most 3 characters long (got 4)"]],
    [{ path: "a", nullable: null }, []],
    [{ path: "a", "odd key": "ABC" }, ['$["odd key"]: must match the pattern ^[a-z]+$, got "ABC"']],
    [{ path: "a", unknownExtra: 1 }, []],
  ])("%j → %j", (value, expected) => {
    expect(issues(schema, value)).toEqual(expected);
  });

  it("ignores keywords it does not know in a foreign schema instead of rejecting the call", () => {
    expect(issues({ type: "object", properties: { a: { type: "string", format: "email", "x-custom": 1 } } }, { a: "nope" }, "foreign")).toEqual([]);
  });
});
