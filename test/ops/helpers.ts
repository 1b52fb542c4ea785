/** What the operations tests share: a CliIo that keeps what a command printed, polling, a free port. */
import { createServer, type AddressInfo } from "node:net";
import type { CliIo } from "../../gateway/cli/context.js";

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

/** Polls `get` every 100 ms until it resolves to something truthy, which is returned; fails naming `what` after the timeout. */
export async function eventually<T>(get: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A loopback port nothing listens on (it was free a moment ago): the daemon's configured port, known to status. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
