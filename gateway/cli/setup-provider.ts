/**
 * The wizard's model provider step: which provider, its key or URL, which
 * model; then one real request through the same provider stack the daemon
 * uses, with the configuration as it will be written.
 */
import { parseEnv } from "node:util";
import { createStreamFn, type ProviderRuntime } from "../../agent/providers/index.js";
import { HermesError } from "../../config/errors.js";
import { buildConfig, type Config, ConfigError } from "../../config/index.js";
import { keepAfterFailure, type StepContext } from "./setup-args.js";
import type { SetupFiles } from "./setup-files.js";

export const SETUP_PROVIDERS = ["openrouter", "openai", "anthropic", "custom"] as const;
type SetupProvider = (typeof SETUP_PROVIDERS)[number];

/** Where each provider's key goes in .env; a custom server's is referenced from model.api_key. */
const KEY_ENV: Readonly<Record<SetupProvider, string>> = {
  openrouter: "OPENROUTER_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  custom: "HERMES_MODEL_API_KEY",
};

const SUGGESTED_MODEL: Readonly<Record<SetupProvider, string>> = {
  openrouter: "anthropic/claude-sonnet-4.5",
  openai: "gpt-4.1",
  anthropic: "claude-sonnet-4-5",
  custom: "",
};

/** How long the test request may take. */
const TEST_TIMEOUT_MS = 60_000;

interface ProviderChoice {
  readonly provider: SetupProvider;
  readonly model: string;
  readonly baseUrl?: string;
  /** Absent: keep the key that is set. */
  readonly apiKey?: string;
}

/** False when the provider failed its test and was not kept (nothing of this step is then written). */
export async function providerStep(ctx: StepContext): Promise<boolean> {
  const { flags, answers, io } = ctx;
  const given = flags.provider ?? flags.model ?? flags["api-key"] ?? flags["base-url"];
  if (!answers.interactive && given === undefined) return true; // a script that sets up platforms only
  let last: Partial<ProviderChoice> = {};
  for (let round = 0; ; round++) {
    const choice = await askChoice(ctx, round === 0, last);
    if (!choice) return false;
    last = choice;
    const trial = ctx.files.clone();
    apply(trial, choice, ctx.current);
    const test = await testProvider(trial, ctx);
    if (test.ok) io.out(`✓ provider ${choice.provider}: ${test.detail}`);
    else io.err(`✗ provider ${choice.provider}: ${test.error}`);
    if (test.ok || (await keepAfterFailure(ctx, "these provider settings"))) {
      apply(ctx.files, choice, ctx.current);
      return true;
    }
    if (!answers.interactive) return false;
    io.err("  Enter other values (or Ctrl-D to stop; nothing is written).");
  }
}

