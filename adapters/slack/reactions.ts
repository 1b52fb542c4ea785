/**
 * Slack reacts by emoji *name*; the contract passes the emoji itself (what
 * Telegram takes). The common ones are named here; anything else is taken
 * as a name already (`:tada:` or `tada`).
 */
const NAMES: Readonly<Record<string, string>> = {
  "👀": "eyes",
  "👍": "+1",
  "👎": "-1",
  "✅": "white_check_mark",
  "❌": "x",
  "⚠️": "warning",
  "🔥": "fire",
  "🎉": "tada",
  "❤️": "heart",
  "🤔": "thinking_face",
  "⏳": "hourglass_flowing_sand",
};

export function emojiName(emoji: string): string {
  return NAMES[emoji] ?? emoji.replace(/^:|:$/g, "");
}
