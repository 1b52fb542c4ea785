import { describe, expect, it } from "vitest";
import { HermesError } from "../../config/errors.js";
import { firstSlot, followingSlot, parseSchedule } from "../../gateway/cron/index.js";

const NOW = Date.parse("2026-03-02T10:15:30Z"); // a Monday
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("schedules", () => {
  it("reads cron expressions in a time zone, five fields or six with seconds", () => {
    const weekdays9 = parseSchedule("0 9 * * 1-5", "Europe/Berlin", NOW);
    expect(iso(firstSlot(weekdays9, NOW))).toBe("2026-03-03T08:00:00.000Z");
    expect(iso(followingSlot(weekdays9, Date.parse("2026-03-06T08:00:00Z"), Date.parse("2026-03-06T08:00:01Z")))).toBe("2026-03-09T08:00:00.000Z");
    const every5s = parseSchedule("*/5 * * * * *", undefined, NOW);
    expect(iso(firstSlot(every5s, NOW))).toBe("2026-03-02T10:15:35.000Z");
  });

  it("reads intervals, delays and times", () => {
    const interval = parseSchedule("every 30m", undefined, NOW);
    expect(interval).toEqual({ kind: "interval", everyMs: 30 * 60_000 });
    expect(parseSchedule("every 2 hours", undefined, NOW)).toEqual({ kind: "interval", everyMs: 7_200_000 });
    expect(parseSchedule("45m", undefined, NOW)).toEqual({ kind: "once", at: NOW + 45 * 60_000 });
    expect(parseSchedule("in 2h", undefined, NOW)).toEqual({ kind: "once", at: NOW + 7_200_000 });
    expect(parseSchedule("2026-12-24T09:00", "America/New_York", NOW)).toEqual({ kind: "once", at: Date.parse("2026-12-24T14:00:00Z") });
    expect(parseSchedule("2026-12-24T09:00:00+01:00", undefined, NOW)).toEqual({ kind: "once", at: Date.parse("2026-12-24T08:00:00Z") });
  });

  it("never yields a slot already past: an interval after downtime goes on from its own grid", () => {
    const s = parseSchedule("every 1m", undefined, NOW);
    const slot = NOW + 60_000;
    expect(followingSlot(s, slot, slot + 500)).toBe(slot + 60_000);
    // Down for 4½ minutes: the next slot is the grid's first one after now, not one per missed minute.
    expect(followingSlot(s, slot, slot + 270_000)).toBe(slot + 300_000);
    const once = parseSchedule("45m", undefined, NOW);
    expect(followingSlot(once, NOW + 45 * 60_000, NOW + 46 * 60_000)).toBeNull();
  });

  it.each([
    ["every", "HGW_ERR_CRON_SCHEDULE"],
    ["every 0s", "HGW_ERR_CRON_SCHEDULE"],
    ["every fortnight", "HGW_ERR_CRON_SCHEDULE"],
    ["61 * * * *", "HGW_ERR_CRON_SCHEDULE"],
    ["sometime soon", "HGW_ERR_CRON_SCHEDULE"],
    ["2020-01-01T00:00", "HGW_ERR_CRON_SCHEDULE"],
  ])("refuses %j", (text, code) => {
    expect(() => parseSchedule(text, undefined, NOW)).toThrow(expect.objectContaining({ code }));
  });

  it("refuses an unknown time zone", () => {
    let error: unknown;
    try {
      parseSchedule("0 9 * * *", "Mars/Olympus", NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HermesError);
    expect((error as HermesError).code).toBe("HGW_ERR_CRON_TIMEZONE");
  });
});
