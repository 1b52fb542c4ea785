/**
 * Prompt-injection screening for files that enter the system prompt verbatim
 * (SOUL.md, AGENTS.md, .cursorrules …), as Hermes Agent screens them. A cloned repo's
 * AGENTS.md is untrusted input: one that tries to override instructions, hide
 * things from the user or exfiltrate secrets is replaced by a notice. Patterns
 * anchor on attack behaviour, not on bossy English ("you must" is common in
 * legitimate AGENTS.md files). Filler between key words is bounded so a
 * hostile file cannot make a pattern backtrack for long.
 */

export interface InjectionFinding {
  readonly id: string;
}

/** The kinds of attack a context file is screened for (each pattern id belongs to one). */
export type ThreatCategory =
  | "instruction_override"
  | "role_hijack"
  | "hidden_text"
  | "translate_execute"
  | "exfiltration"
  | "offensive_tooling"
  | "credential_harvesting";

/** Hard cap on scanned text: the scan is advisory, its runtime must be bounded. */
export const MAX_SCAN_CHARS = 65_536;

const FILLER = String.raw`(?:[\w'’-]+\s+){0,8}`;
const SECRET_VAR = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`;
const rx = (source: string): RegExp => new RegExp(source, "i");

/**
 * The patterns, as Hermes Agent scans context files (its "context" scope:
 * everything that applies everywhere plus promptware, command-and-control and
 * role-hijack wording), and a few more of ours. They anchor on attack
 * vocabulary, never on bossy English.
 */
const PATTERNS: readonly (readonly [RegExp, string, ThreatCategory])[] = [
  // Instruction overrides and hiding things from the user.
  [
    rx(String.raw`\bignore\s+${FILLER}(?:previous|all|above|prior|earlier|preceding)\s+${FILLER}(?:instructions|directions|rules|prompts?)`),
    "prompt_injection",
    "instruction_override",
  ],
  [
    rx(String.raw`\bdisregard\s+${FILLER}(?:your|all|any|the|previous|prior)\s+${FILLER}(?:instructions|rules|guidelines)`),
    "disregard_rules",
    "instruction_override",
  ],
  [/\bsystem\s+prompt\s+override\b/i, "sys_prompt_override", "instruction_override"],
  [rx(String.raw`\b(?:do\s+not|don'?t|never)\s+${FILLER}(?:tell|inform|let|show)\s+${FILLER}the\s+user`), "deception_hide", "instruction_override"],
  [
    rx(String.raw`\bact\s+as\s+(?:if|though)\s+${FILLER}you\s+${FILLER}(?:have\s+no|don'?t\s+have)\s+${FILLER}(?:restrictions|limits|rules)`),
    "bypass_restrictions",
    "instruction_override",
  ],
  [rx(String.raw`\b(?:respond|answer|reply)\s+without\s+${FILLER}(?:restrictions|limitations|filters|safety)`), "remove_filters", "instruction_override"],
  [rx(String.raw`\byou\s+have\s+been\s+${FILLER}(?:updated|upgraded|patched)\s+to\b`), "fake_update", "instruction_override"],
  [/<\|(?:im_start|im_end|system|endoftext)\|>/i, "special_token", "instruction_override"],
  // Persona and role hijack.
  [rx(String.raw`\byou\s+are\s+${FILLER}now\s+(?:a|an|the|in)\s+`), "role_hijack", "role_hijack"],
  [rx(String.raw`\bpretend\s+${FILLER}(?:you\s+are|to\s+be)\s+`), "role_pretend", "role_hijack"],
  [/\bname\s+yourself\s+\w+/i, "identity_override", "role_hijack"],
  [rx(String.raw`\b(?:output|print|reveal|repeat|dump)\s+${FILLER}(?:system|initial|hidden)\s+prompt`), "leak_system_prompt", "role_hijack"],
  // Text hidden from a human reader (invisible characters are reported apart).
  [/<!--[^>]{0,512}(?<![A-Za-z])(?:ignore|override|system|secret|hidden)(?![A-Za-z])[^>]{0,512}-->/i, "html_comment_injection", "hidden_text"],
  [/<\s*(?:div|span|p)\s+style\s*=\s*["'][^>]{0,2048}(?:display\s*:\s*none|visibility\s*:\s*hidden)/i, "hidden_element", "hidden_text"],
  // "Translate/convert this into a command and run it".
  [
    /\b(?:translate|convert|decode|transform|turn)\s+[^\n]{0,512}?\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(?:execute|run|eval)\b/i,
    "translate_execute",
    "translate_execute",
  ],
  [/\bbase64\s+(?:-d|--decode)\b[^\n]{0,256}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/i, "decode_and_execute", "translate_execute"],
  // Covert exfiltration and beaconing to a remote server (command-and-control "promptware").
  [rx(String.raw`\bcurl\s+[^\n]{0,2048}${SECRET_VAR}`), "exfil_curl", "exfiltration"],
  [rx(String.raw`\bwget\s+[^\n]{0,2048}${SECRET_VAR}`), "exfil_wget", "exfiltration"],
  [
    /\b(?:send|post|upload|transmit|forward)\s+[^\n]{0,256}\b(?:api[_ -]?keys?|tokens?|secrets?|passwords?|credentials)\b[^\n]{0,256}\bto\s+https?:\/\//i,
    "exfil_send",
    "exfiltration",
  ],
  [/\bregister\s+(?:as\s+)?a?\s*node\b/i, "c2_node_registration", "exfiltration"],
  [/\b(?:heartbeat|beacon|check[\s-]?in)\s+(?:to|with)\s+/i, "c2_heartbeat", "exfiltration"],
  [/\bpull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b/i, "c2_task_pull", "exfiltration"],
  [/\bconnect\s+to\s+the\s+network\b/i, "c2_network_connect", "exfiltration"],
  [/\byou\s+must\s+(?:\w+\s+){0,3}(?:register|connect|report|beacon)\b/i, "forced_action", "exfiltration"],
  [/\bonly\s+use\s+one[\s-]?liners?\b/i, "anti_forensic_oneliner", "exfiltration"],
  [rx(String.raw`\bnever\s+${FILLER}(?:create|write)\s+${FILLER}(?:script|file)\s+${FILLER}disk`), "anti_forensic_disk", "exfiltration"],
  [/\bunset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*/i, "env_var_unset_agent", "exfiltration"],
  // Offensive tooling: red-team and command-and-control frameworks named outright.
  [/\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b/i, "known_c2_framework", "offensive_tooling"],
  [/\bc2\s+(?:server|channel|infrastructure|beacon)\b/i, "c2_explicit", "offensive_tooling"],
  [/\bcommand\s+and\s+control\b/i, "c2_explicit_long", "offensive_tooling"],
  // Credential harvesting: reading secret files.
  [/\bcat\s+[^\n]{0,2048}(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_rsa|id_ed25519)/i, "read_secrets", "credential_harvesting"],
];

/** The category of each pattern id (invisible characters are "hidden_text"). */
export const THREAT_CATEGORY: Readonly<Record<string, ThreatCategory>> = Object.fromEntries(PATTERNS.map(([, id, category]) => [id, category]));

export function categoryOf(finding: string): ThreatCategory | undefined {
  return finding.startsWith("invisible_unicode_") ? "hidden_text" : THREAT_CATEGORY[finding];
}

/**
 * Zero-width characters, word joiner, invisible operators, BOM, and the
 * bidirectional embedding/override/isolate controls (Trojan Source).
 */
export const INVISIBLE_CHARS: ReadonlySet<string> = new Set([
  ..."\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u180e",
]);

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
