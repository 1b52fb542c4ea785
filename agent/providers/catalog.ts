/**
 * What we know about providers and model families without being told: default
 * base URLs, which wire protocol a provider speaks, context windows per model
 * family, and which models want the `developer` role. Config always wins; this
 * table only fills what the config leaves out.
 */
import type { ApiMode } from "../../config/schema.js";

export interface ProviderDefaults {
  /** Undefined for `custom`: the config must give one. */
  readonly baseUrl?: string;
  readonly apiMode?: ApiMode;
  /** Whether requests without an API key make sense (local servers). */
  readonly keyOptional: boolean;
  readonly defaultHeaders?: Readonly<Record<string, string>>;
}

/** Built-in providers. Any other name is treated like `custom`. */
export const PROVIDER_CATALOG: Readonly<Record<string, ProviderDefaults>> = {
  openrouter: {
    baseUrl: "https://openrouter.ai/api/v1",
    keyOptional: false,
    // OpenRouter attributes traffic by these; harmless elsewhere.
    defaultHeaders: { "HTTP-Referer": "https://github.com/hermes-gateway", "X-Title": "hermes-gateway" },
  },
  openai: { baseUrl: "https://api.openai.com/v1", keyOptional: false },
  anthropic: { baseUrl: "https://api.anthropic.com", apiMode: "anthropic_messages", keyOptional: false },
  "openai-codex": { baseUrl: "https://chatgpt.com/backend-api/codex", apiMode: "codex_responses", keyOptional: false },
  custom: { keyOptional: true },
};

export function providerDefaults(provider: string): ProviderDefaults {
  return PROVIDER_CATALOG[provider] ?? { keyOptional: true };
}

export interface ModeInputs {
  readonly explicit?: ApiMode | undefined;
  readonly provider: string;
  readonly baseUrl?: string | undefined;
}

/**
 * Hermes Agent's order for choosing the wire protocol: explicit → provider →
 * base-URL heuristics → chat_completions.
 */
export function resolveApiMode(m: ModeInputs): ApiMode {
  if (m.explicit) return m.explicit;
  const byProvider = PROVIDER_CATALOG[m.provider]?.apiMode;
  if (byProvider) return byProvider;
  return modeFromBaseUrl(m.baseUrl) ?? "chat_completions";
}

function modeFromBaseUrl(baseUrl: string | undefined): ApiMode | undefined {
  if (!baseUrl) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined; // the schema validated it; an unparsable value just gets no heuristic
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (url.hostname === "api.anthropic.com" || path.endsWith("/anthropic")) return "anthropic_messages";
  if (path.endsWith("/responses") || path.includes("/backend-api/codex") || (url.hostname === "chatgpt.com" && path.includes("codex"))) {
    return "codex_responses";
  }
  return undefined;
}

/**
 * The SDK wants the base without the endpoint: the Anthropic SDK appends
 * `/v1/messages` itself, the OpenAI SDK appends `/responses` or `/chat/completions`.
 */
export function normalizeBaseUrl(baseUrl: string, mode: ApiMode): string {
  let b = baseUrl.replace(/\/+$/, "");
  if (mode === "anthropic_messages") b = b.replace(/\/v1$/, "").replace(/\/v1\/messages$/, "");
  if (mode === "codex_responses") b = b.replace(/\/responses$/, "");
  if (mode === "chat_completions") b = b.replace(/\/chat\/completions$/, "");
  return b;
}

/** Context windows by model family; first match wins, so specific patterns come first. */
const CONTEXT_LENGTHS: readonly (readonly [RegExp, number])[] = [
  [/claude.*(opus|sonnet|haiku)-?4|claude-(opus|sonnet|haiku)|claude-3/, 200_000],
  [/claude/, 200_000],
  [/gpt-5/, 400_000],
  [/gpt-4\.1/, 1_047_576],
  [/gpt-4o|gpt-4-turbo/, 128_000],
  [/(^|\/)o[134](-|$)/, 200_000],
  [/codex/, 400_000],
  [/gemini-(2|3)/, 1_048_576],
  [/grok-4/, 256_000],
  [/kimi-k2|moonshot/, 262_144],
  [/deepseek/, 128_000],
  [/qwen3/, 262_144],
  [/glm-4\.[5-9]/, 200_000],
  [/llama-?(3|4)/, 128_000],
  [/mistral-large|mistral-medium/, 128_000],
];

export const DEFAULT_CONTEXT_LENGTH = 128_000;

/** The configured window if any, else the family's, else 128k. */
export function contextLengthFor(model: string, configured?: number): number {
  if (configured) return configured;
  const m = model.toLowerCase();
  return CONTEXT_LENGTHS.find(([re]) => re.test(m))?.[1] ?? DEFAULT_CONTEXT_LENGTH;
}

/** The model's own name without an OpenRouter-style vendor prefix. */
const bareModel = (model: string): string => model.toLowerCase().split("/").pop() ?? "";

/**
 * GPT-5, the o-series and Codex models weigh `developer` instructions above
 * `system` (Hermes Agent swaps the role for them too); the swap happens only
 * at the wire, so the rest of the code only ever sees `system`.
 */
export function usesDeveloperRole(model: string): boolean {
  const m = bareModel(model);
  return /^gpt-5/.test(m) || /^o[134](-|$)/.test(m) || m.includes("codex");
}

/** Reasoning models reject `max_tokens` and a non-default temperature. */
export const isReasoningFamily = usesDeveloperRole;

/** Kimi/Moonshot set temperature server-side per mode (thinking or not); sending any value, even the same one, conflicts. */
export function omitsTemperature(model: string): boolean {
  const m = bareModel(model);
  return isReasoningFamily(model) || m.includes("kimi") || m.includes("moonshot");
}

export function isOpenRouter(baseUrl: string): boolean {
  return hostOf(baseUrl) === "openrouter.ai";
}

export function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return ""; // unparsable: matches no host rule
  }
}

/**
 * Which model families take images in the user turn; first match wins, so the
 * text-only members of a vision family come first. Unknown models count as
 * text-only: their images are described by the auxiliary `vision` model
 * instead, which works everywhere. `model.vision` in the config overrides this.
 */
const VISION_FAMILIES: readonly (readonly [RegExp, boolean])[] = [
  [/gpt-3\.5|(^|\/)o1-(mini|preview)|(^|\/)o3-mini|claude-(instant|2)/, false],
  [/claude/, true],
  [/gpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-4-vision|gpt-5/, true],
  [/(^|\/)o[134](-|$)|codex/, true],
  [/gemini|gemma-3/, true],
  [/grok-4|grok-2-vision|grok-vision/, true],
  [/llama-?4|llama-3\.2-\d+b-vision|llava|minicpm-v|moondream/, true],
  [/qwen[\d.]*-?vl|qvq/, true],
  [/pixtral|mistral-small-3\.[12]|mistral-medium-3/, true],
  [/glm-4(\.\d+)?v/, true],
  [/vision|-vl\b/, true],
];

/** Whether `model` accepts image content parts, by family (see VISION_FAMILIES). */
export function supportsVision(model: string): boolean {
  const m = model.toLowerCase();
  return VISION_FAMILIES.find(([re]) => re.test(m))?.[1] ?? false;
}
