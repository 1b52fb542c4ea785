/**
 * How a command on this machine reaches the running daemon: its HTTP server at
 * the configured address, a wildcard bind (0.0.0.0, ::) reached on loopback.
 */
import type { Config } from "../../config/index.js";

/** Base URL, e.g. http://127.0.0.1:8642. */
export function daemonUrl(config: Config): string {
  const { host, port } = config.gateway.http;
  const reach = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reach.includes(":") ? `[${reach}]` : reach}:${port}`;
}

export interface DaemonAnswer {
  readonly status: number;
  /** The parsed JSON body; null when the body was not JSON. */
  readonly body: unknown;
}

/** GETs `url`; null when nothing answers within `timeoutMs` (refused, timed out, not HTTP). */
export async function daemonGet(url: string, timeoutMs: number, headers: Readonly<Record<string, string>> = {}): Promise<DaemonAnswer | null> {
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return null;
  }
  const text = await res.text().catch(() => "");
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: null }; // something else on that port
  }
}
