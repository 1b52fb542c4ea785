/**
 * Recognises a slash command, as Hermes Agent's gateway does: the first token, lowercased,
 * without a `@botname` suffix. A first token containing another `/` is a
 * path, not a command. Slack users may type `!cmd` because Slack reserves
 * `/` inside threads.
 */
export interface ParsedCommand {
  readonly name: string;
  readonly args: string;
}

export function parseCommand(text: string, platform: string): ParsedCommand | null {
  const t = text.trimStart();
  const prefix = t[0];
  if (prefix !== "/" && !(prefix === "!" && platform === "slack")) return null;
  const match = /^[/!](\S+)(?:\s+([\s\S]*))?$/.exec(t);
  if (!match) return null;
  const token = (match[1] ?? "").split("@")[0] ?? "";
  if (!token || token.includes("/")) return null;
  // iOS turns "--" into an em dash; undo that so flags survive.
  const args = (match[2] ?? "")
    .replace(/\u2014/g, "--")
    .replace(/\u2013/g, "-")
    .trim();
  return { name: token.toLowerCase(), args };
}
