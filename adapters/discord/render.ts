/**
 * Markdown → the Discord messages that carry it: converted to Discord's
 * markdown, then cut into messages of at most 2,000 code points on line and
 * code-fence boundaries, a code block cut across messages closed at the end
 * of one and reopened (same language) at the start of the next, each part
 * marked ` (i/N)`.
 */
import { chunkMarkdown, measure } from "../common/chunk.js";
import { toDiscordMarkdown } from "./format.js";
import { DISCORD_MAX_MESSAGE } from "./options.js";

/** The content of each message needed for `markdown`, first to last (none for blank text). */
export function renderChunks(markdown: string, limit: number = DISCORD_MAX_MESSAGE): string[] {
  const text = toDiscordMarkdown(markdown);
  if (text.trim() === "") return [];
  return chunkMarkdown(text, { limit, unit: "codepoint", indicators: true });
}

/** Whether `markdown`, converted, fits in one message: `renderSingle` then shows all of it. */
export function fitsSingle(markdown: string, limit: number = DISCORD_MAX_MESSAGE): boolean {
  return measure(toDiscordMarkdown(markdown), "codepoint") <= limit;
}

/** One message's worth: the whole text if it fits, else its first part marked "…" (previews, edits, captions). */
export function renderSingle(markdown: string, limit: number = DISCORD_MAX_MESSAGE): string {
  const text = toDiscordMarkdown(markdown);
  if (measure(text, "codepoint") <= limit) return text;
  const [first = ""] = chunkMarkdown(text, { limit: limit - 2, unit: "codepoint" });
  return `${first} …`;
}
