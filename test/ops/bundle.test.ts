/**
 * The production build (deploy/build.mjs, `npm run build`), built into a
 * temporary folder: the command starts from it with plain node and answers
 * /healthz; it loads the SDK of no platform, provider or MCP that is not
 * configured (and does load a platform's when it is); it answers chat turns
 * through each provider API's SDK, with a tool whose libraries load on its
 * first call; every thread or process entry the code names is bundled;
 * package.json runs the bundle.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Metafile, stop as stopEsbuild } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BUILD_FOLDER, buildProduct, ENTRIES, MAIN } from "../../deploy/build.mjs";
import { startFakeLlmServer } from "../fakes/llm-server.js";
import { startFakeWeb } from "../fakes/web-server.js";
import { freePort } from "./helpers.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The SDKs of the platforms, the providers and MCP: each loaded only when its part is configured. */
const SDKS = ["grammy", "discord.js", "@slack/bolt", "openai", "@anthropic-ai/sdk", "@modelcontextprotocol/sdk"];

/** Records the URL of every ES module the process loads (a module loader hook), one per line. */
const RECORDER = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
  import { appendFileSync } from "node:fs";
  export async function load(url, context, next) {
    if (url.startsWith("file:")) appendFileSync(\${JSON.stringify(process.env.LOADED_LOG)}, url + "\\\\n");
    return next(url, context);
  }\`));
`;

