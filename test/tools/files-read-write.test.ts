import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import { looksBinary } from "../../tools/files/binary.js";
import { createReadFileTool, createWriteFileTool, writeFileAtomic } from "../../tools/files/index.js";
import { approvalsConfig } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse, tempDir } from "./core-tools-context.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const read = createReadFileTool();
const write = createWriteFileTool({ policy: createApprovalPolicy({ approvals: approvalsConfig() }) });

describe("read_file", () => {
  it("returns numbered lines and paginates with offset/limit", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(dir, "a.txt"), `${lines.join("\n")}\n`);
    const ctx = makeCtx({ cwd: dir });
    const first = parse(await callTool(read, { path: "a.txt", limit: 10 }, ctx, never()));
    expect(first.success).toBe(true);
    expect(first.content.split("\n")[0]).toBe("     1|line 1");
    expect(first.content.split("\n")).toHaveLength(10);
    expect(first).toMatchObject({ start_line: 1, end_line: 10, total_lines: 30, has_more: true, next_offset: 11 });
    const last = parse(await callTool(read, { path: "a.txt", offset: 25, limit: 10 }, ctx, never()));
    expect(last.content.split("\n")).toEqual(["    25|line 25", "    26|line 26", "    27|line 27", "    28|line 28", "    29|line 29", "    30|line 30"]);
    expect(last).toMatchObject({ has_more: false, end_line: 30 });
    expect(last.next_offset).toBeUndefined();
  });

  it("stops a page early to stay within its result budget, measured as escaped JSON", async () => {
    const line = 'say "hi"\t'.repeat(5);
    await writeFile(join(dir, "q.txt"), `${Array.from({ length: 100 }, () => line).join("\n")}\n`);
    const small = createReadFileTool({ maxResultChars: 1000 });
    const raw = await callTool(small, { path: "q.txt" }, makeCtx({ cwd: dir }), never());
    const r = parse(raw);
    expect(raw.length).toBeLessThanOrEqual(small.maxResultChars!);
    expect(r.end_line).toBeLessThan(100);
    expect(r).toMatchObject({ has_more: true, next_offset: r.end_line + 1, total_lines: 100 });
  });

  it("refuses an offset past the end with the line count", async () => {
    await writeFile(join(dir, "s.txt"), "one\ntwo\n");
    const r = parse(await callTool(read, { path: "s.txt", offset: 5 }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/has 2 lines/);
  });

  it("truncates very long lines", async () => {
    await writeFile(join(dir, "long.txt"), `${"x".repeat(5000)}\nshort\n`);
    const r = parse(await callTool(read, { path: "long.txt" }, makeCtx({ cwd: dir }), never()));
    const [first, second] = r.content.split("\n");
    expect(first.length).toBeLessThan(2100);
    expect(first).toMatch(/line cut, 5000 chars/);
    expect(second).toBe("     2|short");
    expect(r.note).toMatch(/1 line\(s\) longer/);
  });

  it("refuses binary files with the size and a mime guess", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(500, 7)]);
    await writeFile(join(dir, "pic.png"), png);
    const r = parse(await callTool(read, { path: "pic.png" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.mime).toBe("image/png");
    expect(r.size).toBe(png.length);
    expect(r.error).toMatch(/binary file \(image\/png, 512 bytes\)/);
  });

  it("detects binaries by a high share of control bytes even without NUL", () => {
    expect(looksBinary(Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 2 ? 0x01 : 0x41))))).toBe(true);
    expect(looksBinary(Buffer.from("plain text with ünïcödé and \x1b[31mcolour\x1b[0m\n"))).toBe(false);
  });

  it("suggests similar names for a missing file", async () => {
    await writeFile(join(dir, "config.yaml"), "a: 1\n");
    await writeFile(join(dir, "unrelated.bin"), "x");
    const r = parse(await callTool(read, { path: "confg.yaml" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/File not found/);
    expect(r.similar).toEqual([join(dir, "config.yaml")]);
  });

  it("walks up to the nearest existing directory for suggestions", async () => {
    await mkdir(join(dir, "src"));
    const r = parse(await callTool(read, { path: "scr/main.ts" }, makeCtx({ cwd: dir }), never()));
    expect(r.similar).toEqual([join(dir, "src/")]);
  });

  it("explains that a directory is not a file", async () => {
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "x.txt"), "x");
    const r = parse(await callTool(read, { path: "sub" }, makeCtx({ cwd: dir }), never()));
    expect(r.error).toMatch(/is a directory/);
    expect(r.entries).toEqual(["x.txt"]);
  });

  it("reports invalid arguments with their path", async () => {
    const r = parse(await callTool(read, { path: "x", limit: 5000 }, makeCtx({ cwd: dir }), never()));
    expect(r.error).toMatch(/^Invalid arguments for read_file: \$\.limit: must be <= 2000, got 5000\./);
  });

  it("returns an aborted result when the signal already fired", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    const ac = new AbortController();
    ac.abort();
    const r = parse(await callTool(read, { path: "a.txt" }, makeCtx({ cwd: dir }), ac.signal));
    expect(r).toMatchObject({ success: false, aborted: true });
  });

  it("declares its path for overlap checks", () => {
    expect(read.paths?.({ path: "a/b.txt", offset: 1, limit: 500 }, makeCtx({ cwd: "/w" }))).toEqual(["/w/a/b.txt"]);
    expect(read.parallelSafe).toBe(true);
  });
});

describe("write_file", () => {
  it("creates parents and reports bytes and lines", async () => {
    const r = parse(await callTool(write, { path: "deep/er/new.txt", content: "héllo\nworld\n" }, makeCtx({ cwd: dir }), never()));
    expect(r).toMatchObject({ success: true, created: true, bytes_written: 13, lines_written: 2 });
    expect(await readFile(join(dir, "deep/er/new.txt"), "utf8")).toBe("héllo\nworld\n");
  });

  it("overwrites an existing file and leaves no temp files", async () => {
    await writeFile(join(dir, "f.txt"), "old");
    const r = parse(await callTool(write, { path: "f.txt", content: "new" }, makeCtx({ cwd: dir }), never()));
    expect(r.created).toBe(false);
    expect(await readFile(join(dir, "f.txt"), "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["f.txt"]);
  });

  it("keeps a symlink and writes through it", async () => {
    await writeFile(join(dir, "real.txt"), "old");
    await symlink(join(dir, "real.txt"), join(dir, "link.txt"));
    await callTool(write, { path: "link.txt", content: "via link" }, makeCtx({ cwd: dir }), never());
    expect(await readFile(join(dir, "real.txt"), "utf8")).toBe("via link");
  });

  it("leaves no partial file when the write fails (target is a directory)", async () => {
    await mkdir(join(dir, "taken"));
    const r = parse(await callTool(write, { path: "taken", content: "data" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/directory/);
    expect(await readdir(dir)).toEqual(["taken"]);
    expect(await readdir(join(dir, "taken"))).toEqual([]);
  });

  it("keeps the old content and removes the temp file when aborted mid-write", async () => {
    await writeFile(join(dir, "keep.txt"), "original");
    const ac = new AbortController();
    const big = "x".repeat(8 * 1024 * 1024);
    const pending = writeFileAtomic(join(dir, "keep.txt"), big, ac.signal);
    ac.abort();
    await expect(pending).rejects.toThrow();
    expect(await readFile(join(dir, "keep.txt"), "utf8")).toBe("original");
    expect(await readdir(dir)).toEqual(["keep.txt"]);
  });
});
