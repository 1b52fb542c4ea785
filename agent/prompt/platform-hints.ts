/**
 * Platform hints: how replies render where the user reads them. Telegram,
 * Discord and Slack are verbatim from Hermes Agent's gateway, CLI and cron
 * from Hermes Agent's prompt builder. A platform's config `hint` is
 * appended after the built-in one.
 */

export const PLATFORM_HINTS: Readonly<Record<string, string>> = Object.freeze({
  cli:
    "You are a CLI AI Agent. Try not to use markdown but simple text renderable inside a terminal. File delivery: there is no " +
    "attachment channel — the user reads your response directly in their terminal. Do NOT emit MEDIA:/path tags (those are only " +
    "intercepted on messaging platforms like Telegram, Discord, Slack, etc.; on the CLI they render as literal text). When " +
    "referring to a file you created or changed, just state its absolute path in plain text.",
  telegram:
    "You are on a text messaging communication platform, Telegram. Standard Markdown is automatically converted to Telegram " +
    "formatting. Supported: **bold**, *italic*, ~~strikethrough~~, ||spoiler||, `inline code`, ```code blocks```, [links](url), " +
    "and ## headers. Prefer bullet lists and labeled key:value pairs for structured data. You can send media files natively: to " +
    "deliver a file to the user, include MEDIA:/absolute/path/to/file in your response. Images (.png, .jpg, .webp) appear as " +
    "photos, audio (.ogg) sends as voice bubbles, and videos (.mp4) play inline. You can also include image URLs in markdown " +
    "format ![alt](url) and they will be sent as native photos.",
  discord:
    "You are in a Discord server or group chat communicating with your user. You can send media files natively: include " +
    "MEDIA:/absolute/path/to/file in your response. Images (.png, .jpg, .webp) are sent as photo attachments, audio as file " +
    "attachments. You can also include image URLs in markdown format ![alt](url) and they will be sent as attachments.",
  slack:
    "You are in a Slack workspace communicating with your user. You can send media files natively: include " +
    "MEDIA:/absolute/path/to/file in your response. Images (.png, .jpg, .webp) are uploaded as photo attachments, audio as file " +
    "attachments. You can also include image URLs in markdown format ![alt](url) and they will be uploaded as attachments.",
  api:
    "You're responding through an API server. The rendering layer is unknown — assume plain text. Keep responses brief and " +
    "natural. MEDIA:/path tags are not delivered here; state a file's plain path in your response text instead.",
  cron:
    "You are running as a scheduled cron job. There is no user present — you cannot ask questions, request clarification, or " +
    "wait for follow-up. Execute the task fully and autonomously, making reasonable decisions where needed. Your final response " +
    "is automatically delivered to the job's configured destination — put the primary content directly in your response.",
});

/** The built-in hint for `platform` followed by the configured extra hint; "" when neither exists. */
export function platformHint(platform: string, configured?: string): string {
  return [PLATFORM_HINTS[platform], configured?.trim()].filter(Boolean).join("\n\n");
}
