/**
 * Prompt-injection screening for files that enter the system prompt verbatim
 * (SOUL.md, AGENTS.md, .cursorrules …), deep-dive notes §12.9. A cloned repo's
 * AGENTS.md is untrusted input: one that tries to override instructions, hide
 * things from the user or exfiltrate secrets is replaced by a notice. Patterns
 * anchor on attack behaviour, not on bossy English ("you must" is common in
 * legitimate AGENTS.md files). Filler between key words is bounded so a
 * hostile file cannot make a pattern backtrack for long.
 */

export interface InjectionFinding {
  readonly id: string;
}

/** Hard cap on scanned text: the scan is advisory, its runtime must be bounded. */
export const MAX_SCAN_CHARS = 65_536;

const FILLER = String.raw`(?:[\w'’-]+\s+){0,8}`;
const SECRET_VAR = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`;

const PATTERNS: readonly (readonly [RegExp, string])[] = [
  [new RegExp(String.raw`\bignore\s+${FILLER}(?:previous|all|above|prior|earlier|preceding)\s+${FILLER}(?:instructions|directions|rules|prompts?)`, "i"), "prompt_injection"],
  [new RegExp(String.raw`\bdisregard\s+${FILLER}(?:your|all|any|the|previous|prior)\s+${FILLER}(?:instructions|rules|guidelines)`, "i"), "disregard_rules"],
  [new RegExp(String.raw`\b(?:do\s+not|don'?t|never)\s+${FILLER}(?:tell|inform|let|show)\s+${FILLER}the\s+user`, "i"), "deception_hide"],
  [/\bsystem\s+prompt\s+override\b/i, "sys_prompt_override"],
  [new RegExp(String.raw`\byou\s+are\s+${FILLER}now\s+(?:a|an|the|in)\s+`, "i"), "role_hijack"],
  [new RegExp(String.raw`\b(?:output|print|reveal|repeat|dump)\s+${FILLER}(?:system|initial|hidden)\s+prompt`, "i"), "leak_system_prompt"],
  [new RegExp(String.raw`\bact\s+as\s+(?:if|though)\s+${FILLER}you\s+${FILLER}(?:have\s+no|don'?t\s+have)\s+${FILLER}(?:restrictions|limits|rules)`, "i"), "bypass_restrictions"],
  [new RegExp(String.raw`\bcurl\s+[^\n]{0,2048}${SECRET_VAR}`, "i"), "exfil_curl"],
  [new RegExp(String.raw`\bwget\s+[^\n]{0,2048}${SECRET_VAR}`, "i"), "exfil_wget"],
  [/\bcat\s+[^\n]{0,2048}(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_rsa|id_ed25519)/i, "read_secrets"],
  [/\b(?:send|post|upload|transmit|forward)\s+[^\n]{0,256}\b(?:api[_ -]?keys?|tokens?|secrets?|passwords?|credentials)\b[^\n]{0,256}\bto\s+https?:\/\//i, "exfil_send"],
  [/<!--[^>]{0,512}(?<![A-Za-z])(?:ignore|override|system|secret|hidden)(?![A-Za-z])[^>]{0,512}-->/i, "html_comment_injection"],
  [/<\s*(?:div|span|p)\s+style\s*=\s*["'][^>]{0,2048}(?:display\s*:\s*none|visibility\s*:\s*hidden)/i, "hidden_element"],
  [/<\|(?:im_start|im_end|system|endoftext)\|>/i, "special_token"],
  [/\bunset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*/i, "env_var_unset_agent"],
  [/\bbase64\s+(?:-d|--decode)\b[^\n]{0,256}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/i, "decode_and_execute"],
];

/**
 * Zero-width characters, word joiner, invisible operators, BOM, and the
 * bidirectional embedding/override/isolate controls (Trojan Source).
 */
export const INVISIBLE_CHARS: ReadonlySet<string> = new Set([..."\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u180e"]);

/** Pattern ids found in `text`; invisible characters are reported as `invisible_unicode_U+XXXX`. */
export function scanForInjection(text: string): readonly string[] {
  if (!text) return [];
  const content = text.slice(0, MAX_SCAN_CHARS);
  const findings = new Set<string>();
  // On the raw text: NFKC would drop some of these code points.
  for (const ch of content) {
    if (INVISIBLE_CHARS.has(ch)) findings.add(`invisible_unicode_U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  // NFKC folds full-width and compatibility forms (ｉｇｎｏｒｅ → ignore) so they cannot slip past.
  const normalized = content.normalize("NFKC");
  for (const [pattern, id] of PATTERNS) if (pattern.test(normalized)) findings.add(id);
  return [...findings];
}

/**
 * The text to include for a context file: the content itself, or a notice
 * naming what was found. A single leading BOM is an editor artifact and allowed.
 */
export function screenContextFile(content: string, filename: string): { text: string; blocked: readonly string[] } {
  const body = content.startsWith("\ufeff") ? content.slice(1) : content;
  const findings = scanForInjection(body);
  if (findings.length === 0) return { text: body, blocked: [] };
  return { text: `[BLOCKED: ${filename} contained potential prompt injection (${findings.join(", ")}). Content not loaded.]`, blocked: findings };
}
