/** What the operations tests share: a CliIo that keeps what a command printed, polling, a free port. */
import { type AddressInfo, createServer } from "node:net";
import type { CliIo } from "../../gateway/cli/context.js";
import { type NotYet, until } from "../wait.js";

export interface CapturedIo extends CliIo {
  readonly stdout: () => string;
  readonly stderr: () => string;
}

export function captureIo(): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    stdout: () => out.join("\n"),
    stderr: () => err.join("\n"),
  };
}

/** What `get` resolves to once truthy (vi.waitFor, every 100 ms); fails naming `what` after the timeout. */
export function eventually<T>(get: () => Promise<T | NotYet>, what: string, timeoutMs = 20_000): Promise<T> {
  return until(get, what, timeoutMs, 100);
}

/** A loopback port nothing listens on (it was free a moment ago): the daemon's configured port, known to status. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
