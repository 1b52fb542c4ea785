/**
 * Speech-to-text over any OpenAI-compatible `/audio/transcriptions` endpoint,
 * through the openai SDK (it writes the multipart body, and OpenAI, Groq and
 * the local Whisper servers all speak this one protocol). The SDK is loaded
 * with the first recording, not at start.
 */
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import type OpenAI from "openai";
import type { Config } from "../../config/index.js";
import { megabytes } from "./notes.js";

const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** One quick retry: a voice note is waited on by a person. */
const STT_RETRIES = 1;

export interface AudioFile {
  readonly path: string;
  readonly mimeType?: string;
}

export type TranscriptResult = { readonly text: string } | { readonly error: string };

export interface Transcriber {
  /** Never throws: a failure comes back as `{ error }`, a reason a person can read. */
  transcribe(file: AudioFile, signal: AbortSignal): Promise<TranscriptResult>;
}

/** The transcriber `stt` describes, or null when speech-to-text is off. */
export function createTranscriber(stt: Config["stt"]): Transcriber | null {
  if (!stt.enabled) return null;
  const baseURL = stt.base_url ?? OPENAI_BASE_URL;
  let client: Promise<{ readonly sdk: Sdk; readonly client: OpenAI }> | undefined;
  // Local servers take any key; the SDK insists on one.
  const connect = () =>
    (client ??= import("openai").then((sdk) => ({
      sdk,
      client: new sdk.default({ apiKey: stt.api_key ?? "no-key", baseURL, timeout: stt.timeout_s * 1000, maxRetries: STT_RETRIES }),
    })));
  return {
    async transcribe(file, signal) {
      const size = await stat(file.path).then(
        (s) => s.size,
        () => null,
      );
      if (size === null) return { error: "the recording could not be read from the cache" };
      if (size > stt.max_bytes) return { error: `the recording is ${megabytes(size)}, over the ${megabytes(stt.max_bytes)} limit` };
      const loaded = await connect().catch((err: unknown) => err as Error);
      if (loaded instanceof Error) return { error: `the speech-to-text client could not be loaded (${loaded.message})` };
      const { sdk, client: openai } = loaded;
      try {
        const data = await readFile(file.path, { signal });
        const upload = await sdk.toFile(data, basename(file.path), file.mimeType ? { type: file.mimeType } : {});
        const res = await openai.audio.transcriptions.create(
          { file: upload, model: stt.model, ...(stt.language ? { language: stt.language } : {}) },
          { signal },
        );
        return { text: typeof res.text === "string" ? res.text.trim() : "" };
      } catch (err) {
        return { error: reason(sdk, err, signal, stt.timeout_s, baseURL) };
      }
    },
  };
}

type Sdk = typeof import("openai");

function reason(
  { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError }: Sdk,
  err: unknown,
  signal: AbortSignal,
  timeoutS: number,
  baseURL: string,
): string {
  if (signal.aborted || err instanceof APIUserAbortError) return "the turn was stopped";
  if (err instanceof APIConnectionTimeoutError) return `the speech-to-text service did not answer within ${timeoutS} s`;
  if (err instanceof APIConnectionError) return `the speech-to-text service at ${hostOf(baseURL)} could not be reached`;
  if (err instanceof APIError) {
    const detail = err.message.replace(/^\d{3}\s*/, "").slice(0, 200);
    return `the speech-to-text service answered HTTP ${err.status ?? "error"}${detail ? `: ${detail}` : ""}`;
  }
  return `the recording could not be sent (${err instanceof Error ? err.message : String(err)})`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url; // validated by the schema; shown as given otherwise
  }
}
