/**
 * Masks secrets before the model (or a chat) sees them: in command output,
 * in files the file tools read, in search hits and diffs — one set of
 * patterns for all of them. Built-in patterns cover common token shapes;
 * the gateway adds the exact secret values from config through `extra`.
 */

export type Redactor = (text: string) => string;

const MASK = "***";
const KEY_MASK = "[REDACTED PRIVATE KEY]";
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;

/** [pattern, replacement]; replacements keep a recognisable prefix so the output still makes sense. */
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g, KEY_MASK],
  [/\b(sk-(?:ant-(?:api\d+-)?|proj-|live-|test-|or-v1-)?)[A-Za-z0-9_-]{16,}/g, `$1${MASK}`],
  [/\b(xox[abposre]-)[A-Za-z0-9-]{10,}/g, `$1${MASK}`],
  [/\b(xapp-\d-)[A-Za-z0-9-]{10,}/g, `$1${MASK}`],
  [/\b((?:ghp|gho|ghu|ghs|ghr)_)[A-Za-z0-9]{20,}/g, `$1${MASK}`],
  [/\b(github_pat_)[A-Za-z0-9_]{20,}/g, `$1${MASK}`],
  [/\b(glpat-)[A-Za-z0-9_-]{16,}/g, `$1${MASK}`],
  [/\b(\d{8,10}:)[A-Za-z0-9_-]{35}\b/g, `$1${MASK}`],
  [/\b[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,38}\b/g, `[REDACTED DISCORD TOKEN]`],
  [/\b((?:AKIA|ASIA)[A-Z0-9]{4})[A-Z0-9]{12}\b/g, `$1${MASK}`],
  [/\b(AIza)[0-9A-Za-z_-]{35}\b/g, `$1${MASK}`],
  [/\b(eyJ[A-Za-z0-9_-]{6})[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, `$1${MASK}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${MASK}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(@)/gi, `$1${MASK}$2`],
  [/(\baws_secret_access_key\s*[=:]\s*)["']?[A-Za-z0-9/+=]{40}["']?/gi, `$1${MASK}`],
  [
    /(\b[A-Za-z0-9_]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)\b["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s&"',;]+)/gi,
    `$1${MASK}`,
  ],
];

/** Applies the built-in patterns, then `extra` (exact configured secrets, for instance). */
export function redactSecrets(text: string, extra?: Redactor): string {
  let out = text;
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return extra ? extra(out) : out;
}

/** A redactor that masks each of these literal values (config secrets) wherever they appear. */
export function literalRedactor(values: readonly string[]): Redactor {
  const secrets = [...new Set(values.filter((v) => v.length >= 6))].sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (t) => t;
  const re = new RegExp(secrets.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  return (text) => text.replace(re, MASK);
}

/** Redaction for text that arrives a line at a time (a file read page by page). */
export interface LineRedactor {
  /** One line, masked. */
  line(text: string): string;
  /** Notes a line that is not shown (before the requested page), so a key block opened there is still masked. */
  track(text: string): void;
}

/**
 * The same masking as `redactSecrets`, line by line: the one secret that
 * spans lines — a private-key block — is followed across lines, and every
 * line inside it is masked, so line numbers stay true.
 */
export function lineRedactor(extra?: Redactor): LineRedactor {
  const inKey = keyTracker();
  return {
    line: (text) => (inKey(text) ? maskKeyLine(text) : redactSecrets(text, extra)),
    track: (text) => void inKey(text),
  };
}

/** 1-based numbers of the lines of `text` inside private-key blocks (for masking search hits found there). */
export function privateKeyLines(text: string): Set<number> {
  const inKey = keyTracker();
  const out = new Set<number>();
  text.split("\n").forEach((line, i) => {
    if (inKey(line)) out.add(i + 1);
  });
  return out;
}

/** Called with each line in order; true while the line belongs to a multi-line private-key block. */
function keyTracker(): (text: string) => boolean {
  let inKey = false;
  return (text) => {
    if (inKey) {
      inKey = !KEY_END.test(text);
      return true;
    }
    const begin = text.search(KEY_BEGIN);
    // A block that ends on the line it starts is masked by the single-line patterns.
    if (begin < 0 || KEY_END.test(text.slice(begin))) return false;
    inKey = true;
    return true;
  };
}

function maskKeyLine(text: string): string {
  const at = text.search(KEY_BEGIN);
  return at > 0 ? `${text.slice(0, at)}${KEY_MASK}` : KEY_MASK;
}
