/**
 * The MediaPreparer the runtime calls before a turn: every attachment of the
 * turn's messages becomes what the agent sees.
 *   image (and a document that is a JPEG/PNG/GIF/WebP) → attached natively when
 *     the model sees images and it fits the limits, else described (vision.ts);
 *   voice note → transcribed (stt.ts); the transcript is the message text;
 *   audio file, video, other document → the plain "saved at" note.
 * Images are read and budgeted in order first; the slow calls (descriptions,
 * transcriptions) then run a few at a time, and results keep message order.
 */
import type { InboundMedia } from "../../adapters/types.js";
import type { MediaContext, MediaPreparer, PreparedMedia } from "../runtime/ports.js";
import { mediaNote } from "../runtime/turn-input.js";
import { MEDIA_TEXT } from "./notes.js";
import type { Transcriber } from "./stt.js";
import { IMAGE_LIMITS, type LoadedImage, Vision, type VisionDeps } from "./vision.js";

/** Telegram delivers an album as one update per photo, each after its download: this much quiet ends the burst. */
export const BURST_WINDOW_MS = 800;
/** Description and transcription calls in flight at once for one turn. */
const CALL_CONCURRENCY = 3;
const IMAGE_DOCUMENT = /^image\/(jpeg|png|gif|webp)$/i;

export interface MediaDeps extends VisionDeps {
  /** Null when speech-to-text is off. */
  readonly transcriber: Transcriber | null;
}

/** What one attachment contributes. */
interface Rendered {
  readonly note?: string;
  readonly spoken?: string;
  readonly image?: string;
}

/** An attachment's result, or the slow call that produces it. */
type Slot = Rendered | (() => Promise<Rendered>);

export function createMediaPreparer(deps: MediaDeps): MediaPreparer {
  const vision = new Vision(deps);
  return {
    burstWindowMs: BURST_WINDOW_MS,
    voiceUnavailableReply: () => (deps.transcriber ? null : MEDIA_TEXT.voiceUnavailableReply),
    async prepare(messages, ctx, signal) {
      const slots = await planSlots(vision, deps, messages, ctx, signal);
      const done = await runSlots(slots.flat(), deps, signal);
      let k = 0;
      return slots.map((row) => assemble(row.map(() => done[k++] as Rendered)));
    },
  };
}

/** Reads and budgets images in order; slow work is left as thunks. */
async function planSlots(
  vision: Vision,
  deps: MediaDeps,
  messages: readonly (readonly InboundMedia[])[],
  ctx: MediaContext,
  signal: AbortSignal,
): Promise<Slot[][]> {
  const native = vision.nativeFor(ctx.model);
  let budget: number = IMAGE_LIMITS.nativeTurnBytes;
  const rows: Slot[][] = [];
  for (const media of messages) {
    const row: Slot[] = [];
    for (const m of media) {
      if (m.kind === "voice") row.push(() => transcribe(deps.transcriber, m, signal));
      else if (m.kind !== "image" && !(m.kind === "document" && IMAGE_DOCUMENT.test(m.mimeType ?? ""))) row.push({ note: mediaNote(m) });
      else {
        const img = await vision.load(m, signal);
        if ("note" in img) row.push({ note: m.kind === "document" ? mediaNote(m) : img.note });
        else if (native && vision.fitsNative(img) && img.bytes <= budget) {
          budget -= img.bytes;
          row.push({ note: mediaNote(m), image: img.dataUrl });
        } else row.push(() => describe(vision, img, signal));
      }
    }
    rows.push(row);
  }
  return rows;
}

async function describe(vision: Vision, img: LoadedImage, signal: AbortSignal): Promise<Rendered> {
  return { note: await vision.describe(img, signal) };
}

async function transcribe(transcriber: Transcriber | null, m: InboundMedia, signal: AbortSignal): Promise<Rendered> {
  if (!transcriber) return { note: MEDIA_TEXT.voiceNotTranscribed(m.path, MEDIA_TEXT.noStt) };
  const res = await transcriber.transcribe({ path: m.path, ...(m.mimeType ? { mimeType: m.mimeType } : {}) }, signal);
  if ("error" in res) return { note: MEDIA_TEXT.voiceNotTranscribed(m.path, res.error) };
  return res.text ? { spoken: res.text } : { note: MEDIA_TEXT.voiceSilent };
}

/** Runs the thunks, CALL_CONCURRENCY at a time; a thunk that throws (it should not) becomes a note. */
async function runSlots(slots: readonly Slot[], deps: MediaDeps, signal: AbortSignal): Promise<Rendered[]> {
  const out: Rendered[] = slots.map((s) => (typeof s === "function" ? {} : s));
  const pending = slots.flatMap((s, i) => (typeof s === "function" ? [{ i, run: s }] : []));
  const worker = async () => {
    for (let job = pending.shift(); job; job = pending.shift()) {
      out[job.i] = await job.run().catch((err: unknown): Rendered => {
        deps.logger?.error({ err }, "media preparation step failed");
        return {
          note: signal.aborted
            ? "[An attachment was not processed: the turn was stopped.]"
            : "[An attachment could not be processed (internal error; see the gateway log).]",
        };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALL_CONCURRENCY, pending.length) }, worker));
  return out;
}

function assemble(items: readonly Rendered[]): PreparedMedia {
  return {
    notes: items.flatMap((r) => (r.note ? [r.note] : [])),
    spoken: items.flatMap((r) => (r.spoken ? [r.spoken] : [])),
    images: items.flatMap((r) => (r.image ? [r.image] : [])),
  };
}
