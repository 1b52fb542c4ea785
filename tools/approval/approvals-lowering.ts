/**
 * Whether an edit of the gateway's own config (config.yaml or the .env
 * beside it) would lower its approval settings: a less strict
 * `approvals.mode` (manual > smart > off), cron runs approved unasked,
 * deny rules removed, allowlist entries added, or MCP reloads no longer
 * confirmed. The agent may never make such an edit, whoever approves it.
 */
import { parseEnv } from "node:util";
import { parseDocument } from "yaml";
import { type Config, ConfigSchema } from "../../config/schema.js";

type Approvals = Config["approvals"];

const MODE_RANK: Readonly<Record<string, number>> = { manual: 2, smart: 1, off: 0 };

/** What would be lowered (e.g. "approvals.mode: manual → off"), or null when nothing is. */
export function approvalsLowering(before: string | null, after: string, kind: "yaml" | "env"): string | null {
  return kind === "env" ? envLowering(before ?? "", after) : yamlLowering(before ?? "", after);
}

function yamlLowering(before: string, after: string): string | null {
  const was = effectiveApprovals(before);
  const now = effectiveApprovals(after);
  if (was === null || now === null) return null;
  const removed = was.deny.filter((d) => !now.deny.includes(d));
  const added = now.allowlist.filter((a) => !was.allowlist.includes(a));
  if ((MODE_RANK[now.mode] ?? 0) < (MODE_RANK[was.mode] ?? 0)) return `approvals.mode: ${was.mode} → ${now.mode}`;
  if (was.cron_mode === "deny" && now.cron_mode === "approve") return "approvals.cron_mode: deny → approve";
  if (removed.length > 0) return `approvals.deny loses ${removed.map((r) => JSON.stringify(r)).join(", ")}`;
  if (added.length > 0) return `approvals.allowlist gains ${added.map((a) => JSON.stringify(a)).join(", ")}`;
  if (was.mcp_reload_confirm && !now.mcp_reload_confirm) return "approvals.mcp_reload_confirm: true → false";
  return null;
}

/**
 * The approvals section as the gateway would see it, or null when the text
 * would not load at all (the gateway then refuses to start, which lowers
 * nothing). `${VAR:-default}` counts as its default and `${VAR}` as empty,
 * so a setting hidden behind a variable is judged by what it falls back to.
 */
function effectiveApprovals(text: string): Approvals | null {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return null;
  const raw = (doc.toJS() ?? {}) as Record<string, unknown>;
  if (typeof raw !== "object" || Array.isArray(raw)) return null;
  const expanded = JSON.parse(
    JSON.stringify(raw.approvals ?? {}).replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::-([^}"]*))?\}/g, (_m, fallback: string | undefined) => fallback ?? ""),
  ) as unknown;
  const parsed = ConfigSchema.shape.approvals.safeParse(expanded);
  return parsed.success ? parsed.data : null;
}

function envLowering(before: string, after: string): string | null {
  const was = readEnv(before).HERMES_APPROVAL_MODE || "manual";
  const now = readEnv(after).HERMES_APPROVAL_MODE || "manual";
  return (MODE_RANK[now] ?? 0) < (MODE_RANK[was] ?? 2) ? `HERMES_APPROVAL_MODE: ${was} → ${now}` : null;
}

function readEnv(text: string): Record<string, string | undefined> {
  try {
    return parseEnv(text) as Record<string, string | undefined>;
  } catch {
    return { HERMES_APPROVAL_MODE: "(unreadable)" };
  }
}
