/**
 * `GET /status`: what the running daemon is doing, for `hermes-gateway status`
 * and for people with curl on the same machine.
 *
 * Who may ask: clients on loopback only (127.0.0.0/8, ::1), and, when the API
 * platform's key (`gateway.platforms.api.key`) is set, only with that key as
 * `Authorization: Bearer`. The answer names the state directory, the platforms
 * and the MCP servers with their errors: more than a health probe should show
 * to another host, even where the server listens on every interface (Docker).
 * Inside a container `docker compose exec gateway hermes-gateway status` is on
 * loopback; a request through a published port arrives from the bridge and is refused.
 */
import { stat } from "node:fs/promises";
import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";
import { bearerMatches } from "../adapters/api/auth.js";
import { hasBody, refuseBeforeBody } from "../adapters/common/http-refusal.js";
import type { AdapterHealth } from "../adapters/types.js";
import type { ReadinessCheck } from "./http.js";
import type { RuntimeStats } from "./runtime/index.js";

/** The body of `GET /status` (snake_case, like /readyz). */
export interface DaemonStatus {
  readonly version: string;
  readonly pid: number;
  /** ISO 8601. */
  readonly started_at: string;
  readonly uptime_s: number;
  readonly home: string;
  /** The runtime's state; `starting` until it has replayed what the previous run left. */
  readonly state: RuntimeStats["state"];
  /** Every readiness check passes and the runtime is running (what /readyz says, plus the drain). */
  readonly healthy: boolean;
  readonly checks: readonly ReadinessCheck[];
  readonly platforms: readonly PlatformStatus[];
  readonly turns: TurnStatus;
  readonly mcp: readonly McpStatus[];
  readonly store: StoreStatus;
}

export interface PlatformStatus {
  readonly name: string;
  readonly state: AdapterHealth["state"];
  readonly detail: string | null;
  /** ISO 8601 of the last successful receive from the platform; null when nothing came yet. */
  readonly last_receive_at: string | null;
}

export interface TurnStatus {
  readonly running: number;
  readonly queued: number;
  readonly pending_approvals: number;
  readonly sessions: number;
  readonly slots_in_use: number;
  readonly slots_max: number;
}

export interface McpStatus {
  readonly name: string;
  readonly state: string;
  readonly tools: number;
  readonly error: string | null;
}

export interface StoreStatus {
  readonly path: string;
  /** The database file, its write-ahead log, and the two together. */
  readonly db_bytes: number;
  readonly wal_bytes: number;
}

/** What the daemon hands the endpoint: each a view of the live parts, read when a request comes. */
export interface StatusSources {
  readonly version: string;
  readonly home: string;
  readonly startedAt: number;
  readonly dbPath: string;
  readonly slotsMax: number;
  readiness(): readonly ReadinessCheck[];
  adapters(): ReadonlyMap<string, { health(): AdapterHealth }>;
  /** Null until the runtime is built. */
  runtime(): RuntimeStats | null;
  mcp(): readonly { readonly name: string; readonly state: string; readonly toolCount: number; readonly error: string | null }[];
}

export async function daemonStatus(src: StatusSources): Promise<DaemonStatus> {
  const checks = src.readiness();
  const stats = src.runtime();
  const state = stats?.state ?? "starting";
  const now = Date.now();
  return {
    version: src.version,
    pid: process.pid,
    started_at: new Date(src.startedAt).toISOString(),
    uptime_s: Math.round((now - src.startedAt) / 1000),
    home: src.home,
    state,
    healthy: state === "running" && checks.every((c) => c.ready),
    checks,
    platforms: [...src.adapters()].map(([name, a]) => platformStatus(name, a.health())),
    turns: {
      running: stats?.activeTurns ?? 0,
      queued: stats?.queued ?? 0,
      pending_approvals: stats?.pendingApprovals ?? 0,
      sessions: stats?.sessions ?? 0,
      slots_in_use: stats?.slotsInUse ?? 0,
      slots_max: src.slotsMax,
    },
    mcp: src.mcp().map((s) => ({ name: s.name, state: s.state, tools: s.toolCount, error: s.error })),
    store: { path: src.dbPath, db_bytes: await sizeOf(src.dbPath), wal_bytes: await sizeOf(`${src.dbPath}-wal`) },
  };
}

function platformStatus(name: string, h: AdapterHealth): PlatformStatus {
  return {
    name,
    state: h.state,
    detail: h.detail ?? null,
    last_receive_at: h.lastReceiveAt === undefined ? null : new Date(h.lastReceiveAt).toISOString(),
  };
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0; // not there (yet): no write-ahead log between checkpoints, or no store before it opened
  }
}

/** Mounts `GET /status` on the daemon's server; call before it listens. Refusals come before any body is read. */
export function registerStatusRoute(app: FastifyInstance, opts: { readonly apiKey: string | undefined; readonly status: () => Promise<DaemonStatus> }): void {
  const admit: onRequestAsyncHookHandler = async (req, reply) => {
    if (!isLoopback(req.socket.remoteAddress))
      return refuseBeforeBody(req, reply, 403, { error: "GET /status answers clients on this machine's loopback only" });
    if (opts.apiKey !== undefined && !bearerMatches(req.headers.authorization, opts.apiKey)) {
      return refuseBeforeBody(req, reply, 401, { error: "send gateway.platforms.api.key as Authorization: Bearer" });
    }
    if (hasBody(req)) return refuseBeforeBody(req, reply, 413, { error: "this endpoint takes no request body" });
  };
  app.get("/status", { onRequest: admit }, async () => opts.status());
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}
