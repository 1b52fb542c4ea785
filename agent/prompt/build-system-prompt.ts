/**
 * System prompt assembly, in Hermes Agent's layer order, built ONCE per session; the
 * caller stores it in sessions.system_prompt and never rebuilds it mid-session,
 * which is what keeps the provider's prompt cache warm. Nine layers in order:
 *   1 identity  2 platform hint  3 environment  4 tool-use enforcement
 *   5 model guidance  6 behavioural guidance  7 skills index
 *   8 context files  9 memory block
 * plus the ephemeral prompt, returned separately because it never enters
 * history or trajectories.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ContextFile, capContextText, loadContextFiles, renderContextFiles } from "./context-files.js";
import { type EnvironmentFacts, environmentHint } from "./environment.js";
import { screenContextFile } from "./injection-scan.js";
import { platformHint } from "./platform-hints.js";
import {
  DEFAULT_IDENTITY,
  GOOGLE_GUIDANCE_MODELS,
  GOOGLE_MODEL_OPERATIONAL_GUIDANCE,
  MEMORY_GUIDANCE,
  OPENAI_GUIDANCE_MODELS,
  OPENAI_MODEL_EXECUTION_GUIDANCE,
  SESSION_SEARCH_GUIDANCE,
  SKILLS_GUIDANCE,
  STEER_CHANNEL_NOTE,
  TOOL_USE_ENFORCEMENT_GUIDANCE,
  TOOL_USE_ENFORCEMENT_MODELS,
} from "./texts.js";

export const PROMPT_LAYERS = [
  "identity",
  "platform",
  "environment",
  "tool_enforcement",
  "model_guidance",
  "behaviour",
  "skills",
  "context_files",
  "memory",
] as const;
export type PromptLayerName = (typeof PROMPT_LAYERS)[number];

export interface SystemPromptInput {
  /** HERMES_HOME, where SOUL.md may live. */
  readonly home: string;
  /** config.agent.identity: replaces the default identity; SOUL.md replaces both. */
  readonly identity?: string | undefined;
  readonly platform: string;
  /** The platform block's `hint`, appended to the built-in hint. */
  readonly platformHint?: string | undefined;
  readonly environment: EnvironmentFacts;
  readonly model: string;
  /** Names of the tools this session offers; guidance for absent tools is left out. */
  readonly toolNames: Iterable<string>;
  readonly skillsIndex?: string | undefined;
  readonly memoryBlock?: string | undefined;
  /** Where to look for project context files; null skips them. */
  readonly contextDir: string | null;
  /** config.agent.ephemeral_prompt */
  readonly ephemeralPrompt?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface PromptLayer {
  readonly name: PromptLayerName;
  readonly text: string;
}

export interface BuiltSystemPrompt {
  /** The frozen session prompt (store it; never rebuild mid-session). */
  readonly system: string;
  /** Sent after `system` at call time; never stored in history or trajectories. */
  readonly ephemeral: string;
  /** Non-empty layers in order, for inspection and tests. */
  readonly layers: readonly PromptLayer[];
  readonly contextFiles: readonly ContextFile[];
  /** Truncations and blocked files, for the operator's log. */
  readonly warnings: readonly string[];
  /** Files left out because they look like a prompt injection: the person should be told (see blockedFileNotice). */
  readonly blocked: readonly BlockedFile[];
}

export interface BlockedFile {
  /** As the prompt labels it: "SOUL.md", "AGENTS.md", ".cursor/rules/x.mdc". */
  readonly file: string;
  readonly findings: readonly string[];
}

/** What the person reads about a file that was not loaded. */
export function blockedFileNotice(b: BlockedFile): string {
  return `⚠️ ${b.file} was not loaded into my instructions: it looks like a prompt injection (${b.findings.join(", ")}). Check the file; everything else works as usual.`;
}

/**
 * What the prompt reads from disk: SOUL.md and the project's context files.
 * Loaded apart from the assembly so a caller building many sessions' prompts
 * at once can share one read (see the gateway's prompt builder).
 */
export interface PromptFiles {
  readonly identity: { readonly text: string; readonly warnings: readonly string[]; readonly blocked: readonly string[] };
  readonly contextFiles: readonly ContextFile[];
}

export type PromptFileInput = Pick<SystemPromptInput, "home" | "identity" | "contextDir" | "signal">;

