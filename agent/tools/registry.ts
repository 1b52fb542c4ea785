/**
 * The tool registry: one instance per process, built and filled by the
 * composition root (never a module singleton, never import-time registration).
 * Every mutation bumps `generation`, which invalidates the cached per-toolset
 * views; availability probes are cached for 30 s on an injected clock.
 * Each tool's argument schema is compiled once, when it is registered (an
 * override that changes the parameters is compiled when it first applies,
 * and again only when what it returns changes).
 */
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import { type Clock, systemClock } from "../../config/timing/index.js";
import type { ToolSchema } from "../types.js";
import { type ArgsCheck, ArgsCompiler, type ArgsValidator, type SchemaOrigin } from "./args-compiler.js";
import { type AnyToolDefinition, makeToolView, type ToolView, unknownTool, type ViewEntry } from "./tool-view.js";
import { buildToolsetCatalog, expandToolsets, type ToolExclusions, type ToolsetCatalog } from "./toolsets.js";

/** Adjusts a tool's advertised schema at view-build time (e.g. to state configured limits). */
export type SchemaOverride = (schema: ToolSchema) => Partial<Pick<ToolSchema, "description" | "parameters">> | undefined;

export interface ToolRegistryOptions {
  /** Only `now` is read. Default systemClock. */
  readonly clock?: Pick<Clock, "now">;
  readonly availabilityTtlMs?: number;
  /** Cap for tools that don't declare `maxResultChars` (config.agent.tool_result_max_chars). */
  readonly defaultMaxResultChars?: number;
  readonly logger?: Logger;
}

export interface RegisterOptions {
  readonly schemaOverride?: SchemaOverride;
  /**
   * "foreign" for a schema the gateway did not write (an MCP server's): compiled
   * leniently, and one ajv cannot compile leaves the tool's calls unchecked
   * (logged) instead of refusing the tool. Default "own": strict, and a schema
   * ajv refuses is refused with HGW_ERR_TOOL_SCHEMA.
   */
  readonly schemaOrigin?: SchemaOrigin;
}

interface Entry {
  readonly def: AnyToolDefinition;
  readonly origin: SchemaOrigin;
  /** The definition's own parameters, compiled at registration. */
  readonly args: ArgsValidator;
  override?: SchemaOverride | undefined;
  /** Parameters an override returned, as JSON, and their compiled form. */
  overridden?: { readonly json: string; readonly args: ArgsValidator } | undefined;
}

interface Probe {
  readonly value: boolean | Promise<boolean>;
  readonly expiresAt: number;
}

interface CachedView {
  readonly generation: number;
  readonly validUntil: number;
  readonly view: ToolView;
}

export const AVAILABILITY_TTL_MS = 30_000;
const DEFAULT_MAX_RESULT_CHARS = 100_000;

const isMcp = (toolset: string): boolean => toolset.startsWith("mcp-");

