/**
 * Toolsets: named groups of tools, composed with `includes`. The static core is
 * plain data; the registry contributes whatever toolsets its tools were
 * registered under (MCP servers register `mcp-<server>`), merged on read
 * (Hermes Agent's static/dynamic split). A toolset is the exposure gate: a registered tool the
 * enabled toolsets don't reach is never shown to the model.
 */

import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";

export interface ToolsetSpec {
  readonly description: string;
  readonly tools: readonly string[];
  readonly includes: readonly string[];
}

export type ToolsetCatalog = ReadonlyMap<string, ToolsetSpec>;

export interface ToolExclusions {
  readonly toolsets?: readonly string[];
  readonly tools?: readonly string[];
}

export interface ExpandedToolsets {
  /** Every toolset reached, in first-visit order (disabled ones left out). */
  readonly toolsets: readonly string[];
  /** Tool names the enabled toolsets expose, minus exclusions. */
  readonly tools: ReadonlySet<string>;
  /** Requested or included names the catalog does not know. */
  readonly unknown: readonly string[];
}

export interface ResolvedToolsets extends ExpandedToolsets {
  /** The names the configuration asked for, before expansion. */
  readonly requested: readonly string[];
  readonly exclude: Required<ToolExclusions>;
}

const leaf = (description: string, tools: readonly string[]): ToolsetSpec => ({ description, tools, includes: [] });

/** The leaf toolsets the core tools belong to; tool implementations register under these names. */
export const CORE_TOOLSETS = ["terminal", "file", "todo", "memory", "session_search", "skills", "clarify", "web", "delegation", "code_execution"] as const;

/** Toolsets of the gateway's own tools: they reach other chats and the scheduler, so only chat platforms get them. */
export const GATEWAY_TOOLSETS = ["messaging", "cronjob"] as const;

export const PLATFORM_BUNDLES = ["hermes-cli", "hermes-telegram", "hermes-discord", "hermes-slack", "hermes-api", "hermes-cron"] as const;

const bundle = (where: string, includes: readonly string[] = ["hermes-core"]): ToolsetSpec => ({
  description: `Everything the agent uses ${where}.`,
  tools: [],
  includes,
});
const chatBundle = (where: string): ToolsetSpec => bundle(where, ["hermes-core", ...GATEWAY_TOOLSETS]);

export const STATIC_TOOLSETS: Readonly<Record<string, ToolsetSpec>> = Object.freeze({
  terminal: leaf("Run shell commands and manage background processes.", ["terminal", "process"]),
  file: leaf("Read, write, patch and search files.", ["read_file", "write_file", "patch", "search_files"]),
  todo: leaf("A per-session task list.", ["todo"]),
  memory: leaf("Persistent memory across sessions.", ["memory"]),
  session_search: leaf("Search past conversations.", ["session_search"]),
  skills: leaf("List, read and manage skills.", ["skills_list", "skill_view", "skill_manage"]),
  clarify: leaf("Ask the user a clarifying question.", ["clarify"]),
  web: leaf("Search the web and read pages.", ["web_search", "web_extract"]),
  delegation: leaf("Hand sub-tasks to subagents with their own conversations.", ["delegate_task"]),
  code_execution: leaf("Run a script that calls tools itself.", ["execute_code"]),
  messaging: leaf("Send messages to other chats the gateway may write to.", ["send_message"]),
  cronjob: leaf("Schedule work the agent runs later on its own.", ["cronjob"]),
  "hermes-core": { description: "The core tools every platform bundle shares.", tools: [], includes: [...CORE_TOOLSETS] },
  "hermes-cli": bundle("in the local chat CLI"),
  "hermes-telegram": chatBundle("on Telegram"),
  "hermes-discord": chatBundle("on Discord"),
  "hermes-slack": chatBundle("on Slack"),
  "hermes-api": chatBundle("behind the OpenAI-compatible HTTP API"),
  // No one is there to answer a question, and a run does not schedule more runs.
  "hermes-cron": bundle("in scheduled (cron) runs", [...CORE_TOOLSETS.filter((t) => t !== "clarify"), "messaging"]),
});

