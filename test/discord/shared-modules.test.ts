/** The platform-neutral pieces the Discord adapter shares with the others: health with a reconnect margin, bounded records, inbound file names. */
import { describe, expect, it } from "vitest";
import { BoundedMap, BoundedSet } from "../../adapters/common/bounded-map.js";
import { HealthTracker } from "../../adapters/common/health-tracker.js";
import { cachePath, kindOfMime, safeFileName, tooLargeNote } from "../../adapters/common/inbound-media.js";

describe("HealthTracker", () => {
  it("stays connected while the client resumes, reads retrying past the margin, connected again once back", () => {
    let now = 1_000_000;
    const h = new HealthTracker(() => now, 30_000);
    h.set("connected", "as hermes#1");
    h.reconnecting();
    now += 10_000;
    expect(h.snapshot()).toEqual({ state: "connected", detail: "connection lost 10 s ago; reconnecting" });
    now += 25_000;
    expect(h.snapshot()).toMatchObject({ state: "retrying", detail: "connection lost 35 s ago; reconnecting" });
    h.set("connected", "as hermes#1");
    expect(h.snapshot()).toEqual({ state: "connected", detail: "as hermes#1" });
  });

  it("a drop while not connected (starting, fatal, stopped) changes nothing", () => {
    let now = 0;
    const h = new HealthTracker(() => now, 1000);
    for (const state of ["starting", "fatal", "stopped"] as const) {
      h.set(state, "why");
      h.reconnecting();
      now += 5000;
      expect(h.snapshot()).toEqual({ state, detail: "why" });
    }
  });
});

describe("BoundedSet", () => {
  it("forgets its oldest members past capacity; adding one again makes it the newest", () => {
    const s = new BoundedSet<string>(2);
    s.add("a").add("b").add("a").add("c");
    expect([s.has("a"), s.has("b"), s.has("c")]).toEqual([true, false, true]);
    expect(s.delete("a")).toBe(true);
    expect(s.has("a")).toBe(false);
  });

  it("is a BoundedMap underneath: reading does not refresh an entry", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1).set("b", 2);
    m.get("a");
    m.set("c", 3);
    expect(m.has("a")).toBe(false);
    expect(m.size).toBe(2);
  });
});

describe("inbound media", () => {
  it("files go to a folder per kind under a safe name", () => {
    expect(cachePath("/cache", "voice", `1-${safeFileName("../../etc/passwd")}`)).toBe("/cache/audio/1-_.._etc_passwd");
    expect(safeFileName("...")).toBe("file");
    expect([kindOfMime("image/png; q=1"), kindOfMime("audio/ogg"), kindOfMime("video/mp4"), kindOfMime(null)]).toEqual(["image", "audio", "video", "document"]);
    expect(tooLargeNote('File "a.zip"', 30 * 1024 * 1024, 20 * 1024 * 1024)).toBe(
      '[File "a.zip" (30 MB) was not downloaded: it is larger than the 20 MB limit.]',
    );
  });
});
