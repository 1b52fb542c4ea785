import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSearchFilesTool } from "../../tools/files/index.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse, tempDir } from "./core-tools-context.js";

const hasRg = spawnSync("rg", ["--version"]).status === 0;

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("hgw-search-"));
  await mkdir(join(dir, "src/util"), { recursive: true });
  await mkdir(join(dir, "node_modules/pkg"), { recursive: true });
  await mkdir(join(dir, ".git"), { recursive: true });
  await writeFile(join(dir, "src/a.ts"), "export const alpha = 1;\n// TODO: alpha docs\n");
  await writeFile(join(dir, "src/b.py"), "ALPHA = 2\nprint('todo later')\n");
  await writeFile(join(dir, "src/util/c.ts"), `${Array.from({ length: 12 }, (_, i) => `const todo${i} = "TODO item ${i}";`).join("\n")}\n`);
  await writeFile(join(dir, "src/util/c.test.ts"), "test('todo', () => {});\n");
  await writeFile(join(dir, "node_modules/pkg/index.js"), "// TODO hidden in deps\n");
  await writeFile(join(dir, ".git/config"), "TODO in git\n");
  await writeFile(join(dir, "blob.bin"), Buffer.concat([Buffer.from("TODO"), Buffer.alloc(64, 0)]));
});
afterAll(() => cleanup());

const engines = [
  { name: "builtin", tool: createSearchFilesTool({ ripgrep: false }), enabled: true },
  { name: "ripgrep", tool: createSearchFilesTool({ ripgrep: true }), enabled: hasRg },
];

for (const engine of engines) {
  describe.skipIf(!engine.enabled)(`search_files content (${engine.name})`, () => {
    const run = async (args: Record<string, unknown>) => parse(await callTool(engine.tool, args, makeCtx({ cwd: dir }), never()));

    it("finds matches sorted by path with cwd-relative paths, skipping deps, .git and binaries", async () => {
      const r = await run({ pattern: "TODO", limit: 100 });
      expect(r.engine).toBe(engine.name);
      const paths = [...new Set(r.matches.map((m: { path: string }) => m.path))];
      expect(paths).toEqual(["src/a.ts", "src/util/c.ts"]);
      expect(r.matches[0]).toEqual({ path: "src/a.ts", line: 2, text: "// TODO: alpha docs" });
      expect(r.count).toBe(13);
      expect(r.has_more).toBe(false);
    });

    it("paginates with offset/limit and next_offset", async () => {
      const p1 = await run({ pattern: "TODO item", limit: 5 });
      expect(p1.matches.map((m: { line: number }) => m.line)).toEqual([1, 2, 3, 4, 5]);
      expect(p1).toMatchObject({ has_more: true, next_offset: 5 });
      const p3 = await run({ pattern: "TODO item", limit: 5, offset: 10 });
      expect(p3.matches.map((m: { line: number }) => m.line)).toEqual([11, 12]);
      expect(p3.has_more).toBe(false);
    });

    it("honours ignore_case, file_glob and a sub-path", async () => {
      const r = await run({ pattern: "alpha", ignore_case: true, file_glob: "*.py" });
      expect(r.matches).toEqual([{ path: "src/b.py", line: 1, text: "ALPHA = 2" }]);
      const sub = await run({ pattern: "todo", path: "src/util" });
      expect(sub.matches.map((m: { path: string }) => m.path)).toEqual(["src/util/c.test.ts", ...Array(12).fill("src/util/c.ts")]);
    });

    it("accepts JavaScript-only regex syntax (look-behind) and reports an invalid regex", async () => {
      const r = await run({ pattern: "(?<=const )alpha" });
      expect(r.matches).toEqual([{ path: "src/a.ts", line: 1, text: "export const alpha = 1;" }]);
      const bad = await run({ pattern: "([unclosed" });
      expect(bad.success).toBe(false);
      expect(bad.error).toMatch(/Invalid regular expression/);
    });
  });
}

describe("search_files names", () => {
  const tool = createSearchFilesTool({ ripgrep: false });
  const run = async (args: Record<string, unknown>) => parse(await callTool(tool, { target: "files", ...args }, makeCtx({ cwd: dir }), never()));

  it("matches base names for a slash-less glob and full paths otherwise", async () => {
    expect((await run({ pattern: "*.ts" })).files).toEqual(["src/a.ts", "src/util/c.test.ts", "src/util/c.ts"]);
    expect((await run({ pattern: "src/util/*.test.ts" })).files).toEqual(["src/util/c.test.ts"]);
  });

  it("paginates and counts the total", async () => {
    const r = await run({ pattern: "*", limit: 2 });
    expect(r).toMatchObject({ count: 2, total: 5, has_more: true, next_offset: 2 });
    expect(r.files).toEqual(["blob.bin", "src/a.ts"]);
  });

  it("suggests similar names when the search path is missing", async () => {
    const r = await run({ pattern: "*", path: "scr" });
    expect(r.success).toBe(false);
    expect(r.similar).toEqual([join(dir, "src/")]);
  });
});
