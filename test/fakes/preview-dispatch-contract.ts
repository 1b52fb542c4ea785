/**
 * What every adapter that streams by editing a preview must report of the
 * request that posts the preview (StreamOptions.previewDispatch), run against
 * a platform's real adapter and its fake: that request once, as it leaves and
 * before it reaches the platform, with the text as written and whether the
 * preview shows all of it; the edits after it never; a request the platform
 * refused as having posted nothing (the runtime's journal drops the note),
 * one the platform held until it timed out as maybe posted (the note stays:
 * a stray), each time the adapter tries it again; one that met a rate
 * limit as having posted nothing, and its retry, where the adapter waits the
 * limit out (Discord; Telegram and Slack give a preview up at once), as it
 * leaves; a request the gateway could not record, not at all.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Adapter, ChatRef } from "../../adapters/types.js";
import { journaledStream, PreviewDispatchLog } from "./dispatch-log.js";

/** One platform's adapter over its fake, as the contract drives it. */
export interface PreviewRig {
  readonly adapter: Adapter;
  readonly chat: ChatRef;
  /** Runs before each stream: the `answers` it is started with (a Discord slash command's preview answers its placeholder). */
  prepare?(): Promise<readonly string[]>;
  /** Requests that post a preview the fake has received so far, answered or not. */
  posts(): number;
  /** Edits of a message the fake has carried out so far. */
  edits(): number;
  /** The texts of the bot's messages in the chat, as the platform shows them, first to last. */
  texts(): string[];
  /** The platform refuses the next request that posts a preview, so that it posts nothing (a 4xx; Slack's `ok: false`). */
  refuseNextPost(): void;
  /** The platform answers the next request that posts a preview with a 429 (it posts nothing). */
  rateLimitNextPost(): void;
  /** Every request that posts a preview from now on reaches the platform and is never answered. */
  holdPosts(): void;
  /** Resolves once `check` holds, checked as the fake records each request and its answer. */
  when(check: () => boolean): Promise<unknown>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** How long the adapter waits for an answer before it gives a request up. */
  readonly requestTimeoutMs?: number;
}

/** Texts whose preview the platform cuts to one message's worth: a long one, and one that only its formatting makes too long. */
export interface CutTexts {
  readonly long: string;
  readonly longOnceFormatted?: string;
}

/** How long a held request waits for its answer before the adapter gives it up. */
const HOLD_MS = 500;

/** `n` times `items`, in one list. */
function times<T>(n: number, items: readonly T[]): T[] {
  return Array.from({ length: n }, () => items).flat();
}

