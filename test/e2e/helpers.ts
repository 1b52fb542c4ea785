/** Shared waits and helpers for the end-to-end tests, which poll fakes that record what the daemon did. */
import type { DaemonProcess } from "../fakes/daemon-process.js";
import type { FakeRequest } from "../fakes/llm-server.js";

/** Polls `get` every 50 ms until it returns something truthy, which is returned; fails naming `what` after the timeout. */
export async function until<T>(get: () => T | undefined | null | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Kills (SIGKILL) every daemon of `daemons` still running, and empties the list. */
export async function killDaemons(daemons: DaemonProcess[]): Promise<void> {
  for (const d of daemons.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill("SIGKILL");
      await d.exited;
    }
  }
}

/** The text of the last user message a model request carried. */
export function lastUserText(req: FakeRequest): string {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  const user = [...msgs].reverse().find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}
