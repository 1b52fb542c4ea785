/**
 * How the credential pool keeps HERMES_HOME/auth.json off the request path:
 * usage counters are written lazily and on flush, cooldowns at once, and the
 * file is re-read only when its stamp changed. Real temp homes throughout.
 */
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createStreamFn } from "../../agent/providers/index.js";
import { type AuthFile, AuthStore, type FileStamp } from "../../agent/resilience/auth-store.js";
import { CredentialPool, fingerprint, type PoolOptions } from "../../agent/resilience/credential-pool.js";
import type { ClassifiedError } from "../../agent/types.js";
import { buildConfig } from "../../config/load.js";
import { startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeClock, request, run, tempHome } from "./support.js";

const KEYS = ["sk-key-one-AAAA", "sk-key-two-BBBB"];
const rateLimited: ClassifiedError = {
  reason: "rate_limit",
  message: "429",
  retryable: true,
  shouldCompress: false,
  shouldRotateCredential: true,
  shouldFallback: true,
};

let home: string;
let cleanup: () => Promise<void>;
let pools: CredentialPool[] = [];
beforeEach(async () => {
  ({ home, cleanup } = await tempHome());
});
afterEach(async () => {
  await Promise.all(pools.map((p) => p.flush()));
  pools = [];
  await cleanup();
});

const authPath = () => join(home, "auth.json");

function pool(extra: Partial<PoolOptions> = {}): CredentialPool {
  const p = new CredentialPool({
    provider: "openrouter",
    keys: KEYS,
    strategy: "fill_first",
    clock: new FakeClock({ instant: true }),
    store: new AuthStore(home),
    usageWriteDelayMs: 60_000,
    ...extra,
  });
  pools.push(p);
  return p;
}

