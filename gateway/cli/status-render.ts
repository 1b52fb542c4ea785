/** The one screen `hermes-gateway status` prints. */
import type { DaemonStatus } from "../status-endpoint.js";
import { terminalSafe } from "../terminal-text.js";

/** What `status --json` prints. */
export interface StatusReport {
  readonly running: boolean;
  readonly healthy: boolean;
  readonly home: string;
  readonly url: string;
  /** The pid the pid file names (null: none, or unreadable). */
  readonly pid: number | null;
  /** Why it is not running or not healthy, in a sentence; null when healthy. */
  readonly problem: string | null;
  /** The daemon's own answer, when it gave one. */
  readonly daemon: DaemonStatus | null;
}

export function renderStatus(r: StatusReport, now = Date.now()): string {
  if (!r.running) return `○ hermes-gateway — ${r.problem ?? "not running"}\n  HERMES_HOME ${r.home}`;
  const d = r.daemon;
  if (!d) return `● hermes-gateway — running, not answering\n  ${oneLine(r.problem ?? "")}\n  HERMES_HOME ${r.home}`;
  const lines = [
    `● hermes-gateway ${d.version} — ${r.healthy ? "running, healthy" : `running, ${oneLine(r.problem ?? "degraded")}`}`,
    `  pid ${d.pid}, up ${duration(d.uptime_s)} (since ${d.started_at}), state ${d.state}`,
    `  HERMES_HOME ${d.home}, ${r.url}`,
    "",
    ...section(
      "Platforms",
      d.platforms.map((p) => row(p.state === "connected", p.name, p.detail ? `${p.state}: ${p.detail}` : p.state, received(p.last_receive_at, now))),
    ),
    `Turns      ${d.turns.running} running, ${d.turns.queued} queued, ${d.turns.pending_approvals} approval(s) waiting; ${d.turns.sessions} live session(s); slots ${d.turns.slots_in_use}/${d.turns.slots_max}`,
    ...section(
      "MCP",
      d.mcp.map((m) =>
        row(
          m.state === "ready" || m.state === "disabled",
          m.name,
          m.error ? `${m.state}: ${m.error}` : m.state,
          m.state === "ready" ? `${m.tools} tool(s)` : "",
        ),
      ),
    ),
    `Store      ${d.store.path} ${bytes(d.store.db_bytes)} (+ ${bytes(d.store.wal_bytes)} write-ahead log)`,
  ];
  const notReady = d.checks.filter((c) => !c.ready && !c.name.startsWith("mcp:") && !d.platforms.some((p) => p.name === c.name));
  if (notReady.length > 0) lines.push(`Not ready  ${notReady.map((c) => (c.detail ? `${c.name} (${oneLine(c.detail)})` : c.name)).join(", ")}`);
  return lines.join("\n");
}

function section(title: string, rows: readonly string[]): string[] {
  return rows.length === 0 ? [`${title.padEnd(10)} none`] : [title, ...rows];
}

function row(ok: boolean, name: string, state: string, extra: string): string {
  return `  ${ok ? "✓" : "✗"} ${oneLine(name).padEnd(12)} ${oneLine(state).padEnd(28)}  ${extra}`.trimEnd();
}

function received(at: DaemonStatus["platforms"][number]["last_receive_at"], now: number): string {
  if (!at) return "nothing received yet";
  return `last receive ${duration(Math.max(0, Math.round((now - Date.parse(at)) / 1000)))} ago`;
}

/** Text that came from elsewhere (a platform's or an MCP server's error, names from the config), on one line and inert on a terminal. */
function oneLine(text: string): string {
  return terminalSafe(text).trim();
}

export function duration(s: number): string {
  if (s < 60) return `${s} s`;
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  return h > 0 ? `${h}h ${m}m` : `${m} min`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
