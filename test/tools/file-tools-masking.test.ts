/**
 * What the file tools read is masked exactly as terminal output is: the
 * same patterns (private keys, API keys, bot tokens, `password=…` and
 * `.env` secret assignments) plus the configured secrets. A private key
 * spans lines, so every line inside the block is masked — also when a page
 * or a search hit starts in the middle of it — and line numbers stay true.
 */
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import { literalRedactor, redactSecrets } from "../../tools/common/redact.js";
import { createPatchTool, createReadFileTool, createSearchFilesTool } from "../../tools/files/index.js";
import { approvalsConfig } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse, tempDir } from "./core-tools-context.js";

const hasRg = spawnSync("rg", ["--version"]).status === 0;
const redact = literalRedactor(["configured-secret-value-42"]);

const KEY_BODY = ["MIIEowIBAAKCAQEA1d2Fh8sV0bq3cP9aX7mQe2zTnR4uYk8wLpQ6vJ3sH5gD0fE1", "b7Xy9Zq2Wv4Tu6Sr8Pq0On1Ml3Kj5Ih7Gf9Ed1Cb3Aa5Zz7Yy9Xx1Ww3Vv5Uu7Tt9"];
const PEM = ["-----BEGIN RSA PRIVATE KEY-----", ...KEY_BODY, "-----END RSA PRIVATE KEY-----"].join("\n");
const ENV = [
  "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
  "TELEGRAM_BOT_TOKEN=123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
  "DB_PASSWORD=hunter2-very-secret",
  "LOG_LEVEL=debug",
  "NOTE=configured-secret-value-42",
].join("\n");
const SECRETS = ["sk-proj-abcdefghijklmnopqrstuvwx", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "hunter2-very-secret", "configured-secret-value-42", ...KEY_BODY];

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("hgw-masking-"));
  await mkdir(join(dir, "keys"));
  await writeFile(join(dir, "keys/id_rsa"), `${PEM}\n`);
  await writeFile(join(dir, ".env"), `${ENV}\n`);
  await writeFile(join(dir, "notes.md"), `# notes\nline two\n${PEM}\ntrailer\n`);
});
afterAll(() => cleanup());

function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s));
}

describe("read_file masks secrets as the terminal does", () => {
  const read = createReadFileTool({ redact });
  const run = async (args: Record<string, unknown>) => parse(await callTool(read, args, makeCtx({ cwd: dir }), never()));

  it("masks a private key and .env secrets, keeping harmless values and line numbers", async () => {
    const key = await run({ path: "keys/id_rsa" });
    expect(leaks(key.content)).toEqual([]);
    expect(key.content.split("\n")).toHaveLength(4);
    expect(key.content).toContain("     3|[REDACTED PRIVATE KEY]");
    const env = await run({ path: ".env" });
    expect(leaks(env.content)).toEqual([]);
    expect(env.content).toContain("     4|LOG_LEVEL=debug");
  });

  it("matches the terminal's masking line for line", async () => {
    const env = await run({ path: ".env" });
    const fromTool = env.content.split("\n").map((l: string) => l.slice(7));
    expect(fromTool).toEqual(ENV.split("\n").map((l) => redactSecrets(l, redact)));
  });

  it("masks the inside of a key block when the page starts in the middle of it", async () => {
    const page = await run({ path: "notes.md", offset: 5, limit: 3 });
    expect(page.start_line).toBe(5);
    expect(leaks(page.content)).toEqual([]);
    expect(page.content).toContain("     7|trailer");
  });
});

const engines = [
  { name: "builtin", tool: createSearchFilesTool({ ripgrep: false, redact }), enabled: true },
  { name: "ripgrep", tool: createSearchFilesTool({ ripgrep: true, redact }), enabled: hasRg },
];

for (const engine of engines) {
  describe.skipIf(!engine.enabled)(`search_files masks matched lines (${engine.name})`, () => {
    it("masks .env secrets and every hit inside a private key", async () => {
      const r = parse(await callTool(engine.tool, { pattern: "KEY|TOKEN|PASSWORD|NOTE|[A-Za-z0-9]{60}", limit: 100 }, makeCtx({ cwd: dir }), never()));
      expect(r.matches.length).toBeGreaterThanOrEqual(9);
      expect(leaks(JSON.stringify(r.matches))).toEqual([]);
      expect(r.matches.find((m: { path: string; line: number }) => m.path === "notes.md" && m.line === 4)?.text).toBe("[REDACTED PRIVATE KEY]");
    });
  });
}

describe("patch masks what it shows", () => {
  const patch = createPatchTool({ policy: createApprovalPolicy({ approvals: approvalsConfig() }), redact });

  it("masks secrets in the diff's context lines", async () => {
    await writeFile(join(dir, "app.conf"), "db_password = hunter2-very-secret\nport = 1\n");
    const r = parse(await callTool(patch, { path: "app.conf", old_string: "port = 1", new_string: "port = 2" }, makeCtx({ cwd: dir }), never()));
    expect(r.success).toBe(true);
    expect(r.diff).toContain("+port = 2");
    expect(leaks(r.diff)).toEqual([]);
  });

  it("withholds the diff of a file holding a private key, and masks closest-line hints", async () => {
    const changed = parse(await callTool(patch, { path: "notes.md", old_string: "trailer", new_string: "end" }, makeCtx({ cwd: dir }), never()));
    expect(changed.diff).toBe("(diff withheld: the file contains a private key)");
    const missed = parse(
      await callTool(patch, { path: "notes.md", old_string: KEY_BODY[0]?.replace("MIIE", "MIIF"), new_string: "x" }, makeCtx({ cwd: dir }), never()),
    );
    expect(missed.success).toBe(false);
    expect(leaks(JSON.stringify(missed))).toEqual([]);
  });
});