const isMcp = (name: string): boolean => name.startsWith("mcp-");

/**
 * Static toolsets merged with the registry's: a registered toolset that is
 * also static extends it; a new one appears as a leaf; every platform bundle
 * also includes each `mcp-*` toolset so MCP tools reach every platform.
 */
export function buildToolsetCatalog(
  registered: ReadonlyMap<string, readonly string[]>,
  statics: Readonly<Record<string, ToolsetSpec>> = STATIC_TOOLSETS,
): ToolsetCatalog {
  const catalog = new Map<string, ToolsetSpec>(Object.entries(statics));
  for (const [name, tools] of registered) {
    const known = catalog.get(name);
    catalog.set(name, known ? { ...known, tools: [...new Set([...known.tools, ...tools])] } : leaf(`Tools registered under ${name}.`, [...tools]));
  }
  const mcp = [...registered.keys()].filter(isMcp).sort();
  for (const name of PLATFORM_BUNDLES) {
    const spec = catalog.get(name);
    if (spec && mcp.length > 0) catalog.set(name, { ...spec, includes: [...spec.includes, ...mcp.filter((m) => !spec.includes.includes(m))] });
  }
  return catalog;
}

/**
 * Expands `enabled` through `includes`. A disabled toolset is neither entered
 * nor contributes tools, even when another toolset lists the same tool.
 * Throws HGW_ERR_TOOLSET_CYCLE naming the cycle.
 */
export function expandToolsets(catalog: ToolsetCatalog, enabled: readonly string[], exclude: ToolExclusions = {}): ExpandedToolsets {
  const disabled = new Set(exclude.toolsets ?? []);
  const visited: string[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, stack: readonly string[]): void => {
    if (disabled.has(name)) return;
    if (stack.includes(name)) throw new HermesError("HGW_ERR_TOOLSET_CYCLE", [...stack.slice(stack.indexOf(name)), name].join(" → "));
    if (seen.has(name)) return;
    const spec = catalog.get(name);
    if (!spec) {
      if (!unknown.includes(name)) unknown.push(name);
      return;
    }
    seen.add(name);
    visited.push(name);
    for (const inc of spec.includes) visit(inc, [...stack, name]);
  };
  for (const name of enabled) visit(name, []);
  const blocked = new Set([...(exclude.tools ?? []), ...[...disabled].flatMap((d) => catalog.get(d)?.tools ?? [])]);
  const tools = new Set(visited.flatMap((name) => catalog.get(name)?.tools ?? []).filter((t) => !blocked.has(t)));
  return { toolsets: visited, tools, unknown };
}

/** Every cycle-free check at once, for validating a catalog at boot. Returns the cycle path, or null. */
export function findToolsetCycle(catalog: ToolsetCatalog): string | null {
  try {
    expandToolsets(catalog, [...catalog.keys()]);
    return null;
  } catch (err) {
    if (err instanceof HermesError && err.code === "HGW_ERR_TOOLSET_CYCLE") return err.message;
    throw err;
  }
}

/**
 * What the configuration asks for on `platform`, most specific first:
 * `platform_toolsets.<platform>`, then the platform block's `toolsets`, then
 * the `hermes-<platform>` bundle. The CLI uses top-level `toolsets` instead of a block.
 */
export function requestedToolsets(config: Config, platform: string): readonly string[] {
  const explicit = config.platform_toolsets[platform];
  if (explicit) return explicit;
  if (platform === "cli") return config.toolsets;
  const blocks = config.gateway.platforms as Readonly<Record<string, { readonly toolsets?: readonly string[] | undefined }>>;
  return blocks[platform]?.toolsets ?? [`hermes-${platform}`];
}

/** The full resolution for one platform, honouring `disabled_toolsets` and `disabled_tools`. */
export function resolveToolsets(config: Config, platform: string, catalog: ToolsetCatalog): ResolvedToolsets {
  const requested = requestedToolsets(config, platform);
  const exclude = { toolsets: config.disabled_toolsets, tools: config.disabled_tools };
  return { requested, exclude, ...expandToolsets(catalog, requested, exclude) };
}
