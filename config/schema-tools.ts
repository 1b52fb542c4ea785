/**
 * Config sections of the built-in tools: `memory` and `skills` (what the agent
 * keeps across sessions), and the tools that reach beyond the host: `web`
 * (search and page extraction), `delegation` (subagents) and `code_execution`
 * (scripts that call tools). Every default lives here, like the rest of the schema.
 */
import ipaddr from "ipaddr.js";
import * as z from "zod";
import { secret } from "./secret-meta.js";

export const MemorySchema = z
  .object({
    enabled: z.boolean().default(true),
    memory_char_limit: z.number().int().min(100).default(2200),
    user_char_limit: z.number().int().min(100).default(1375),
  })
  .strict()
  .prefault({});

export const SkillsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Extra read-only skill directories besides HERMES_HOME/skills. */
    external_dirs: z.array(z.string()).default([]),
  })
  .strict()
  .prefault({});

export const WEB_SEARCH_BACKENDS = ["auto", "duckduckgo", "searxng", "brave", "tavily"] as const;
export const WEB_EXTRACT_BACKENDS = ["direct", "tavily"] as const;

const keyedApi = (url: string) =>
  z
    .object({ api_key: secret().optional(), url: z.string().url().default(url) })
    .strict()
    .prefault({});

export const WebSchema = z
  .object({
    /** `auto`: tavily when it has a key, else brave when it has a key, else searxng when it has a URL, else duckduckgo. */
    search_backend: z.enum(WEB_SEARCH_BACKENDS).default("auto"),
    /** `direct` fetches pages from this host (SSRF-guarded); `tavily` asks Tavily's extract API. */
    extract_backend: z.enum(WEB_EXTRACT_BACKENDS).default("direct"),
    duckduckgo: z
      .object({ url: z.string().url().default("https://html.duckduckgo.com/html/") })
      .strict()
      .prefault({}),
    /** A SearXNG instance with the JSON output format enabled. */
    searxng: z.object({ url: z.string().url().optional() }).strict().prefault({}),
    brave: keyedApi("https://api.search.brave.com/res/v1/web/search"),
    tavily: keyedApi("https://api.tavily.com"),
    /** Results per search when the model does not say; the model may ask for up to 20. */
    max_results: z.number().int().min(1).max(20).default(5),
    /** URLs per web_extract call. */
    max_urls: z.number().int().min(1).max(20).default(5),
    /** One request (search API call or page fetch, redirects included). */
    timeout_s: z.number().positive().default(30),
    max_redirects: z.number().int().min(0).max(20).default(5),
    /** A page body larger than this is cut off at this many bytes. */
    max_page_bytes: z
      .number()
      .int()
      .min(1024)
      .default(5 * 1024 * 1024),
    /** Pages at least this long (characters of markdown) are summarised by auxiliary.web_extract. */
    summarize: z.boolean().default(true),
    summarize_min_chars: z.number().int().min(0).default(5000),
    summary_max_chars: z.number().int().min(500).default(5000),
    /** Longer extracted text is not summarised (nor returned whole): the model is told to find a narrower source. */
    max_content_chars: z.number().int().min(10_000).default(2_000_000),
    /** Let web_extract fetch private, loopback, link-local and other non-public addresses (an intranet). */
    allow_private_urls: z.boolean().default(false),
    /** Non-public addresses web_extract may still fetch: IPs or CIDR ranges, e.g. [10.20.0.0/16, 192.168.1.5]. */
    private_allowlist: z
      .array(z.string().refine((e) => (e.includes("/") ? ipaddr.isValidCIDR(e) : ipaddr.isValid(e)), { message: "not an IP address or CIDR range" }))
      .default([]),
    user_agent: z.string().default("Mozilla/5.0 (compatible; hermes-gateway)"),
  })
  .strict()
  .superRefine((w, ctx) => {
    const need = (ok: boolean, path: string[], message: string) => ok || ctx.addIssue({ code: "custom", path, message });
    need(w.search_backend !== "searxng" || Boolean(w.searxng.url), ["searxng", "url"], "search_backend searxng needs the instance URL");
    need(w.search_backend !== "brave" || Boolean(w.brave.api_key), ["brave", "api_key"], "search_backend brave needs an API key (BRAVE_API_KEY)");
    const tavily = w.search_backend === "tavily" || w.extract_backend === "tavily";
    need(!tavily || Boolean(w.tavily.api_key), ["tavily", "api_key"], "the tavily backend needs an API key (TAVILY_API_KEY)");
  })
  .prefault({});

export const DelegationSchema = z
  .object({
    /** Children one delegate_task call may run (they run at once). */
    max_concurrent_children: z.number().int().min(1).max(8).default(3),
    /** 1: only the agent a person talks to may delegate; 2–3 let orchestrator children delegate too. */
    max_spawn_depth: z.number().int().min(1).max(3).default(1),
    /** Each child's own cap; every child iteration also spends from its parent's budget. */
    max_iterations: z.number().int().min(1).max(1000).default(50),
    /** The model children talk to; default: the parent's. */
    model: z.string().optional(),
  })
  .strict()
  .prefault({});

export const CodeExecutionSchema = z
  .object({
    /** `auto`: Python 3 when an interpreter runs, else Node.js (always present). */
    language: z.enum(["auto", "python", "node"]).default("auto"),
    /** The Python interpreter (a command on PATH or an absolute path). */
    python: z.string().min(1).default("python3"),
    timeout_s: z.number().positive().max(3600).default(300),
    /** Tool calls one script may make. */
    max_tool_calls: z.number().int().min(1).max(1000).default(50),
    /** stdout kept for the model (head and tail). */
    max_output_chars: z.number().int().min(1000).default(50_000),
    max_stderr_chars: z.number().int().min(500).default(10_000),
    /** Extra environment variables scripts receive (besides PATH, HOME, locale, TZ, TMPDIR). */
    env_passthrough: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
  })
  .strict()
  .prefault({});
