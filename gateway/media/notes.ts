/**
 * Every text the media step puts in front of the agent or sends to a person.
 * Notes are bracketed context lines, written so the agent knows what happened
 * and what to tell the user; they never pretend a failure did not happen.
 */

export const MEDIA_TEXT = {
  imageDescribed: (description: string, path: string) =>
    `[The user sent an image. An image model described it as follows:\n${description.trim()}\n(The image is saved at: ${path})]`,
  imageNotAnalysed: (path: string, why: string) =>
    `[The user sent an image, saved at: ${path}. It could not be analysed (${why}), so you cannot see it: tell the user.]`,
  voiceNotTranscribed: (path: string, why: string) =>
    `[The user sent a voice message, saved at: ${path}. It could not be transcribed (${why}): tell the user you could not listen to it.]`,
  voiceSilent: "[The user sent a voice message, but speech-to-text heard no words in it. Do not guess what it said: ask the user to resend it or type it.]",
  noStt: "no speech-to-text provider is configured",
  /** The reply to a voice-only message when nothing can transcribe it. */
  voiceUnavailableReply:
    "🎙️ I can't listen to voice messages yet: no speech-to-text provider is configured. Please type your message.\n\n" +
    "To enable it, set `stt` in config.yaml: `stt.api_key` for OpenAI Whisper, or `stt.base_url` for any OpenAI-compatible " +
    "transcription server (a local Whisper server works).",
} as const;

/** "3.2 MB", "20 KB", "900 bytes" for notes. */
export function megabytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}
