import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStore } from "../../agent/resilience/auth-store.js";
import { classifyError } from "../../agent/resilience/classify.js";
import { COOLDOWN_S, CredentialPool, fingerprint, type PoolStrategy } from "../../agent/resilience/credential-pool.js";
import type { ClassifiedError } from "../../agent/types.js";
import { FakeClock, tempHome } from "./support.js";

const run = promisify(execFile);
const KEYS = ["sk-key-one-AAAA", "sk-key-two-BBBB", "sk-key-three-CCCC"];
const err = (reason: ClassifiedError["reason"], retryAfterS?: number): ClassifiedError => ({
  reason,
  message: reason,
  retryable: false,
  shouldCompress: false,
  shouldRotateCredential: true,
  shouldFallback: true,
  ...(retryAfterS !== undefined ? { retryAfterS } : {}),
});

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

function pool(strategy: PoolStrategy, clock = new FakeClock({ instant: true }), extra: Partial<ConstructorParameters<typeof CredentialPool>[0]> = {}) {
  const p = new CredentialPool({ provider: "openrouter", keys: KEYS, strategy, clock, store: new AuthStore(home), ...extra });
  pools.push(p);
  return p;
}
const memoryPool = (strategy: PoolStrategy, extra: Partial<ConstructorParameters<typeof CredentialPool>[0]> = {}) =>
  new CredentialPool({ provider: "openrouter", keys: KEYS, strategy, clock: new FakeClock({ instant: true }), ...extra });

async function labels(p: CredentialPool, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await p.acquire())?.label ?? "none");
  return out;
}

describe("selection strategies", () => {
  it.each<[PoolStrategy, string[]]>([
    ["fill_first", ["openrouter#1", "openrouter#1", "openrouter#1", "openrouter#1"]],
    ["round_robin", ["openrouter#1", "openrouter#2", "openrouter#3", "openrouter#1"]],
    ["least_used", ["openrouter#1", "openrouter#2", "openrouter#3", "openrouter#1"]],
  ])("%s", async (strategy, expected) => {
    expect(await labels(memoryPool(strategy), 4)).toEqual(expected);
  });

  it("random uses the injected source over available entries only", async () => {
    const seq = [0.0, 0.5, 0.99];
    const p = memoryPool("random", { random: () => seq.shift() ?? 0 });
    expect(await labels(p, 3)).toEqual(["openrouter#1", "openrouter#2", "openrouter#3"]);
  });

  it("skips cooling entries in every strategy", async () => {
    for (const strategy of ["fill_first", "round_robin", "least_used", "random"] as const) {
      const p = memoryPool(strategy);
      const first = await p.acquire();
      await p.markExhausted(first!, err("rate_limit"));
      expect((await labels(p, 3)).includes(first!.label)).toBe(false);
    }
  });

  it("dedupes keys and ignores empty ones", () => {
    expect(new CredentialPool({ provider: "x", keys: ["a", "", "a", "b"], strategy: "fill_first", clock: new FakeClock({ instant: true }) }).size).toBe(2);
  });
});