export function previewDispatchContract(platform: string, start: (opts?: RigOptions) => Promise<PreviewRig>, cut: CutTexts): void {
  let rig: PreviewRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });
  const open = async (opts?: RigOptions): Promise<PreviewRig> => {
    rig = await start(opts);
    return rig;
  };
  const streamOn = async (r: PreviewRig, log: PreviewDispatchLog) =>
    r.adapter.startStream!(r.chat, { previewDispatch: log, answers: (await r.prepare?.()) ?? [] });
  const journaledOn = async (r: PreviewRig) => journaledStream(r.adapter, r.chat, (await r.prepare?.()) ?? []);

  describe(`what the ${platform} adapter reports of a stream's preview`, () => {
    it("its posting request, once, before it reaches the platform, with the text as written and whole; not the edits after it", async () => {
      const r = await open();
      const seen: number[] = [];
      const log = new PreviewDispatchLog({ onStarted: () => seen.push(r.posts()) });
      const stream = await streamOn(r, log);
      stream.update("the **start**");
      await r.when(() => r.texts().some((t) => t.includes("start")));
      stream.update("the **start** and more");
      await r.when(() => r.edits() === 1);
      stream.update("the **start** and more still");
      await r.when(() => r.edits() === 2);
      await stream.finish("the whole answer");
      expect(r.edits()).toBe(3);
      expect(log.postings).toEqual([{ text: "the **start**", whole: true }]);
      expect(log.events).toEqual(["started", "posted"]);
      // Told before its request arrived.
      expect(seen).toEqual([0]);
      expect(r.posts()).toBe(1);
      expect(r.texts().at(-1)).toBe("the whole answer");
    });

    it("as under way while the platform holds the request, and as maybe posted once it timed out there", async () => {
      const r = await open({ requestTimeoutMs: HOLD_MS });
      r.holdPosts();
      const log = new PreviewDispatchLog();
      const stream = await streamOn(r, log);
      stream.update("held");
      await r.when(() => r.posts() === 1);
      expect(log.events).toEqual(["started"]);
      expect(await stream.settlePreview!()).toBeUndefined();
      // Every attempt (an adapter may try a request again that is safe to repeat) is reported as it leaves.
      expect(log.events).toEqual(times(r.posts(), ["started", "posted"]));
      expect(log.postings).toEqual(times(r.posts(), [{ text: "held", whole: true }]));
    });

    it("a request the platform refused as having posted nothing; previews stop, and the final text goes out once", async () => {
      const r = await open();
      r.refuseNextPost();
      const log = new PreviewDispatchLog();
      const stream = await streamOn(r, log);
      stream.update("refused");
      expect(await stream.settlePreview!()).toBeUndefined();
      expect(log.events).toEqual(["started", "nothing"]);
      stream.update("refused and more");
      await stream.finish("the answer");
      expect(log.events).toEqual(["started", "nothing"]);
      expect(r.texts().at(-1)).toBe("the answer");
    });

    it("a rate-limited request as having posted nothing, and a retry of it as it leaves", async () => {
      const r = await open();
      r.rateLimitNextPost();
      const seen: number[] = [];
      const log = new PreviewDispatchLog({ onStarted: () => seen.push(r.posts()) });
      const stream = await streamOn(r, log);
      stream.update("limited");
      const shown = await stream.settlePreview!();
      const retries = r.posts() - 1;
      expect(shown === undefined).toBe(retries === 0);
      expect(log.events).toEqual(["started", "nothing", ...times(retries, ["started", "posted"])]);
      expect(log.postings).toEqual(times(retries + 1, [{ text: "limited", whole: true }]));
      expect(seen).toEqual(Array.from({ length: retries + 1 }, (_, i) => i));
      stream.cancel();
    });

    it("a preview cut to one message's worth as not whole, with all of the text", async () => {
      const r = await open();
      for (const text of [cut.long, cut.longOnceFormatted].filter((t) => t !== undefined)) {
        const log = new PreviewDispatchLog();
        const stream = await streamOn(r, log);
        const before = r.posts();
        stream.update(text);
        expect(await stream.settlePreview!()).toBeDefined();
        expect(log.postings).toEqual([{ text, whole: false }]);
        expect(log.events).toEqual(["started", "posted"]);
        expect(r.posts()).toBe(before + 1);
        expect(r.texts().at(-1)).toMatch(/…$/);
        stream.cancel();
      }
    });

    it("no request the gateway could not record: it is not sent, and the final text goes out once", async () => {
      const r = await open();
      const log = new PreviewDispatchLog({ refuse: new Error("the store is full") });
      const stream = await streamOn(r, log);
      stream.update("never shown");
      expect(await stream.settlePreview!()).toBeUndefined();
      expect(r.posts()).toBe(0);
      await stream.finish("the answer");
      expect(log.events).toEqual([]);
      expect(r.texts().at(-1)).toBe("the answer");
    });
  });

  describe(`the runtime's note of a ${platform} preview`, () => {
    it("becomes the preview's id once it is shown", async () => {
      const r = await open();
      const j = await journaledOn(r);
      j.say("the start");
      expect(await j.stream.handle!.settlePreview!()).toBeDefined();
      expect(j.journal).toEqual(["posting the start", "shown"]);
      expect(j.stream.stray).toBeNull();
    });

    it("goes when the platform refused the request", async () => {
      const r = await open();
      r.refuseNextPost();
      const j = await journaledOn(r);
      j.say("refused");
      expect(await j.stream.handle!.settlePreview!()).toBeUndefined();
      expect(j.journal).toEqual(["posting refused", "not posted"]);
      expect(j.stream.stray).toBeNull();
    });

    it("stays when the request timed out on its way: the preview may be in the chat, a stray", async () => {
      const r = await open({ requestTimeoutMs: HOLD_MS });
      r.holdPosts();
      const j = await journaledOn(r);
      j.say("held");
      expect(await j.stream.handle!.settlePreview!()).toBeUndefined();
      expect(j.journal).toEqual(times(r.posts(), ["posting held"]));
      expect(j.stream.stray).toEqual({ text: "held", whole: true });
    });
  });
}
