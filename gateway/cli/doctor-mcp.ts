/**
 * `doctor`'s MCP lines. The state of each configured server lives in the
 * running daemon, so doctor asks it, the way a monitor would: `/readyz` on the
 * configured HTTP address lists one `mcp:<name>` check per server (ready,
 * connecting, retrying, failed — with the reason). With no daemon answering,
 * doctor says so and lists what is configured. One more line says whether the
 * MCP worker threads and servers can run under SCHED_IDLE here (`mcp.sched_idle` needs chrt).
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { Config } from "../../config/index.js";
import type { ReadinessCheck } from "../http.js";
import type { SetupLine } from "../setup-report.js";
import { mcpCheckName } from "../wiring/mcp.js";
import { daemonGet, daemonUrl } from "./daemon-url.js";

/** How long doctor waits for the daemon's /readyz. */
const READYZ_TIMEOUT_MS = 2_000;

export interface McpDoctorOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
}

export async function mcpDoctorLines(config: Config, opts: McpDoctorOptions): Promise<SetupLine[]> {
  const servers = Object.entries(config.mcp_servers);
  if (servers.length === 0) return [];
  const url = `${daemonUrl(config)}/readyz`;
  const checks = await daemonChecks(url, opts.timeoutMs ?? READYZ_TIMEOUT_MS);
  const lines: SetupLine[] = [];
  if (checks === null) {
    const disabled = servers.filter(([, s]) => !s.enabled).map(([n]) => n);
    const enabled = servers.filter(([, s]) => s.enabled).map(([n]) => n);
    const listed = [enabled.join(", "), disabled.length > 0 ? `${disabled.join(", ")} disabled` : ""].filter(Boolean).join("; ");
    lines.push({ subject: "mcp", status: "missing", message: `no daemon answers at ${url}, so no server state: ${servers.length} configured (${listed})` });
  } else {
    for (const [name] of servers)
      lines.push(
        serverLine(
          name,
          checks.find((c) => c.name === mcpCheckName(name)),
        ),
      );
  }
  const scheduling = schedulingLine(config, opts.env);
  if (scheduling) lines.push(scheduling);
  return lines;
}

/** The checks of a daemon answering at `url` (200 or 503 both carry them), or null when none answers. */
export async function daemonChecks(url: string, timeoutMs: number): Promise<readonly ReadinessCheck[] | null> {
  const body = (await daemonGet(url, timeoutMs))?.body as { checks?: unknown } | null | undefined;
  return Array.isArray(body?.checks) ? (body.checks as ReadinessCheck[]) : null;
}

function serverLine(name: string, check: ReadinessCheck | undefined): SetupLine {
  const subject = `mcp ${name}`;
  if (!check) return { subject, status: "missing", message: "configured, but the running daemon does not know it yet (/reload-mcp, or restart it)" };
  const state = check.detail ?? (check.ready ? "ready" : "not ready");
  if (state === "disabled") return { subject, status: "disabled", message: "enabled: false" };
  return { subject, status: check.ready ? "ok" : "error", message: state };
}

/** Where MCP worker threads and stdio servers would run under SCHED_IDLE: whether chrt is there to put them there. */
function schedulingLine(config: Config, env: Readonly<Record<string, string | undefined>>): SetupLine | null {
  if (process.platform !== "linux" || !config.mcp.sched_idle) return null;
  if (!Object.values(config.mcp_servers).some((s) => s.enabled)) return null;
  const chrt = onPath("chrt", env.PATH ?? "");
  return chrt
    ? { subject: "mcp scheduling", status: "ok", message: `MCP worker threads and stdio servers run under SCHED_IDLE (${chrt})` }
    : {
        subject: "mcp scheduling",
        status: "missing",
        message: "chrt not found on PATH: MCP worker threads and stdio servers run at niceness only (install util-linux, or set mcp.sched_idle: false)",
      };
}

function onPath(command: string, path: string): string | null {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return null;
}
