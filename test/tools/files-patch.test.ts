import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import { createPatchTool } from "../../tools/files/index.js";
import { approvalsConfig } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse, tempDir } from "./core-tools-context.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const patch = createPatchTool({ policy: createApprovalPolicy({ approvals: approvalsConfig() }) });
const SRC = ["function add(a, b) {", "  return a + b;", "}", "", "function sub(a, b) {", "  return a - b;", "}", ""].join("\n");

describe("patch", () => {
  it("replaces a unique match and returns a unified diff", async () => {
    await writeFile(join(dir, "m.js"), SRC);
    const r = parse(await callTool(patch, { path: "m.js", old_string: "return a + b;", new_string: "return a + b + 0;" }, makeCtx({ cwd: dir }), never()));
    expect(r).toMatchObject({ success: true, replacements: 1, first_line: 2 });
    expect(r.diff).toContain("--- a/m.js");
    expect(r.diff).toContain("+++ b/m.js");
    expect(r.diff).toContain("-  return a + b;");
    expect(r.diff).toContain("+  return a + b + 0;");
    expect(await readFile(join(dir, "m.js"), "utf8")).toBe(SRC.replace("return a + b;", "return a + b + 0;"));
    expect(await readdir(dir)).toEqual(["m.js"]);
  });

  it("refuses an ambiguous match with the count and line numbers", async () => {
    await writeFile(join(dir, "m.js"), SRC);
    const r = parse(await callTool(patch, { path: "m.js", old_string: "(a, b) {", new_string: "(x, y) {" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.occurrences).toBe(2);
    expect(r.lines).toEqual([1, 5]);
    expect(r.error).toMatch(/2 times.*lines 1, 5/);
    expect(await readFile(join(dir, "m.js"), "utf8")).toBe(SRC);
  });

  it("replaces every occurrence with replace_all", async () => {
    await writeFile(join(dir, "m.js"), SRC);
    const r = parse(await callTool(patch, { path: "m.js", old_string: "(a, b)", new_string: "(x, y)", replace_all: true }, makeCtx({ cwd: dir }), never()));
    expect(r.replacements).toBe(2);
    expect((await readFile(join(dir, "m.js"), "utf8")).match(/\(x, y\)/g)).toHaveLength(2);
  });

  it("refuses a missing match and lists the closest candidate lines", async () => {
    await writeFile(join(dir, "m.js"), SRC);
    const r = parse(await callTool(patch, { path: "m.js", old_string: "return a * b;", new_string: "x" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/not found/);
    expect(r.candidates.map((c: { line: number }) => c.line).sort()).toEqual([2, 6]);
    expect(r.candidates[0].text).toMatch(/return a [+-] b;/);
  });

  it("says when the text matches only if whitespace is ignored", async () => {
    await writeFile(join(dir, "m.js"), SRC);
    const r = parse(
      await callTool(patch, { path: "m.js", old_string: "function add(a, b) {\n    return a + b;", new_string: "x" }, makeCtx({ cwd: dir }), never()),
    );
    expect(r.error).toMatch(/whitespace is ignored/);
  });

  it("treats replacement text literally (no $ patterns)", async () => {
    await writeFile(join(dir, "p.txt"), "price: X\n");
    await callTool(patch, { path: "p.txt", old_string: "X", new_string: "$& and $1 and $$" }, makeCtx({ cwd: dir }), never());
    expect(await readFile(join(dir, "p.txt"), "utf8")).toBe("price: $& and $1 and $$\n");
  });

  it("matches LF search text in a CRLF file and keeps CRLF endings", async () => {
    await writeFile(join(dir, "w.txt"), "one\r\ntwo\r\nthree\r\n");
    const r = parse(await callTool(patch, { path: "w.txt", old_string: "one\ntwo", new_string: "uno\ndos" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(true);
    expect(await readFile(join(dir, "w.txt"), "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("refuses identical old and new strings and a missing file", async () => {
    await writeFile(join(dir, "a.txt"), "a");
    expect(parse(await callTool(patch, { path: "a.txt", old_string: "a", new_string: "a" }, makeCtx({ cwd: dir }), never())).error).toMatch(/identical/);
    const missing = parse(await callTool(patch, { path: "b.txt", old_string: "a", new_string: "b" }, makeCtx({ cwd: dir }), never()));
    expect(missing.error).toMatch(/File not found.*write_file/);
    expect(missing.similar).toEqual([join(dir, "a.txt")]);
  });

  it("declares its target path", () => {
    expect(patch.paths?.({ path: "x/y.ts", old_string: "a", new_string: "b", replace_all: false }, makeCtx({ cwd: "/repo" }))).toEqual(["/repo/x/y.ts"]);
  });
});
