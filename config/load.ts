/**
 * Builds the frozen configuration from its layers, lowest first:
 * schema defaults → config.yaml → environment overrides → `${VAR}` expansion.
 * Every problem is collected and reported at once, each with its YAML path and line.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { type Document, isMap, isSeq, LineCounter, parseDocument } from "yaml";
import type * as z from "zod";
import { ENV_OVERRIDES } from "./env.js";
import { ERRORS } from "./errors.js";
import { type Config, ConfigSchema } from "./schema.js";

export interface ConfigProblem {
  /** Dotted YAML path, e.g. `gateway.platforms.telegram.token`. */
  readonly path: string;
  readonly message: string;
  /** 1-based line in the YAML file, when the path points into it. */
  readonly line?: number;
}

/** Thrown (once, with every problem) when the configuration cannot be used. */
export class ConfigError extends Error {
  constructor(
    readonly problems: readonly ConfigProblem[],
    readonly file: string | null,
    readonly code: "HGW_ERR_CONFIG_INVALID" | "HGW_ERR_CONFIG_NOT_FOUND" = "HGW_ERR_CONFIG_INVALID",
  ) {
    super(code === "HGW_ERR_CONFIG_INVALID" ? formatProblems(problems, file) : `${ERRORS[code]} (${file ?? "no path"})`);
    this.name = "ConfigError";
  }
}

export function formatProblems(problems: readonly ConfigProblem[], file: string | null): string {
  const where = file ? ` in ${file}` : "";
  const lines = problems.map((p) => `  - ${p.path || "(root)"}${p.line ? ` (line ${p.line})` : ""}: ${p.message}`);
  return `Configuration is invalid${where} (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines.join("\n")}`;
}

export interface LoadOptions {
  /** HERMES_HOME: where config.yaml, .env and state.db live. */
  readonly home: string;
  /** Explicit config file (`--config PATH`); otherwise HERMES_HOME/config.yaml if it exists. */
  readonly configPath?: string;
  /** The process environment; `HERMES_HOME/.env` fills keys it lacks. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Reads the files and validates. Throws ConfigError listing every problem. */
export async function loadConfig(opts: LoadOptions): Promise<Config> {
  const path = opts.configPath ?? join(opts.home, "config.yaml");
  const text = await readOptional(path);
  if (text === null && opts.configPath) {
    throw new ConfigError([{ path: "", message: `config file not found: ${opts.configPath}` }], opts.configPath, "HGW_ERR_CONFIG_NOT_FOUND");
  }
  const dotenv = await readOptional(join(opts.home, ".env"));
  const env = { ...(dotenv ? parseEnv(dotenv) : {}), ...opts.env };
  return buildConfig({ yamlText: text ?? "", file: text === null ? null : path, env, home: opts.home });
}

export interface BuildInput {
  readonly yamlText: string;
  readonly file: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

/** Pure core of loading: text and environment in, frozen config or ConfigError out. */
export function buildConfig(input: BuildInput): Config {
  const lineCounter = new LineCounter();
  const doc = parseDocument(input.yamlText, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const problems: ConfigProblem[] = doc.errors.map((e) => ({
    path: "",
    message: `YAML syntax: ${e.message.split("\n")[0]}`,
    line: e.linePos?.[0]?.line,
  }));
  if (problems.length > 0) throw new ConfigError(problems, input.file);

  const raw = toPlain(doc, input.file);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError([{ path: "", message: "the top level must be a mapping of sections" }], input.file);
  }
  const expanded = expandVars(raw, input.env, [], problems);
  applyEnvOverrides(expanded as Record<string, unknown>, input.env);
  // Parsed once per process: without zod's compiled fast path, whose compiling costs more (≈ 40 ms at start) than it saves.
  const result = ConfigSchema.safeParse(expanded, { jitless: true });
  if (!result.success) {
    problems.push(...result.error.issues.map((issue) => toProblem(issue, doc, lineCounter)));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems, input.file);
  return deepFreeze({ ...result.data, home: input.home, configPath: input.file }) as Config;
}

/**
 * How many alias resolutions the YAML may make while it is converted. A small
 * file of nested aliases (a "billion laughs" bomb) would otherwise expand to
 * gigabytes; a real config reuses a block a few times.
 */
const MAX_ALIAS_COUNT = 100;

/** The document as plain values; an alias bomb (or any other failure to convert) is a config problem. */
function toPlain(doc: Document, file: string | null): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    const bomb = err instanceof ReferenceError && /alias/i.test(err.message);
    const why = bomb
      ? `YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} alias expansions; nested aliases, a "billion laughs" bomb?)`
      : `YAML: ${(err as Error).message}`;
    throw new ConfigError([{ path: "", message: why }], file);
  }
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` and `${VAR:-default}` inside string values; an unset variable without a default is a problem. */
function expandVars(value: unknown, env: BuildInput["env"], path: (string | number)[], problems: ConfigProblem[]): unknown {
  if (typeof value === "string") {
    return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== "") return v;
      if (fallback !== undefined) return fallback;
      problems.push({ path: path.join("."), message: `environment variable ${name} is not set` });
      return "";
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandVars(v, env, [...path, i], problems));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandVars(v, env, [...path, k], problems)]));
  }
  return value;
}

function applyEnvOverrides(target: Record<string, unknown>, env: BuildInput["env"]): void {
  for (const rule of ENV_OVERRIDES) {
    const v = env[rule.env];
    if (v === undefined || v === "") continue;
    setPath(target, rule.path, rule.parse ? rule.parse(v) : v);
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

function toProblem(issue: z.core.$ZodIssue, doc: Document, lc: LineCounter): ConfigProblem {
  const path = issue.path.map(String);
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    message = `unknown key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  }
  const keyPath = issue.code === "unrecognized_keys" && issue.keys[0] ? [...path, issue.keys[0]] : path;
  return { path: keyPath.join("."), message, line: lineOf(doc, keyPath, lc) };
}

/** The line of the deepest YAML node that exists along `path`. */
function lineOf(doc: Document, path: readonly string[], lc: LineCounter): number | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === key);
      if (!pair) break;
      offset = (pair.key as { range?: [number, number, number] })?.range?.[0];
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(key)] as { range?: [number, number, number] } | undefined;
      if (!item) break;
      offset = item.range?.[0];
      node = item;
    } else break;
  }
  return offset === undefined ? undefined : lc.linePos(offset).line;
}

/** The file's text, null when it does not exist; unreadable (a directory, no permission) is a config problem. */
async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new ConfigError([{ path: "", message: `cannot read ${path}: ${code ?? (err as Error).message}` }], path);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
