/** Shared waits for the end-to-end tests, which poll fakes that record what the daemon did. */

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
