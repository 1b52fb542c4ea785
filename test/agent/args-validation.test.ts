/**
 * Tool arguments checked with ajv: what the model reads for each kind of
 * mistake (one case per JSON Schema keyword, nested paths and arrays
 * included), defaults filled in on a copy, strict own schemas refused when
 * their tool is registered, foreign schemas compiled leniently or left
 * unchecked with the reason.
 */
import { describe, expect, it } from "vitest";
import { ArgsCompiler } from "../../agent/tools/args-compiler.js";
import { ToolRegistry } from "../../agent/tools/registry.js";
import type { ToolDefinition } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { captureLogger } from "../log-capture.js";

const compiler = new ArgsCompiler();

/** What the model reads for `value` (the part after "Invalid arguments for <tool>: "), or "ok". */
function read(properties: Record<string, unknown>, value: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const check = compiler.compile({ type: "object", properties, ...extra }, "own").check(value);
  return check.ok ? "ok" : check.message;
}

describe("argument errors, keyword by keyword", () => {
  it.each([
    ["type", { n: { type: "integer" } }, { n: "5" }, '$.n: expected integer, got string "5"'],
    ["type (a union)", { n: { type: ["string", "null"] } }, { n: 1.5 }, "$.n: expected string or null, got number"],
    ["type (an array given)", { n: { type: "object" } }, { n: [1] }, "$.n: expected object, got array"],
    ["enum", { mode: { type: "string", enum: ["r", "w"] } }, { mode: "x" }, '$.mode: must be one of "r", "w", got "x"'],
    ["const", { k: { const: "yes" } }, { k: "no" }, '$.k: must be "yes", got "no"'],
    ["minLength", { s: { type: "string", minLength: 2 } }, { s: "a" }, "$.s: must be at least 2 characters long (got 1)"],
    [
      "maxLength (counted in characters, not UTF-16 units)",
      { s: { type: "string", maxLength: 2 } },
      { s: "😀😀😀" },
      "$.s: must be at most 2 characters long (got 3)",
    ],
    ["pattern", { s: { type: "string", pattern: "^[a-z]+$" } }, { s: "A1" }, '$.s: must match the pattern ^[a-z]+$, got "A1"'],
    ["minimum", { n: { type: "number", minimum: 1 } }, { n: 0 }, "$.n: must be >= 1, got 0"],
    ["maximum", { n: { type: "number", maximum: 10 } }, { n: 11 }, "$.n: must be <= 10, got 11"],
    ["exclusiveMinimum", { n: { type: "number", exclusiveMinimum: 0 } }, { n: 0 }, "$.n: must be > 0, got 0"],
    ["exclusiveMaximum", { n: { type: "number", exclusiveMaximum: 10 } }, { n: 10 }, "$.n: must be < 10, got 10"],
    ["multipleOf", { n: { type: "number", multipleOf: 5 } }, { n: 12 }, "$.n: must be a multiple of 5, got 12"],
    ["minItems", { t: { type: "array", minItems: 1 } }, { t: [] }, "$.t: must have at least 1 item (got 0)"],
    ["maxItems", { t: { type: "array", maxItems: 2 } }, { t: [1, 2, 3] }, "$.t: must have at most 2 items (got 3)"],
    ["uniqueItems", { t: { type: "array", uniqueItems: true } }, { t: ["a", "b", "a"] }, "$.t: must not repeat an item: [0] and [2] are equal"],
    ["minProperties", { o: { type: "object", minProperties: 1 } }, { o: {} }, "$.o: must have at least 1 property"],
    ["maxProperties", { o: { type: "object", maxProperties: 1 } }, { o: { a: 1, b: 2 } }, "$.o: must have at most 1 property"],
    ["not", { s: { not: { type: "string" } } }, { s: "x" }, "$.s: must not match the shape the schema forbids (not)"],
    ["a false schema", { gone: false }, { gone: 1 }, "$.gone: no value is allowed here"],
  ])("%s", (_keyword, properties, value, expected) => {
    expect(read(properties, value)).toBe(expected);
  });

  it("required, at the top and inside nested objects", () => {
    const props = { path: { type: "string" }, opts: { type: "object", properties: { depth: { type: "integer" } }, required: ["depth"] } };
    expect(read(props, {}, { required: ["path"] })).toBe("$.path: is required");
    expect(read(props, { path: "a", opts: {} }, { required: ["path"] })).toBe("$.opts.depth: is required");
  });

  it("additionalProperties, naming the properties that are allowed", () => {
    expect(read({ a: { type: "string" }, b: { type: "string" } }, { a: "x", c: 1 }, { additionalProperties: false })).toBe(
      "$.c: is not an allowed property (allowed: a, b)",
    );
    expect(read({}, { c: 1 }, { additionalProperties: false })).toBe("$.c: is not an allowed property (allowed: none)");
    expect(read({ m: { type: "object", additionalProperties: { type: "integer" } } }, { m: { ok: 1, bad: "x" } })).toBe(
      '$.m.bad: expected integer, got string "x"',
    );
  });

  it("dependencies: a property that needs another", () => {
    expect(read({ a: { type: "string" }, b: { type: "string" } }, { a: "x" }, { dependencies: { a: ["b"] } })).toBe("$.b: is required when a is given");
  });

  it("paths into arrays of objects, with keys that are not identifiers quoted", () => {
    const props = { edits: { type: "array", items: { type: "object", properties: { line: { type: "integer", minimum: 1 } }, required: ["line"] } } };
    expect(read(props, { edits: [{ line: 2 }, { line: 0 }, {}] })).toBe("$.edits[1].line: must be >= 1, got 0; $.edits[2].line: is required");
    expect(read({ m: { type: "object", additionalProperties: { type: "string" } } }, { m: { "1": 2, "a b": 3 } })).toBe(
      '$.m["1"]: expected string, got integer 2; $.m["a b"]: expected string, got integer 3',
    );
    expect(read({ grid: { type: "array", items: { type: "array", items: { type: "number" } } } }, { grid: [[1], [2, "x"]] })).toBe(
      '$.grid[1][1]: expected number, got string "x"',
    );
  });

  it("anyOf and oneOf read as one issue saying what each shape wanted", () => {
    const either = {
      type: "object",
      properties: { v: { anyOf: [{ type: "object", properties: { k: { type: "string" } }, required: ["k"] }, { type: "array" }] } },
    };
    expect(compiler.compile(either, "own").check({ v: {} })).toMatchObject({
      message: "$.v: does not match any of the 2 allowed shapes (anyOf) — shape 1: $.v.k is required; shape 2: $.v expected array, got object",
    });
    const byRef = {
      type: "object",
      properties: { v: { anyOf: [{ $ref: "#/$defs/short" }, { type: "number" }] } },
      $defs: { short: { type: "string", maxLength: 2 } },
    };
    expect(compiler.compile(byRef, "own").check({ v: "long" })).toMatchObject({
      message:
        '$.v: does not match any of the 2 allowed shapes (anyOf) — shape 1: $.v must be at most 2 characters long (got 4); shape 2: $.v expected number, got string "long"',
    });
    expect(read({ v: { oneOf: [{ type: "integer" }, { type: "number" }] } }, { v: 3 })).toBe(
      "$.v: matches more than one of the 2 allowed shapes (oneOf): shapes 1 and 2 fit, and it must fit exactly one",
    );
  });

  it("lists every issue up to ten, then counts the rest", () => {
    const value = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i]));
    const message = read({}, value, { additionalProperties: false });
    expect(message.split("; ")).toHaveLength(11);
    expect(message).toMatch(/^\$\.k0: is not an allowed property \(allowed: none\); .*\$\.k9: .*; and 2 more$/);
  });

  it("cuts long values short in the message", () => {
    expect(read({ s: { type: "integer" } }, { s: "x".repeat(500) })).toBe(`$.s: expected integer, got string "${"x".repeat(40)}…"`);
  });
});

