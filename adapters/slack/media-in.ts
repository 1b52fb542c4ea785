/**
 * Inbound files: each file of a message is fetched from its
 * `url_private_download` with the bot token (Slack answers a request without
 * it with a sign-in page, which is refused, not saved) into
 * HERMES_HOME/cache/<kind>/<file id>-<name>, and handed to the gateway's
 * media pipeline as an `InboundMedia`. A redelivered event reuses the file
 * already on disk; an oversized or unavailable file becomes a note in the
 * message text instead.
 */
import { type DownloadResult, downloadToFile, TransientIngressError } from "../common/download.js";
import { type CollectedMedia, cachePath, kindOfMime, safeFileName, tooLargeNote } from "../common/inbound-media.js";
import type { InboundMedia } from "../types.js";

export interface SlackFile {
  readonly id?: string;
  readonly name?: string;
  readonly title?: string;
  readonly mimetype?: string;
  readonly size?: number;
  readonly subtype?: string;
  readonly mode?: string;
  readonly url_private_download?: string;
  readonly url_private?: string;
}

export interface SlackMediaOptions {
  readonly botToken: string;
  readonly downloadDir: string;
  readonly maxBytes: number;
  readonly fetch: typeof globalThis.fetch;
}

export class SlackMediaFetcher {
  constructor(private readonly opts: SlackMediaOptions) {}

  async collect(files: readonly SlackFile[], signal?: AbortSignal): Promise<CollectedMedia> {
    const media: InboundMedia[] = [];
    const notes: string[] = [];
    for (const f of files) {
      const got = await this.fetchOne(f, signal);
      if ("note" in got) notes.push(got.note);
      else media.push(got.media);
    }
    return { media, notes };
  }

  private async fetchOne(f: SlackFile, signal?: AbortSignal): Promise<{ media: InboundMedia } | { note: string }> {
    const name = f.name ?? f.title ?? f.id ?? "file";
    const url = f.url_private_download ?? f.url_private;
    if (!f.id || !url || f.mode === "tombstone") return { note: `[File "${name}" is not available to the bot.]` };
    const limit = this.opts.maxBytes;
    if (f.size !== undefined && f.size > limit) return { note: tooLargeNote(`File "${name}"`, f.size, limit) };
    const kind = kindOf(f);
    const dest = cachePath(this.opts.downloadDir, kind, `${f.id}-${safeFileName(name)}`);
    const r = await this.download(url, dest, f, signal);
    if (r.kind === "too_large") return { note: tooLargeNote(`File "${name}"`, undefined, limit) };
    if (r.kind === "refused") return { note: `[File "${name}" could not be downloaded: ${r.reason ?? `Slack answered HTTP ${r.status}`}]` };
    return { media: { kind, path: dest, sizeBytes: r.bytes, fileName: name, ...(f.mimetype ? { mimeType: f.mimetype } : {}) } };
  }

  /** The file with the bot token; network trouble and server errors are worth Slack's redelivery of the event. */
  private async download(url: string, dest: string, f: SlackFile, signal?: AbortSignal): Promise<DownloadResult> {
    let r: DownloadResult;
    try {
      r = await downloadToFile(url, dest, this.opts.maxBytes, signal, {
        fetch: this.opts.fetch,
        headers: { authorization: `Bearer ${this.opts.botToken}` },
        refuse: (res) => signInPage(res, f),
      });
    } catch (err) {
      throw new TransientIngressError("file download failed (network, or interrupted)", { cause: err });
    }
    if (r.kind === "refused" && r.reason === undefined && (r.status >= 500 || r.status === 429))
      throw new TransientIngressError(`file download failed: HTTP ${r.status}`);
    return r;
  }
}

/** Voice clips recorded in Slack are `slack_audio`; other audio is an audio file. */
function kindOf(f: SlackFile): InboundMedia["kind"] {
  const kind = kindOfMime(f.mimetype);
  return kind === "audio" && f.subtype === "slack_audio" ? "voice" : kind;
}

function signInPage(res: Response, f: SlackFile): string | undefined {
  const type = res.headers.get("content-type") ?? "";
  return type.startsWith("text/html") && !(f.mimetype ?? "").startsWith("text/html")
    ? "Slack answered with its sign-in page (does the bot token have files:read?)"
    : undefined;
}
