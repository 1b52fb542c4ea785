/** How an SDK call that its signal cut short fails. */

/** The request was aborted or timed out (by its signal): once sent, it may have been carried out. */
export function isAbortError(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}