describe("what a valid call runs with", () => {
  it("a copy with the schema's defaults filled in, nested ones included; the model's arguments stay as sent", () => {
    const schema = {
      type: "object",
      properties: {
        limit: { type: "integer", default: 50 },
        choices: { type: "array", items: { type: "string" }, default: [] },
        opts: { type: "object", properties: { deep: { type: "boolean", default: false } } },
      },
    };
    const validator = compiler.compile(schema, "own");
    const sent = { opts: {} };
    const first = validator.check(sent);
    expect(first).toEqual({ ok: true, args: { limit: 50, choices: [], opts: { deep: false } } });
    expect(sent).toEqual({ opts: {} });
    // Each call gets its own default array: one call's changes never reach the next.
    const second = validator.check({});
    expect(first.ok && second.ok && first.args["choices"] !== second.args["choices"]).toBe(true);
  });
});

describe("own and foreign schemas", () => {
  const def = (parameters: Record<string, unknown>, toolset = "test"): ToolDefinition => ({
    name: "t",
    toolset,
    schema: { name: "t", description: "t", parameters },
    execute: async () => "{}",
  });

  it("refuses an own schema ajv's strict mode rejects, when the tool is registered", () => {
    const r = new ToolRegistry();
    for (const parameters of [
      { type: "object", properties: { a: { type: "string", minLenght: 1 } } },
      { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
      { type: "object", properties: { a: { type: "strnig" } } },
    ]) {
      let code: string | undefined;
      try {
        r.register(def(parameters));
      } catch (err) {
        code = err instanceof HermesError ? err.code : String(err);
      }
      expect(code).toBe("HGW_ERR_TOOL_SCHEMA");
    }
    expect(r.names()).toEqual([]);
  });

  it("compiles a foreign schema leniently: unknown keywords and formats ignored, an unreadable pattern admits every string", () => {
    const foreign = compiler.compile(
      { type: "object", properties: { a: { type: "string", pattern: "(?i)^abc$", format: "uuid", "x-ui": { hidden: true } }, n: { type: "integer" } } },
      "foreign",
    );
    expect(foreign.unchecked).toBeUndefined();
    expect(foreign.check({ a: "ABC and more" })).toEqual({ ok: true, args: { a: "ABC and more" } });
    expect(foreign.check({ a: "x", n: "1" })).toMatchObject({ ok: false, message: '$.n: expected integer, got string "1"' });
  });

  it("leaves a foreign schema ajv cannot compile unchecked, logs why at registration, and keeps the tool", async () => {
    const { log, lines } = captureLogger();
    const r = new ToolRegistry({ logger: log });
    r.register(def({ type: "object", properties: { a: { type: "strnig" } } }, "mcp-x"), { schemaOrigin: "foreign" });
    expect(r.uncheckedReason("t")).toMatch(/^schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/);
    expect(lines).toEqual([expect.objectContaining({ level: 40, tool: "t", reason: expect.stringMatching(/^schema is invalid/) })]);
    expect(r.validateArgs("t", { a: 1, b: [2] })).toEqual({ ok: true, args: { a: 1, b: [2] } });
    expect((await r.view(["mcp-x"])).schemas.map((s) => s.name)).toEqual(["t"]);
  });

  it("compiles a schema override's parameters once and checks calls against them", async () => {
    const r = new ToolRegistry();
    let overrides = 0;
    r.register(def({ type: "object", properties: { n: { type: "integer" } } }), {
      schemaOverride: (s) => (overrides++, { parameters: { ...s.parameters, properties: { n: { type: "integer", maximum: 3 } } } }),
    });
    const view = await r.view(["test"]);
    expect(view.validateArgs("t", { n: 4 })).toMatchObject({ ok: false, message: "$.n: must be <= 3, got 4" });
    expect(r.validateArgs("t", { n: 3 })).toEqual({ ok: true, args: { n: 3 } });
    expect(overrides).toBe(2);
  });
});
