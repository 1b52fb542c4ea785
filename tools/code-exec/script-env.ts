/**
 * The environment a script runs with: built from an allow-list, not by
 * removing what looks secret — PATH, HOME, user, locale, TZ, TMPDIR, the
 * operator's `code_execution.env_passthrough` names, and the RPC socket.
 * Anything whose value is a configured secret is left out even when listed.
 * The gateway's own API keys and bot tokens therefore never reach a script.
 */
const BASE = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM"];

export function scriptEnv(
  from: Readonly<NodeJS.ProcessEnv>,
  passthrough: readonly string[],
  secrets: readonly string[],
  extra: Readonly<Record<string, string>>,
): NodeJS.ProcessEnv {
  const hidden = new Set(secrets);
  const names = new Set([...BASE, ...passthrough, ...Object.keys(from).filter((k) => k.startsWith("LC_"))]);
  const env: NodeJS.ProcessEnv = {};
  for (const name of names) {
    const value = from[name];
    if (value !== undefined && !hidden.has(value)) env[name] = value;
  }
  return { ...env, ...extra };
}