describe("the production build", () => {
  let dir = "";
  let out = "";
  let meta: Metafile;

  beforeAll(async () => {
    dir = await mkdtemp(join(ROOT, ".tmp-bundle-"));
    out = join(dir, "dist");
    meta = await buildProduct(out);
    await writeFile(join(dir, "recorder.mjs"), RECORDER);
  }, 120_000);

  afterAll(async () => {
    // esbuild keeps its service process for the next build; the test files after this one run in the same process.
    await stopEsbuild();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Starts `cli.js run` with a fresh HERMES_HOME, waits for /healthz, stops it; returns the npm packages it had loaded by then. */
  async function startOnce(env: Record<string, string> = {}): Promise<{ status: number; body: unknown; packages: Set<string>; exit: number | null }> {
    const home = await mkdtemp(join(dir, "home-"));
    const log = join(home, "loaded.log");
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", join(dir, "recorder.mjs"), join(out, BUILD_FOLDER, "cli.js"), "run"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, HERMES_HOME: home, HERMES_HTTP_PORT: String(port), LOADED_LOG: log, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = once(child, "exit");
    try {
      const res = await vi.waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`), { timeout: 30_000, interval: 50 });
      const body: unknown = await res.json();
      const packages = packagesIn(readFileSync(log, "utf8"));
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return { status: res.status, body, packages, exit: code };
    } catch (err) {
      child.kill("SIGKILL");
      throw new Error(`${(err as Error).message}\nstderr:\n${stderr}`);
    }
  }

  /** The npm packages bundled into the loaded files of the build (from esbuild's record of inputs per output). */
  function packagesIn(loaded: string): Set<string> {
    const packages = new Set<string>();
    for (const url of loaded.split("\n").filter(Boolean)) {
      const output = meta.outputs[relative(ROOT, fileURLToPath(url))];
      for (const input of Object.keys(output?.inputs ?? {})) {
        const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
        if (m?.[1]) packages.add(m[1]);
      }
    }
    return packages;
  }

  it("starts from the bundle with a fresh HERMES_HOME, answers /healthz, loads no SDK of an unconfigured part, and stops with exit 0", async () => {
    const run = await startOnce();
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: "ok" });
    expect(run.exit).toBe(0);
    expect(run.packages.has("fastify")).toBe(true); // the record works: the HTTP server's package is in it
    expect(SDKS.filter((p) => run.packages.has(p))).toEqual([]);
  }, 60_000);

  it("loads a platform's SDK when that platform is configured", async () => {
    // Nothing answers on the API root: the platform keeps retrying in the background; /healthz answers all the same.
    const closed = await freePort();
    const run = await startOnce({
      TELEGRAM_BOT_TOKEN: "123456:test-token-for-the-bundle-test",
      TELEGRAM_API_ROOT: `http://127.0.0.1:${closed}`,
      TELEGRAM_ALLOWED_USERS: "1",
    });
    expect(run.status).toBe(200);
    expect(run.packages.has("grammy")).toBe(true);
    expect(SDKS.filter((p) => p !== "grammy" && run.packages.has(p))).toEqual([]);
  }, 60_000);

  /** `chat -q MESSAGE` from the bundle with `configYaml`; its exit code and what it printed. */
  async function chatOnce(configYaml: string, message: string): Promise<{ code: number | null; output: string }> {
    const home = await mkdtemp(join(dir, "chat-"));
    await writeFile(join(home, "config.yaml"), configYaml);
    const child = spawn(process.execPath, [join(out, BUILD_FOLDER, "cli.js"), "chat", "-q", message], {
      env: { PATH: process.env.PATH ?? "", HOME: home, HERMES_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    return { code, output };
  }

  it("answers through each provider API's SDK, with web_extract loading its libraries on its first call", async () => {
    const llm = await startFakeLlmServer();
    const web = await startFakeWeb();
    web.page("/article", {
      headers: { "content-type": "text/html" },
      body: "<html><head><title>Bundled</title></head><body><article><h1>Bundled</h1><p>The page the bundle read, with enough words in it for Readability to keep the article.</p></article></body></html>",
    });
    try {
      for (const [mode, base] of [
        ["chat_completions", llm.openaiBaseUrl],
        ["anthropic_messages", llm.anthropicBaseUrl],
        ["codex_responses", llm.openaiBaseUrl],
      ] as const) {
        llm.enqueue({ toolCalls: [{ name: "web_extract", arguments: { urls: [`${web.url}/article`] } }] }, { text: `answered through ${mode}` });
        const config = `model:\n  provider: custom\n  base_url: ${base}\n  model: m\n  api_mode: ${mode}\n  api_key: k\nweb:\n  allow_private_urls: true\n  summarize: false\n`;
        const run = await chatOnce(config, "read the article");
        expect(run, run.output).toMatchObject({ code: 0 });
        expect(run.output).toContain(`answered through ${mode}`);
        // The tool's result went back to the model: the page, read by undici, linkedom, Readability and turndown.
        expect(JSON.stringify(llm.completions().at(-1)?.body)).toContain("The page the bundle read");
      }
    } finally {
      await llm.close();
      await web.close();
    }
  }, 90_000);

  it("bundles every thread and process entry the code starts, beside the chunks", () => {
    const named = entriesNamedInSources();
    expect(named.length).toBeGreaterThan(1);
    for (const { file, name } of named) {
      const source = join(dirname(file), `${name}.ts`);
      expect(ENTRIES, `${relative(ROOT, file)} starts ${name}.ts, which deploy/build.mjs does not list`).toContain(relative(ROOT, source));
    }
    for (const entry of ENTRIES) expect(existsSync(join(out, BUILD_FOLDER, `${basename(entry, ".ts")}.bundle.cjs`)), entry).toBe(true);
  });

  it("is what package.json runs: the bin, npm start; and it emits no test or benchmark", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(Object.keys(MAIN)).toEqual(["cli"]);
    expect(pkg.bin["hermes-gateway"]).toBe(`dist/${BUILD_FOLDER}/cli.js`);
    expect(pkg.scripts.start).toBe(`node dist/${BUILD_FOLDER}/cli.js run`);
    expect(pkg.scripts.build).toBe("node deploy/build.mjs");
    expect(readdirSync(out)).toEqual([BUILD_FOLDER]);
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(inputs.filter((i) => /^(test|bench)\//.test(i))).toEqual([]);
  });

  it("loads no CommonJS package with import() (the bundle would hand it over as its default export only)", () => {
    // esbuild writes such a chunk as `export default require_<package>()`: its named exports are gone. Import the
    // package statically in a module of ours, and load that module with import() instead (http-pool.ts).
    const chunks = readdirSync(join(out, BUILD_FOLDER)).filter((f) => f.endsWith(".js"));
    expect(chunks.filter((f) => /\bexport default require_\w+\(\)/.test(readFileSync(join(out, BUILD_FOLDER, f), "utf8")))).toEqual([]);
  });
});

/** Every `workerCode(import.meta.url, "name"` and `processCode(import.meta.url, "name"` in the product's sources. */
function entriesNamedInSources(): { file: string; name: string }[] {
  const found: { file: string; name: string }[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith(".ts"))
        for (const m of readFileSync(p, "utf8").matchAll(/\b(?:workerCode|processCode)\(\s*import\.meta\.url,\s*"([^"]+)"/g))
          found.push({ file: p, name: m[1] as string });
    }
  };
  for (const layer of ["config", "agent", "tools", "adapters", "gateway"]) walk(join(ROOT, layer));
  return found;
}
