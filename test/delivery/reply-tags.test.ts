import { describe, expect, it } from "vitest";
import { extractReplyTags } from "../../gateway/media/index.js";

describe("files named in a reply", () => {
  it("takes MEDIA tags out, bare, quoted or backticked, with or without a space, and keeps the words around them", () => {
    const r = extractReplyTags('Here is the chart:\nMEDIA:/tmp/chart.png\nAnd the log MEDIA: "/tmp/my log.txt". Also MEDIA:`~/out/a.pdf`, done.');
    expect(r.refs).toEqual([
      { ref: "/tmp/chart.png", from: "tag" },
      { ref: "/tmp/my log.txt", from: "tag" },
      { ref: "~/out/a.pdf", from: "tag" },
    ]);
    expect(r.text).toBe("Here is the chart:\n\nAnd the log . Also , done.");
  });

  it("strips sentence punctuation after a bare path, and leaves tags that name no path alone", () => {
    const r = extractReplyTags("Sent MEDIA:/tmp/a.png. Write MEDIA:path to send one.");
    expect(r.refs.map((x) => x.ref)).toEqual(["/tmp/a.png"]);
    expect(r.text).toBe("Sent . Write MEDIA:path to send one.");
  });

  it("takes markdown and HTML images (local or by URL) and links to local files; links to web pages stay", () => {
    const r = extractReplyTags(
      '![plot](https://example.com/p.png "t") <img src="/tmp/b.jpg" alt="b"> see [the report](/tmp/r.pdf) and [docs](https://example.com/docs)',
    );
    expect(r.refs).toEqual([
      { ref: "https://example.com/p.png", from: "image" },
      { ref: "/tmp/b.jpg", from: "image" },
      { ref: "/tmp/r.pdf", from: "link" },
    ]);
    expect(r.text).toBe("see the report and [docs](https://example.com/docs)");
  });

  it("ignores everything inside code and blockquotes", () => {
    const text = [
      "To send a file, write `MEDIA:/path/to/file`.",
      "```",
      "MEDIA:/tmp/in-fence.png",
      "![x](/tmp/x.png)",
      "```",
      "> MEDIA:/tmp/quoted.png",
      "~~~md",
      "MEDIA:/tmp/tilde.png",
      "~~~",
    ].join("\n");
    const r = extractReplyTags(text);
    expect(r.refs).toEqual([]);
    expect(r.text).toBe(text);
  });

  it("reads the voice and document directives and removes them", () => {
    const r = extractReplyTags("[[audio_as_voice]]\nMEDIA:/tmp/a.mp3\n[[as_document]]");
    expect(r).toMatchObject({ asVoice: true, asDocument: true, text: "", refs: [{ ref: "/tmp/a.mp3", from: "tag" }] });
  });

  it("leaves a text that names no file exactly as it was", () => {
    const text = "  A plain reply.\n\n\n  With spacing.  ";
    expect(extractReplyTags(text)).toEqual({ text, refs: [], asVoice: false, asDocument: false });
  });
});
