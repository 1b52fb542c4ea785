import { describe, expect, it } from "vitest";
import { estimateSchemaTokens, estimateTextTokens } from "../../agent/history/tokens.js";
import type { ToolSchema } from "../../agent/types.js";
import { echoTool, viewOf } from "./helpers.js";

/** A schema whose parameters count how often they are serialised (JSON.stringify calls toJSON). */
function countingSchema(name: string): { schema: ToolSchema; serialised: () => number } {
  let n = 0;
  const parameters = { type: "object", properties: { text: { type: "string", description: `text for ${name}` } } };
  const counted = { ...parameters, toJSON: () => (n++, parameters) };
  return { schema: { name, description: `${name} tool`, parameters: counted }, serialised: () => n };
}

describe("estimateSchemaTokens", () => {
  it("is 0 for no tools and ≈ JSON length / 4 otherwise", () => {
    expect(estimateSchemaTokens([])).toBe(0);
    const schemas = [echoTool("a").schema, echoTool("b").schema];
    expect(estimateSchemaTokens(schemas)).toBe(estimateTextTokens(JSON.stringify(schemas)));
  });

  it("serialises one schema array once, with the same result every time", () => {
    const { schema, serialised } = countingSchema("search");
    const schemas = Object.freeze([schema, echoTool("echo").schema]);
    const expected = estimateTextTokens(JSON.stringify(schemas));
    expect(serialised()).toBe(1);
    const first = estimateSchemaTokens(schemas);
    expect(first).toBe(expected);
    expect(serialised()).toBe(2);
    for (let i = 0; i < 5; i++) expect(estimateSchemaTokens(schemas)).toBe(first);
    expect(serialised()).toBe(2);
  });

  it("re-estimates a new schema array (a new registry generation)", () => {
    const { schema, serialised } = countingSchema("search");
    const one = [schema];
    const small = estimateSchemaTokens(one);
    const two = [schema, echoTool("echo").schema];
    const large = estimateSchemaTokens(two);
    expect(serialised()).toBe(2);
    expect(large).toBeGreaterThan(small);
    expect(large).toBe(estimateTextTokens(JSON.stringify(two)));
  });

  it("gives a registry view's frozen schemas the same figure as serialising them", async () => {
    const view = await viewOf([echoTool("a"), echoTool("b")]);
    const n = estimateSchemaTokens(view.schemas);
    expect(estimateSchemaTokens(view.schemas)).toBe(n);
    expect(n).toBe(estimateTextTokens(JSON.stringify(view.schemas)));
  });
});