async function onDisk(): Promise<{ id: string; request_count?: number; exhausted_until?: number; last_reason?: string }[]> {
  const data = JSON.parse(await readFile(authPath(), "utf8")) as AuthFile;
  return [...(data.credential_pool?.["openrouter"] ?? [])];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * A store whose writes stall until released: a disk that is slow to write is
 * the condition under test, and a real one cannot be made slow on demand.
 */
class StallingStore extends AuthStore {
  #release: () => void = () => undefined;
  readonly #gate = new Promise<void>((r) => (this.#release = r));
  release(): void {
    this.#release();
  }
  override async update(mutate: (data: AuthFile, read: FileStamp | null) => AuthFile): Promise<FileStamp | null> {
    await this.#gate;
    return super.update(mutate);
  }
}

describe("usage counters are written lazily", () => {
  it("acquire writes nothing; flush writes the counters once", async () => {
    const p = pool();
    for (let i = 0; i < 10; i++) await p.acquire();
    expect(await exists(authPath())).toBe(false);
    await p.flush();
    expect((await onDisk())[0]).toMatchObject({ id: fingerprint(KEYS[0] as string), request_count: 10 });

    const before = await stat(authPath());
    for (let i = 0; i < 10; i++) await p.acquire();
    expect((await stat(authPath())).ino).toBe(before.ino);
    await p.flush();
    expect((await stat(authPath())).ino).not.toBe(before.ino);
    expect((await onDisk())[0]?.request_count).toBe(20);
  });

  it("a flush with nothing pending does not rewrite the file", async () => {
    const p = pool();
    await p.acquire();
    await p.flush();
    const before = await stat(authPath());
    await p.flush();
    expect((await stat(authPath())).ino).toBe(before.ino);
  });

  it("counters reach the file after the delay without a flush", async () => {
    const p = pool({ usageWriteDelayMs: 20 });
    for (let i = 0; i < 3; i++) await p.acquire();
    await vi.waitFor(async () => expect((await onDisk().catch(() => []))[0]?.request_count).toBe(3), { timeout: 5_000, interval: 20 });
  });

  it("the provider runtime's flush (the daemon's and the CLI's shutdown step) writes them", async () => {
    const llm = await startFakeLlmServer();
    try {
      const config = buildConfig({
        yamlText: `model:\n  provider: custom\n  model: m\n  base_url: ${llm.openaiBaseUrl}\n  api_key: sk-custom-1\n`,
        file: null,
        env: {},
        home,
      });
      const rt = createStreamFn(config, { home, clock: new FakeClock({ instant: true }) });
      llm.enqueue({ text: "one" }, { text: "two" });
      await run(rt.stream, request([{ role: "user", content: "hi" }]));
      await run(rt.stream, request([{ role: "user", content: "hi" }]));
      expect(await exists(authPath())).toBe(false);
      await rt.flush();
      expect(JSON.parse(await readFile(authPath(), "utf8")).credential_pool.custom[0]).toMatchObject({ request_count: 2 });
    } finally {
      await llm.close();
    }
  });
});

describe("cooldowns are written at once and never lost to a counter write", () => {
  it("markExhausted has written the cooldown when it resolves", async () => {
    const p = pool();
    const c = (await p.acquire())!;
    await p.markExhausted(c, rateLimited);
    expect((await onDisk())[0]).toMatchObject({ last_reason: "rate_limit", request_count: 1 });
  });

  it("a usage-count write from another process keeps the cooldown it did not see (even with its clock ahead)", async () => {
    const a = pool({ clock: new FakeClock({ start: 1_700_000_005_000, instant: true }) });
    const b = pool({ clock: new FakeClock({ start: 1_700_000_000_000, instant: true }) });
    expect((await a.acquire())?.label).toBe("openrouter#1");
    const c = (await b.acquire())!;
    await b.markExhausted(c, rateLimited);
    await a.flush();
    expect((await onDisk())[0]).toMatchObject({ last_reason: "rate_limit", exhausted_until: 1_700_000_000_000 + 3_600_000 });
    expect((await a.acquire())?.label).toBe("openrouter#2");
  });
});

describe("acquire stays off the file's write path", () => {
  it("does not wait for a write that is still landing", async () => {
    const store = new StallingStore(home);
    const p = pool({ store });
    const c = (await p.acquire())!;
    const marking = p.markExhausted(c, rateLimited);
    try {
      const next = await Promise.race([p.acquire(), new Promise<"stalled">((r) => setTimeout(() => r("stalled"), 2_000))]);
      expect(next).not.toBe("stalled");
      expect(next && next !== "stalled" ? next.label : null).toBe("openrouter#2");
    } finally {
      store.release();
    }
    await marking;
    expect((await onDisk())[0]?.last_reason).toBe("rate_limit");
  });

  it("re-reads auth.json only when its stamp changed (one stat per acquire)", async () => {
    // A file we control byte for byte: same inode, same size and same mtime for two different contents.
    const entry = (exhausted: boolean) => ({
      id: fingerprint(KEYS[0] as string),
      source: "config",
      updated_at: 1,
      exhausted_until: exhausted ? 9_999_999_999_999 : 1_000_000_000_000,
      last_reason: exhausted ? "billing" : "nothing",
    });
    const text = (exhausted: boolean) => JSON.stringify({ credential_pool: { openrouter: [entry(exhausted)] } });
    expect(text(true)).toHaveLength(text(false).length);
    const fixedMtime = new Date(1_600_000_000_000);
    await writeFile(authPath(), text(false));
    await utimes(authPath(), fixedMtime, fixedMtime);

    const p = pool();
    expect((await p.acquire())?.label).toBe("openrouter#1");
    await writeFile(authPath(), text(true)); // rewritten in place: same inode and size
    await utimes(authPath(), fixedMtime, fixedMtime);
    expect((await p.acquire())?.label).toBe("openrouter#1"); // unchanged stamp: not re-read
    const later = new Date(1_600_000_001_000);
    await utimes(authPath(), later, later);
    expect((await p.acquire())?.label).toBe("openrouter#2"); // changed stamp: re-read, key 1 is cooling down
  });
});
