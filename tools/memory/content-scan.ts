/**
 * A light check on text that will enter the system prompt of every later
 * session (memory entries): refuse invisible characters, fence tags that
 * could break out of a context block, and the commonest instruction-override
 * phrasings. Not a security boundary — a guard against the easy mistakes and
 * the most obvious injected text.
 */

const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/;
const FENCE_TAG = /<\s*\/?\s*memory-context\s*>/i;

const OVERRIDES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|system)\s+(instructions|prompts?|rules)/i,
    "an instruction-override phrase",
  ],
  [/\byou\s+are\s+now\s+(a|an|in)\b/i, "a role-override phrase"],
  [/\b(new|updated)\s+system\s+prompt\b/i, "a system-prompt override phrase"],
  [/<\s*\/?\s*(system|assistant|developer)\s*>/i, "a chat-role tag"],
];

/** Why `text` may not be stored, or null when it is fine. */
export function scanMemoryContent(text: string): string | null {
  if (INVISIBLE.test(text)) return "it contains invisible Unicode characters (zero-width or bidi controls)";
  if (FENCE_TAG.test(text)) return "it contains a <memory-context> tag";
  for (const [re, what] of OVERRIDES) if (re.test(text)) return `it contains ${what}`;
  return null;
}
