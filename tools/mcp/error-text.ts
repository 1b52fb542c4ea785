/** The error's message, plus its cause's ("fetch failed" alone does not say ECONNREFUSED); anything else as a string. */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error && !err.message.includes(err.cause.message) ? ` (${err.cause.message})` : "";
  return `${err.message}${cause}`;
}