async function askChoice(ctx: StepContext, useFlags: boolean, last: Partial<ProviderChoice>): Promise<ProviderChoice | null> {
  const { answers, current, io } = ctx;
  const flags = useFlags ? ctx.flags : {};
  const known = (SETUP_PROVIDERS as readonly string[]).includes(current.model.provider) ? (current.model.provider as SetupProvider) : null;
  if (!known && flags.provider === undefined && !answers.interactive) {
    io.err(`✗ the provider is ${current.model.provider}, which setup does not configure: pass --provider (${SETUP_PROVIDERS.join(", ")}) or edit config.yaml`);
    return null;
  }
  const raw = await answers.text(flags.provider, `Model provider (${SETUP_PROVIDERS.join(", ")})`, { fallback: last.provider ?? known ?? "openrouter" });
  if (!(SETUP_PROVIDERS as readonly string[]).includes(raw)) {
    io.err(`✗ unknown provider "${raw}": one of ${SETUP_PROVIDERS.join(", ")}`);
    return answers.interactive && flags.provider === undefined ? askChoice(ctx, false, last) : null;
  }
  const provider = raw as SetupProvider;
  const same = provider === current.model.provider;
  let baseUrl: string | undefined;
  if (provider === "custom") {
    baseUrl = await answers.text(flags["base-url"], "Server URL (OpenAI-compatible; Ollama: http://127.0.0.1:11434/v1)", {
      fallback: last.baseUrl ?? (same ? current.model.base_url : undefined) ?? "http://127.0.0.1:11434/v1",
    });
    if (!URL.canParse(baseUrl)) {
      io.err(`✗ not a URL: ${baseUrl}`);
      return null;
    }
  }
  const hasKey = Boolean(
    ctx.files.getEnv(KEY_ENV[provider]) ?? ctx.env[KEY_ENV[provider]] ?? (same ? current.model.api_key : undefined) ?? current.providers[provider]?.api_key,
  );
  const keyQuestion = provider === "custom" ? "API key, if the server wants one" : `${provider} API key`;
  const apiKey = await answers.text(
    flags["api-key"],
    `${keyQuestion} (${hasKey ? "Enter keeps the current one" : provider === "custom" ? "Enter: none" : "required"})`,
    { secret: true },
  );
  const model = await answers.text(flags.model, "Model", { fallback: last.model ?? (same ? current.model.model : SUGGESTED_MODEL[provider]) });
  if (!model) {
    io.err("✗ a model name is needed (the server's model list names them)");
    return null;
  }
  return { provider, model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** Writes the choice: names and URLs into config.yaml, the key into .env (moved out of config.yaml if it was there). */
function apply(files: SetupFiles, c: ProviderChoice, current: Config): void {
  if (c.provider !== current.model.provider) {
    // Another provider's URL, mode or key would send this one's requests astray.
    for (const k of ["base_url", "api_mode", "api_key"]) files.deleteYaml(["model", k]);
  }
  files.setYaml(["model", "provider"], c.provider);
  files.setYaml(["model", "model"], c.model);
  if (c.baseUrl) files.setYaml(["model", "base_url"], c.baseUrl);
  if (c.apiKey === undefined) return;
  const envKey = KEY_ENV[c.provider];
  files.setEnv(envKey, c.apiKey);
  if (c.provider === "custom") {
    files.setYaml(["model", "api_key"], `\${${envKey}}`);
  } else {
    if (isInlineSecret(files.getYaml(["model", "api_key"]))) files.deleteYaml(["model", "api_key"]);
    if (isInlineSecret(files.getYaml(["providers", c.provider, "api_key"]))) files.deleteYaml(["providers", c.provider, "api_key"]);
  }
}

/** A secret written into config.yaml itself rather than referenced (`${VAR}`). */
export function isInlineSecret(v: unknown): boolean {
  return typeof v === "string" && v !== "" && !v.includes("${");
}

type TestResult = { readonly ok: true; readonly detail: string } | { readonly ok: false; readonly error: string };

/** One request with the configuration as it would be written (the process environment still wins over .env, as in the daemon). */
async function testProvider(trial: SetupFiles, ctx: StepContext): Promise<TestResult> {
  let config: Config;
  try {
    config = buildConfig({ yamlText: trial.yamlText(), file: trial.configPath, env: { ...parseEnv(trial.envText()), ...ctx.env }, home: ctx.current.home });
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, error: err.message };
    throw err;
  }
  let switched: string | null = null;
  let runtime: ProviderRuntime;
  try {
    runtime = createStreamFn(config, {
      home: config.home,
      onSwitch: (target) => {
        switched ??= `${target.provider} ${target.model}`;
      },
    });
  } catch (err) {
    if (err instanceof HermesError) return { ok: false, error: err.message };
    throw err;
  }
  const started = performance.now();
  try {
    const request = {
      model: config.model.model,
      system: "This is a connection test.",
      messages: [{ role: "user" as const, content: "Reply with one word: ready" }],
      tools: [],
      maxTokens: 32,
    };
    for await (const ev of runtime.stream(request, AbortSignal.timeout(TEST_TIMEOUT_MS))) {
      if (ev.type === "error") return { ok: false, error: ev.error.message };
      if (ev.type !== "done") continue;
      if (switched) return { ok: false, error: `${config.model.provider} failed; the fallback ${switched} answered instead` };
      return { ok: true, detail: `${config.model.model} answered in ${Math.round(performance.now() - started)} ms` };
    }
    return { ok: false, error: "the answer ended without a result" };
  } finally {
    await runtime.close();
  }
}
