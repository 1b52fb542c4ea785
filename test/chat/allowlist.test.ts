/**
 * Remembering an "always" approval in config.yaml: comments and the rest of
 * the file survive, the write is atomic and serialised, broken files are
 * left alone, and a remembered command matches only itself.
 */
import { readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildConfig } from "../../config/index.js";
import { appendAllowlistEntry, createAllowlistPersister, literalAllowlistEntry } from "../../gateway/tools-approval.js";
import { allowlisted } from "../../tools/approval/allowlist.js";
import { hasShellOperators } from "../../tools/approval/index.js";
import { tempDir } from "../tools/core-tools-context.js";

let dir: string;
let cleanup: () => Promise<void>;
let path: string;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir("hgw-allowlist-"));
  path = join(dir, "config.yaml");
});
afterEach(async () => cleanup());

const COMMENTED = `# Hermes config — hand written
model:
  provider: custom # local llama.cpp
  base_url: http://127.0.0.1:8080/v1

approvals:
  mode: manual # ask me
  # commands I trust
  allowlist:
    - git status
  timeout_s: 60
`;

describe("appendAllowlistEntry", () => {
  it("appends to the existing list and keeps every comment and key", async () => {
    await writeFile(path, COMMENTED);
    await appendAllowlistEntry(path, "rm -r build");
    const text = await readFile(path, "utf8");
    for (const comment of ["# Hermes config — hand written", "# local llama.cpp", "# ask me", "# commands I trust"]) expect(text).toContain(comment);
    expect(text).toContain("    - git status\n    - rm -r build\n");
    const cfg = buildConfig({ yamlText: text, file: path, env: {}, home: dir });
    expect(cfg.approvals.allowlist).toEqual(["git status", "rm -r build"]);
    expect(cfg.approvals.timeout_s).toBe(60);
    expect(cfg.model.base_url).toBe("http://127.0.0.1:8080/v1");
  });

  it("creates approvals.allowlist when the section or the key is missing, and the file when there is none", async () => {
    await writeFile(path, "# only a comment\nmodel:\n  model: x\n");
    await appendAllowlistEntry(path, "rm -r a");
    expect(parse(await readFile(path, "utf8"))).toEqual({ model: { model: "x" }, approvals: { allowlist: ["rm -r a"] } });
    expect(await readFile(path, "utf8")).toContain("# only a comment");

    await writeFile(path, "approvals:\n  mode: manual\n");
    await appendAllowlistEntry(path, "rm -r b");
    expect(parse(await readFile(path, "utf8"))).toEqual({ approvals: { mode: "manual", allowlist: ["rm -r b"] } });

    const fresh = join(dir, "new", "config.yaml");
    await appendAllowlistEntry(fresh, "rm -r c");
    expect(parse(await readFile(fresh, "utf8"))).toEqual({ approvals: { allowlist: ["rm -r c"] } });
  });

  it("does not add an entry twice", async () => {
    await writeFile(path, COMMENTED);
    await appendAllowlistEntry(path, "git status");
    expect(await readFile(path, "utf8")).toBe(COMMENTED);
  });

  it("refuses to touch a file it cannot edit safely, leaving it byte for byte", async () => {
    for (const bad of ["approvals:\n  allowlist: git status\n", "approvals: [1, 2]\n", "approvals:\n  mode: manual\n   bad: indent\n", "- a list\n"]) {
      await writeFile(path, bad);
      await expect(appendAllowlistEntry(path, "rm -r x")).rejects.toMatchObject({ code: "HGW_ERR_ALLOWLIST_WRITE" });
      expect(await readFile(path, "utf8")).toBe(bad);
    }
  });

  it("replaces the file atomically: a new inode, no temp file left behind, a symlinked config stays a link", async () => {
    await writeFile(path, COMMENTED);
    const before = await stat(path);
    await appendAllowlistEntry(path, "rm -r build");
    expect((await stat(path)).ino).not.toBe(before.ino);
    expect((await stat(path)).mode).toBe(before.mode);
    expect(await readdir(dir)).toEqual(["config.yaml"]);

    const link = join(dir, "link.yaml");
    await symlink(path, link);
    await appendAllowlistEntry(link, "rm -r dist");
    expect((await readdir(dir)).sort()).toEqual(["config.yaml", "link.yaml"]);
    expect(parse(await readFile(path, "utf8")).approvals.allowlist).toContain("rm -r dist");
  });
});

describe("createAllowlistPersister", () => {
  it("serialises concurrent writes so none is lost, while readers only ever see a whole file", async () => {
    await writeFile(path, COMMENTED);
    const live: string[] = ["git status"];
    const persist = createAllowlistPersister(path, live);
    let reading = true;
    const seen: number[] = [];
    const reader = (async () => {
      while (reading) {
        const doc = parse(await readFile(path, "utf8"));
        seen.push(doc.approvals.allowlist.length);
      }
    })();
    await Promise.all(Array.from({ length: 12 }, (_, i) => persist(`rm -r dir${i}`)));
    reading = false;
    await reader;
    const list = parse(await readFile(path, "utf8")).approvals.allowlist as string[];
    expect(list).toHaveLength(13);
    expect(new Set(list)).toEqual(new Set(["git status", ...Array.from({ length: 12 }, (_, i) => `rm -r dir${i}`)]));
    expect(live).toHaveLength(13);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((n, i) => i === 0 || n >= (seen[i - 1] ?? 0))).toBe(true);
  });

  it("keeps going after a failed write and reports that failure to its caller", async () => {
    await writeFile(path, "approvals:\n  allowlist: not-a-list\n");
    const live: string[] = [];
    const persist = createAllowlistPersister(path, live);
    await expect(persist("rm -r a")).rejects.toMatchObject({ code: "HGW_ERR_ALLOWLIST_WRITE" });
    expect(live).toEqual([]);
    await writeFile(path, "approvals:\n  allowlist: []\n");
    await persist("rm -r b");
    expect(live).toEqual(["rm -r b"]);
  });
});

describe("literalAllowlistEntry", () => {
  it("escapes glob characters so a remembered command matches only itself", () => {
    const command = "rm -rf build/*";
    const entry = literalAllowlistEntry(command);
    expect(entry).toBe("rm -rf build/\\*");
    expect(allowlisted([entry], command, ["recursive delete"])).toBe(true);
    expect(allowlisted([command], "rm -rf build/ /home", ["recursive delete"])).toBe(true); // what the raw command would have allowed
    expect(allowlisted([entry], "rm -rf build/ /home", ["recursive delete"])).toBe(false);
    const odd = "chmod 777 file[1].txt";
    expect(hasShellOperators(odd)).toBe(false);
    expect(allowlisted([literalAllowlistEntry(odd)], odd, ["x"])).toBe(true);
    expect(allowlisted([literalAllowlistEntry(odd)], "chmod 777 file1.txt", ["x"])).toBe(false);
  });
});
