import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReplyAttachments, REPLY_MEDIA_TEXT } from "../../gateway/media/index.js";
import { createApprovalPolicy } from "../../tools/approval/index.js";
import { createWebTools, type WebTools } from "../../tools/web/index.js";
import { makePng } from "../media/helpers/images.js";
import { testConfig } from "../runtime/helpers/harness.js";

let dir: string;
let home: string;
let server: Server | null = null;
let webs: WebTools[] = [];
/** The web tools' guarded GET; loopback is allowed only where a test says so. */
function guardedGet(privateAllowlist: string[] = ["127.0.0.1"]): WebTools["get"] {
  const web = createWebTools(testConfig({ web: { private_allowlist: privateAllowlist } }).web);
  webs.push(web);
  return web.get;
}
const signal = () => AbortSignal.timeout(10_000);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hgw-reply-media-"));
  home = join(dir, "home");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
});
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  await Promise.all(webs.map((w) => w.close()));
  webs = [];
  await rm(dir, { recursive: true, force: true });
});

function attachments(get = guardedGet()) {
  const policy = createApprovalPolicy({ approvals: testConfig().approvals, guard: { home, hermesHome: join(dir, "hermes") } });
  return createReplyAttachments({ exportRefusal: (p) => policy.exportRefusal(p), get, cacheDir: join(dir, "cache"), home });
}

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe("reply attachments", () => {
  it("attaches local files by type, honouring the voice and document directives", async () => {
    for (const f of ["a.png", "b.mp3", "c.ogg", "d.mp4", "e.pdf", "f"]) await writeFile(join(dir, f), "x");
    const text = ["Files:", ...["a.png", "b.mp3", "c.ogg", "d.mp4", "e.pdf", "f"].map((f) => `MEDIA:${join(dir, f)}`)].join("\n");
    const plain = await attachments().extract(text, signal());
    expect(plain.text).toBe("Files:");
    expect(plain.media.map((m) => m.kind)).toEqual(["image", "audio", "voice", "video", "document", "document"]);
    const flagged = await attachments().extract(`${text}\n[[audio_as_voice]] [[as_document]]`, signal());
    expect(flagged.media.map((m) => m.kind)).toEqual(["document", "voice", "voice", "video", "document", "document"]);
  });

  it("says in a short note what could not be attached, and attaches the rest", async () => {
    await writeFile(join(dir, "ok.png"), "x");
    await symlink(join(home, ".ssh", "id_ed25519"), join(dir, "innocent.png"));
    const r = await attachments().extract(
      [`MEDIA:${join(dir, "ok.png")}`, `MEDIA:${join(dir, "gone.png")}`, "MEDIA:~/.ssh/id_ed25519", `![x](${join(dir, "innocent.png")})`, `MEDIA:${dir}`].join(
        "\n",
      ),
      signal(),
    );
    expect(r.media).toEqual([{ path: join(dir, "ok.png"), kind: "image" }]);
    expect(r.text.split("\n\n")).toEqual([
      REPLY_MEDIA_TEXT.missing(join(dir, "gone.png")),
      REPLY_MEDIA_TEXT.refused("~/.ssh/id_ed25519", "it holds credentials or shell start-up settings"),
      REPLY_MEDIA_TEXT.refused(join(dir, "innocent.png"), "it holds credentials or shell start-up settings"),
      REPLY_MEDIA_TEXT.notAFile(dir),
    ]);
  });

  it("fetches an image named by URL into the cache; a page that is not an image becomes a note", async () => {
    const png = makePng(8, 8);
    const base = await serve((req, res) => {
      if (req.url === "/pic") res.writeHead(200, { "content-type": "image/png" }).end(png);
      else res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
    });
    const r = await attachments().extract(`Look: ![pic](${base}/pic) and ![page](${base}/page)`, signal());
    expect(r.media).toHaveLength(1);
    expect(r.media[0]).toMatchObject({ kind: "image", path: expect.stringMatching(/cache\/[0-9a-f]{16}\.png$/) });
    expect(Buffer.compare(await readFile(r.media[0]!.path), png)).toBe(0);
    expect(r.text).toBe(`Look:  and\n\n${REPLY_MEDIA_TEXT.unreachable(`${base}/page`, "it is not an image (text/html)")}`);
  });

  it("refuses a download larger than the limit, even when the server did not announce its size", async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.alloc(4096));
    });
    const policy = createApprovalPolicy({ approvals: testConfig().approvals });
    const small = createReplyAttachments({
      exportRefusal: (p) => policy.exportRefusal(p),
      get: guardedGet(),
      cacheDir: join(dir, "cache"),
      fetch: { maxBytes: 1024 },
    });
    const r = await small.extract(`![big](${base}/big.png)`, signal());
    expect(r.media).toEqual([]);
    expect(r.text).toContain("is larger than");
  });

  it("never fetches from a private, loopback or link-local address the operator did not allow, nor after a redirect", async () => {
    let hits = 0;
    const base = await serve((req, res) => {
      hits++;
      if (req.url === "/hop") res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      else res.writeHead(200, { "content-type": "image/png" }).end(makePng(4, 4));
    });
    const closed = await attachments(guardedGet([])).extract(
      `![a](${base}/pic.png) ![b](http://169.254.169.254/x.png) ![c](http://localhost:1/x.png)`,
      signal(),
    );
    expect(closed.media).toEqual([]);
    expect(closed.text).toContain(REPLY_MEDIA_TEXT.unreachable(`${base}/pic.png`, "127.0.0.1 is not a public address"));
    expect(closed.text).toContain(REPLY_MEDIA_TEXT.unreachable("http://169.254.169.254/x.png", "169.254.169.254 is not a public address"));
    expect(closed.text).toMatch(/Could not fetch http:\/\/localhost:1\/x\.png: .*not a public address/);
    expect(hits).toBe(0);
    const redirected = await attachments().extract(`![a](${base}/hop)`, signal());
    expect(redirected.media).toEqual([]);
    expect(redirected.text).toContain("169.254.169.254 is not a public address");
    expect(hits).toBe(1);
  });
});
