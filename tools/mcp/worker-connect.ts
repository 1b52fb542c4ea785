/**
 * Worker side: opening an MCP client over stdio (a process the thread's launcher starts) or over
 * HTTP (streamable HTTP, falling back to the older SSE transport when the
 * server answers 4xx, as the MCP spec's backwards-compatibility section says).
 * The HTTP transports are imported only when a remote server is configured:
 * every worker boot loads this module, and most servers are stdio.
 */
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Launched, LaunchSpec } from "./launcher-client.js";
import type { HttpTarget, StdioTarget } from "./protocol.js";
import { GroupStdioTransport } from "./stdio-transport.js";

export const CLIENT_INFO = { name: "hermes-gateway", version: "0.1.0" } as const;

/** Largest single JSON-RPC line accepted from a stdio server; larger ones close the connection. */
const MAX_STDIO_MESSAGE_BYTES = 32 * 1024 * 1024;

export interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  readonly protocol: "stdio" | "streamable-http" | "sse";
}

export interface ConnectHooks {
  /** Called once, right after the server process was spawned. */
  onSpawn(pid: number): void;
  /** The server process exited and its pipes closed (it has been reaped). */
  onChildClosed(): void;
  /** Takes over the server's stderr stream (it must keep reading it). */
  onStderr(stream: Readable): void;
  /** Install handlers (errors, close, notifications) on a fresh client before it connects. */
  configure(client: Client): void;
}

function newClient(hooks: ConnectHooks): Client {
  const client = new Client({ ...CLIENT_INFO }, { capabilities: {} });
  hooks.configure(client);
  return client;
}

export async function connectStdio(
  target: StdioTarget,
  launch: (spec: LaunchSpec) => Promise<Launched>,
  hooks: ConnectHooks,
  options: RequestOptions,
): Promise<Connection> {
  const transport = new GroupStdioTransport({
    launch,
    command: target.command,
    args: target.args,
    env: target.env,
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
    maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
    groupNice: target.groupNice,
    onSpawn: hooks.onSpawn,
  });
  // The stream exists before spawn; reading it from the start keeps the pipe drained.
  hooks.onStderr(transport.stderr);
  // Set before connect: the client chains its own close handler after this one.
  transport.onclose = hooks.onChildClosed;
  const client = newClient(hooks);
  await client.connect(transport, options);
  return { client, transport, protocol: "stdio" };
}

/** `status`: the HTTP status of a StreamableHTTPError, if the error is one. */
function shouldFallBackToSse(status: number | undefined): boolean {
  if (status === undefined) return false;
  return status >= 400 && status < 500 && status !== 401 && status !== 403;
}

export async function connectHttp(target: HttpTarget, hooks: ConnectHooks, options: RequestOptions): Promise<Connection> {
  const { StreamableHTTPClientTransport, StreamableHTTPError } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: { ...target.headers } };
  const streamable = new StreamableHTTPClientTransport(url, { requestInit });
  const client = newClient(hooks);
  try {
    await client.connect(streamable, options);
    return { client, transport: streamable, protocol: "streamable-http" };
  } catch (err) {
    const status = err instanceof StreamableHTTPError ? err.code : undefined;
    if (!shouldFallBackToSse(status) || options.signal?.aborted) throw err;
  }
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  const sse = new SSEClientTransport(url, { requestInit });
  const fallback = newClient(hooks);
  await fallback.connect(sse, options);
  return { client: fallback, transport: sse, protocol: "sse" };
}