/** What the layers are assembled from besides the files: everything in SystemPromptInput that is not about reading them. */
export type PromptLayerInput = Omit<SystemPromptInput, keyof PromptFileInput>;

export async function loadPromptFiles(input: PromptFileInput): Promise<PromptFiles> {
  const [identity, contextFiles] = await Promise.all([
    loadIdentity(input.home, input.identity, input.signal),
    input.contextDir ? loadContextFiles(input.contextDir, input.signal) : Promise.resolve([]),
  ]);
  return { identity, contextFiles };
}

export async function buildSystemPrompt(input: SystemPromptInput): Promise<BuiltSystemPrompt> {
  return assembleSystemPrompt(input, await loadPromptFiles(input));
}

/** The nine layers from the input and the files already read for it. */
export function assembleSystemPrompt(input: PromptLayerInput, files: PromptFiles): BuiltSystemPrompt {
  const tools = new Set(input.toolNames);
  const model = input.model.toLowerCase();
  const { identity, contextFiles } = files;
  const texts: Record<PromptLayerName, string> = {
    identity: identity.text,
    platform: platformHint(input.platform, input.platformHint),
    environment: environmentHint(input.environment),
    tool_enforcement: matches(model, TOOL_USE_ENFORCEMENT_MODELS) && tools.size > 0 ? TOOL_USE_ENFORCEMENT_GUIDANCE : "",
    model_guidance: modelGuidance(model, tools),
    behaviour: behaviourGuidance(tools),
    skills: input.skillsIndex?.trim() ?? "",
    context_files: renderContextFiles(contextFiles),
    memory: input.memoryBlock?.trim() ?? "",
  };
  const layers = PROMPT_LAYERS.map((name) => ({ name, text: texts[name] })).filter((l) => l.text);
  return {
    system: layers.map((l) => l.text).join("\n\n"),
    ephemeral: input.ephemeralPrompt?.trim() ?? "",
    layers,
    contextFiles,
    warnings: [...identity.warnings, ...contextWarnings(contextFiles)],
    blocked: [
      ...(identity.blocked.length ? [{ file: "SOUL.md", findings: identity.blocked }] : []),
      ...contextFiles.filter((c) => c.blocked.length > 0).map((c) => ({ file: c.label, findings: c.blocked })),
    ],
  };
}

async function loadIdentity(home: string, configured: string | undefined, signal?: AbortSignal): Promise<PromptFiles["identity"]> {
  const path = join(home, "SOUL.md");
  let soul = "";
  try {
    soul = (await readFile(path, { encoding: "utf8", signal })).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (!soul) return { text: configured?.trim() || DEFAULT_IDENTITY, warnings: [], blocked: [] };
  const screened = screenContextFile(soul, "SOUL.md");
  const capped = capContextText(screened.text, "SOUL.md", path);
  const warnings = [
    ...(screened.blocked.length ? [`SOUL.md blocked: ${screened.blocked.join(", ")}`] : []),
    ...(capped.truncated ? [`SOUL.md truncated to its head and tail`] : []),
  ];
  return { text: capped.text, warnings, blocked: screened.blocked };
}

function modelGuidance(model: string, tools: ReadonlySet<string>): string {
  if (tools.size === 0) return "";
  if (matches(model, GOOGLE_GUIDANCE_MODELS)) return GOOGLE_MODEL_OPERATIONAL_GUIDANCE;
  if (matches(model, OPENAI_GUIDANCE_MODELS)) return OPENAI_MODEL_EXECUTION_GUIDANCE;
  return "";
}

function behaviourGuidance(tools: ReadonlySet<string>): string {
  return [
    tools.has("memory") ? MEMORY_GUIDANCE : "",
    tools.has("session_search") ? SESSION_SEARCH_GUIDANCE : "",
    tools.has("skill_manage") ? SKILLS_GUIDANCE : "",
    tools.size > 0 ? STEER_CHANNEL_NOTE : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}

function matches(model: string, families: readonly string[]): boolean {
  return families.some((f) => model.includes(f));
}

function contextWarnings(files: readonly ContextFile[]): string[] {
  return files.flatMap((f) => [
    ...(f.blocked.length ? [`${f.label} blocked: ${f.blocked.join(", ")}`] : []),
    ...(f.truncated ? [`${f.label} truncated to its head and tail`] : []),
  ]);
}