describe("exhaustion and cooldowns, as Hermes Agent's credential pool has them", () => {
  const NOW = 1_700_000_000_000;
  const classified = (status: number | undefined, message: string, body?: unknown) =>
    classifyError({ nowMs: NOW, message, ...(status !== undefined ? { status } : {}), ...(body !== undefined ? { body } : {}) });
  it.each<[string, number, ClassifiedError, number]>([
    ["sole key, 429: a short cooldown, not an hour", 1, classified(429, "Rate limit exceeded"), 60],
    ["two keys, 429: an hour", 2, classified(429, "Rate limit exceeded"), 3600],
    ["sole key, 401: 5 minutes", 1, classified(401, "invalid api key"), 300],
    ["two keys, 401: 5 minutes", 2, classified(401, "invalid api key"), 300],
    ["sole key, 402 billing: the full hour", 1, classified(402, "Insufficient credits."), 3600],
    ["sole key, 403 key limit (billing): the full hour", 1, classified(403, "Key limit exceeded"), 3600],
    ["sole key, message-only auth: 5 minutes", 1, err("auth"), 300],
    ["auth_permanent: 24 h", 1, err("auth_permanent"), 86_400],
    ["the provider's reset time wins", 1, err("rate_limit", 42), 42],
    ["quotaResetDelay in milliseconds", 2, classified(429, 'Resource exhausted: {"quotaResetDelay": "5000ms"}'), 5],
    ["'retry 45s'", 2, classified(429, "Too many requests, retry 45s"), 45],
    ["'Resets in 4hr 5min'", 2, classified(429, "Weekly usage limit reached. Resets in 4hr 5min"), 14_700],
    ["'resets in 20min'", 2, classified(429, "Rate limit hit; resets in 20min"), 1200],
    [
      "a reset time of 0 is no reset time (sole key)",
      1,
      classified(429, "Rate limit exceeded", { error: { message: "Rate limit exceeded", resets_at: 0 } }),
      60,
    ],
  ])("%s", async (_n, keys, e, ttlS) => {
    const clock = new FakeClock({ start: NOW, instant: true });
    const p = new CredentialPool({ provider: "p", keys: ["k1", "k2"].slice(0, keys), strategy: "fill_first", clock });
    const c = (await p.acquire())!;
    await p.markExhausted(c, e);
    expect(p.snapshot()[0]).toMatchObject({ available: false, exhaustedUntil: NOW + ttlS * 1000 });
    await clock.advance(ttlS * 1000 - 1);
    expect(p.snapshot()[0]?.available).toBe(false);
    await clock.advance(1);
    expect(p.snapshot()[0]?.available).toBe(true);
  });

  it("a sole key that cools down comes back in the pool's own time", async () => {
    const clock = new FakeClock({ instant: true });
    const p = new CredentialPool({ provider: "p", keys: ["only"], strategy: "fill_first", clock });
    await p.markExhausted((await p.acquire())!, classified(429, "Rate limit exceeded"));
    expect(await p.acquire()).toBeNull();
    expect(p.soonestReset()).toEqual({ at: clock.now() + COOLDOWN_S.soleKey * 1000, reason: "rate_limit" });
    await clock.advance(COOLDOWN_S.soleKey * 1000);
    expect((await p.acquire())?.label).toBe("p#1");
  });

  it("does not cool down for reasons a key change cannot fix", async () => {
    const p = new CredentialPool({ provider: "p", keys: ["only"], strategy: "fill_first", clock: new FakeClock({ instant: true }) });
    await p.markExhausted((await p.acquire())!, err("server_error"));
    expect(p.hasAvailable()).toBe(true);
  });

  it.each([
    ["retry-after seconds", { "retry-after": "90" }, 90],
    ["epoch milliseconds", { "x-ratelimit-reset": String(1_700_000_000_000 + 120_000) }, 120],
    ["ISO-8601", { "anthropic-ratelimit-requests-reset": new Date(1_700_000_000_000 + 600_000).toISOString() }, 600],
  ])("honours provider reset times given as %s", async (_n, headers, seconds) => {
    const clock = new FakeClock({ start: 1_700_000_000_000, instant: true });
    const p = pool("fill_first", clock);
    const c = (await p.acquire())!;
    await p.markExhausted(c, classifyError({ status: 429, headers, message: "rate limited", nowMs: clock.now() }));
    expect(p.snapshot()[0]).toMatchObject({ available: false, exhaustedUntil: clock.now() + seconds * 1000, lastReason: "rate_limit" });
  });

  it("a success clears a cooldown early", async () => {
    const p = pool("fill_first");
    const c = (await p.acquire())!;
    await p.markExhausted(c, err("auth"));
    await p.markSuccess(c);
    expect(p.snapshot()[0]?.available).toBe(true);
  });
});