export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #probes = new Map<string, Probe>();
  readonly #views = new Map<string, CachedView>();
  readonly #clock: Pick<Clock, "now">;
  readonly #ttl: number;
  readonly #defaultMax: number;
  readonly #logger: Logger | undefined;
  readonly #compiler = new ArgsCompiler();
  #generation = 0;
  #catalog: { generation: number; catalog: ToolsetCatalog } | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#ttl = options.availabilityTtlMs ?? AVAILABILITY_TTL_MS;
    this.#defaultMax = options.defaultMaxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    this.#logger = options.logger;
  }

  /** Bumped on every register, deregister, override change and explicit invalidation. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Adds a tool. Re-registering under the same toolset replaces it (a refresh);
   * taking a name from another toolset throws HGW_ERR_TOOL_CONFLICT unless both
   * toolsets are MCP (`mcp-*`), where a server refresh or overlap is legitimate.
   * The parameters are compiled here; an own schema ajv refuses throws HGW_ERR_TOOL_SCHEMA.
   */
  register(def: AnyToolDefinition, options: RegisterOptions = {}): void {
    assertWellFormed(def);
    const existing = this.#entries.get(def.name);
    if (existing && existing.def.toolset !== def.toolset && !(isMcp(existing.def.toolset) && isMcp(def.toolset))) {
      throw new HermesError("HGW_ERR_TOOL_CONFLICT", `"${def.name}" belongs to toolset "${existing.def.toolset}"; "${def.toolset}" tried to register it.`);
    }
    const origin = options.schemaOrigin ?? "own";
    const args = this.#compile(def.name, def.schema.parameters, origin);
    this.#entries.set(def.name, { def, origin, args, override: options.schemaOverride });
    this.#probes.delete(def.name);
    this.#bump();
  }

  /** Removes a tool; returns whether it was registered. */
  deregister(name: string): boolean {
    const had = this.#entries.delete(name);
    this.#probes.delete(name);
    if (had) this.#bump();
    return had;
  }

  /** Removes every tool of a toolset (an MCP server going away); returns their names. */
  deregisterToolset(toolset: string): readonly string[] {
    const names = [...this.#entries.values()].filter((e) => e.def.toolset === toolset).map((e) => e.def.name);
    for (const name of names) this.deregister(name);
    return names;
  }

  setSchemaOverride(name: string, override: SchemaOverride | undefined): void {
    const entry = this.#entries.get(name);
    if (!entry) throw new HermesError("HGW_ERR_TOOL_UNKNOWN", name);
    entry.override = override;
    entry.overridden = undefined;
    this.#bump();
  }

  /** Forces views to be rebuilt, e.g. after something a schema override reads has changed. */
  invalidate(): void {
    this.#bump();
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.#entries.get(name)?.def;
  }

  names(): readonly string[] {
    return [...this.#entries.keys()].sort();
  }

  /** Tool names per toolset, as registered. */
  toolsetMembers(): ReadonlyMap<string, readonly string[]> {
    const members = new Map<string, string[]>();
    for (const { def } of this.#entries.values()) members.set(def.toolset, [...(members.get(def.toolset) ?? []), def.name]);
    return members;
  }

  /** Static toolsets merged with registered ones; cached per generation. */
  catalog(): ToolsetCatalog {
    if (this.#catalog?.generation !== this.#generation) {
      this.#catalog = { generation: this.#generation, catalog: buildToolsetCatalog(this.toolsetMembers()) };
    }
    return this.#catalog.catalog;
  }

  /** Whether the tool's requirements are met; probes are cached for the TTL, failures count as unavailable. */
  async available(name: string): Promise<boolean> {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    const check = entry.def.available;
    if (!check) return true;
    const now = this.#clock.now();
    const cached = this.#probes.get(name);
    if (cached && now < cached.expiresAt) return cached.value;
    const value = this.#probe(name, () => check.call(entry.def));
    this.#probes.set(name, { value, expiresAt: now + this.#ttl });
    const settled = await value;
    if (this.#probes.get(name)?.value === value) this.#probes.set(name, { value: settled, expiresAt: now + this.#ttl });
    return settled;
  }

  /** The schemas offered to the model for these toolsets (available tools only, overrides applied). */
  async definitions(enabledToolsets: readonly string[], exclude: ToolExclusions = {}): Promise<readonly ToolSchema[]> {
    return (await this.view(enabledToolsets, exclude)).schemas;
  }

  /** A per-turn view for the agent loop; cached per generation until an availability probe expires. */
  async view(enabledToolsets: readonly string[], exclude: ToolExclusions = {}): Promise<ToolView> {
    const key = JSON.stringify([[...enabledToolsets].sort(), [...(exclude.toolsets ?? [])].sort(), [...(exclude.tools ?? [])].sort()]);
    const cached = this.#views.get(key);
    if (cached && cached.generation === this.#generation && this.#clock.now() < cached.validUntil) return cached.view;
    const generation = this.#generation;
    const names = [...expandToolsets(this.catalog(), enabledToolsets, exclude).tools].filter((n) => this.#entries.has(n));
    const checks = await Promise.all(names.map(async (n) => [n, await this.available(n)] as const));
    const tools = checks.filter(([, ok]) => ok).map(([n]) => this.#effective(n));
    const view = makeToolView(tools, this.#defaultMax);
    if (generation === this.#generation) this.#views.set(key, { generation, validUntil: this.#validUntil(names), view });
    return view;
  }

  /** Validates against the schema the model is shown (override applied); a valid call comes back with its defaults filled in. */
  validateArgs(name: string, args: Readonly<Record<string, unknown>>): ArgsCheck {
    if (!this.#entries.has(name)) return unknownTool(name);
    return this.#effective(name).args.check(args);
  }

  /** Why a tool's calls pass unchecked (a foreign schema ajv could not compile); undefined when they are checked. */
  uncheckedReason(name: string): string | undefined {
    const entry = this.#entries.get(name);
    return entry ? this.#effective(name).args.unchecked : undefined;
  }

  maxResultChars(name: string): number {
    return this.#entries.get(name)?.def.maxResultChars ?? this.#defaultMax;
  }

  #effective(name: string): ViewEntry {
    const entry = this.#entries.get(name);
    if (!entry) throw new HermesError("HGW_ERR_TOOL_UNKNOWN", name);
    const base: ToolSchema = { ...entry.def.schema, name };
    const patch = entry.override?.(base);
    const schema = patch ? { ...base, ...patch, name } : base;
    return { def: entry.def, schema, args: patch?.parameters ? this.#overriddenArgs(entry, patch.parameters) : entry.args };
  }

  #overriddenArgs(entry: Entry, parameters: ToolSchema["parameters"]): ArgsValidator {
    const json = JSON.stringify(parameters);
    if (entry.overridden?.json !== json) entry.overridden = { json, args: this.#compile(entry.def.name, parameters, entry.origin) };
    return entry.overridden.args;
  }

  #compile(name: string, parameters: ToolSchema["parameters"], origin: SchemaOrigin): ArgsValidator {
    let args: ArgsValidator;
    try {
      args = this.#compiler.compile(parameters, origin);
    } catch (err) {
      throw new HermesError("HGW_ERR_TOOL_SCHEMA", `tool "${name}": ${err instanceof Error ? err.message : String(err)}`);
    }
    if (args.unchecked)
      this.#logger?.warn(
        { tool: name, reason: args.unchecked },
        `the argument schema of tool ${name} cannot be compiled; its calls go to the server unchecked`,
      );
    return args;
  }

  async #probe(name: string, run: () => boolean | Promise<boolean>): Promise<boolean> {
    try {
      return Boolean(await run());
    } catch (err) {
      this.#logger?.warn({ err, tool: name }, "tool availability check failed; treating the tool as unavailable");
      return false;
    }
  }

  #validUntil(names: readonly string[]): number {
    let until = Number.POSITIVE_INFINITY;
    for (const n of names) {
      const probe = this.#probes.get(n);
      if (probe) until = Math.min(until, probe.expiresAt);
    }
    return until;
  }

  #bump(): void {
    this.#generation++;
    this.#views.clear();
  }
}

function assertWellFormed(def: AnyToolDefinition): void {
  const params = def.schema.parameters;
  if (!def.name || def.schema.name !== def.name || params["type"] !== "object") {
    throw new HermesError("HGW_ERR_TOOL_SCHEMA", `tool "${def.name}" (schema name "${def.schema.name}", parameters.type ${JSON.stringify(params["type"])})`);
  }
}