describe("persistence in HERMES_HOME/auth.json", () => {
  it("writes atomically with mode 0600, never writes config keys, and preserves other keys in the file", async () => {
    await writeFile(join(home, "auth.json"), JSON.stringify({ active_provider: "nous" }));
    const p = pool("fill_first");
    await p.markExhausted((await p.acquire())!, err("billing"));
    const text = await readFile(join(home, "auth.json"), "utf8");
    for (const k of KEYS) expect(text).not.toContain(k);
    const data = JSON.parse(text);
    expect(data.active_provider).toBe("nous");
    expect(data.credential_pool.openrouter.map((e: { id: string }) => e.id)).toEqual(KEYS.map(fingerprint));
    expect(data.credential_pool.openrouter[0]).toMatchObject({ source: "config", last_reason: "billing", request_count: 1 });
    expect((await stat(join(home, "auth.json"))).mode & 0o777).toBe(0o600);
  });

  it("a second process (another pool on the same file) sees the cooldown before choosing", async () => {
    const clock = new FakeClock({ instant: true });
    const a = pool("fill_first", clock);
    const b = pool("fill_first", clock);
    expect((await b.acquire())?.label).toBe("openrouter#1");
    await clock.advance(1000);
    await a.markExhausted((await a.acquire())!, err("rate_limit", COOLDOWN_S.default));
    expect((await b.acquire())?.label).toBe("openrouter#2");
  });

  it("adopts a token another process refreshed in auth.json (mtime/inode check, real child process)", async () => {
    await writeFile(
      join(home, "auth.json"),
      JSON.stringify({
        credential_pool: {
          anthropic: [{ id: "oauth-1", label: "claude-code", source: "auth_store", access_token: "tok-OLD", refresh_token: "ref-OLD", updated_at: 1 }],
        },
      }),
    );
    const lines: string[] = [];
    const logger = pino({ level: "info" }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const p = new CredentialPool({
      provider: "anthropic",
      keys: [],
      strategy: "fill_first",
      clock: new FakeClock({ instant: true }),
      store: new AuthStore(home),
      logger,
    });
    expect((await p.acquire())?.apiKey).toBe("tok-OLD");
    await p.flush();
    const script = fileURLToPath(new URL("./fixtures/refresh-token.ts", import.meta.url));
    const { stdout } = await run(process.execPath, ["--import", "tsx", script, home, "anthropic", "oauth-1", "tok-NEW", "ref-NEW"], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    });
    expect(stdout).toContain("refreshed");
    expect((await p.acquire())?.apiKey).toBe("tok-NEW");
    await p.flush();
    const onDisk = JSON.parse(await readFile(join(home, "auth.json"), "utf8")).credential_pool.anthropic[0];
    expect(onDisk).toMatchObject({ access_token: "tok-NEW", refresh_token: "ref-NEW" });
    expect(lines.join("")).toContain("adopted a token refreshed by another process");
    expect(lines.join("")).not.toContain("tok-");
  });

  it("leaves a corrupt auth.json untouched and keeps working in memory, never logging keys", async () => {
    await writeFile(join(home, "auth.json"), "{ not json");
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const p = new CredentialPool({
      provider: "openrouter",
      keys: KEYS,
      strategy: "fill_first",
      clock: new FakeClock({ instant: true }),
      store: new AuthStore(home, logger),
      logger,
    });
    const c = (await p.acquire())!;
    await p.markExhausted(c, err("auth"));
    expect((await p.acquire())?.label).toBe("openrouter#2");
    expect(await readFile(join(home, "auth.json"), "utf8")).toBe("{ not json");
    const log = lines.join("");
    expect(log).toContain("HGW_ERR_AUTH_STORE_CORRUPT");
    for (const k of KEYS) expect(log).not.toContain(k);
  });
});
