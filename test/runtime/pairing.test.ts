import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import { pairingApprove, pairingList, pairingRevoke } from "../../gateway/cli/pairing-cli.js";
import { authorize } from "../../gateway/runtime/authz.js";
import { createPairing, PAIRING_LIMITS } from "../../gateway/runtime/pairing.js";
import { platformSettings } from "../../gateway/runtime/platform-settings.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { type Harness, makeHarness, testConfig } from "./helpers/harness.js";
import { wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const never = new AbortController().signal;
const CODE_RE = /`([ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8})`/;
const locked = { gateway: { allow_all_users: false } } as const;

describe("DM pairing end to end", () => {
  it("gives an unknown DM a code, stays quiet on repeats, and lets the user in once the owner approves", async () => {
    h = await makeHarness({ platform: "telegram", config: locked });
    expect(await h.adapter.message({ text: "hi", user: "bob" })).toEqual({ status: "ignored", reason: "unauthorized" });
    const sent = await h.adapter.waitForText("pairing code", "bob");
    const code = CODE_RE.exec(sent.opts.text)?.[1];
    expect(code).toBeDefined();
    expect(sent.opts.text).toContain(`hermes-gateway pairing approve telegram ${code}`);
    await h.adapter.message({ text: "hello?", user: "bob" });
    await wait(30, never);
    expect(h.adapter.texts("bob")).toHaveLength(1);
    // Stored salted and hashed, never the code itself.
    const rows = h.raw.pairing.listRequests();
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(h.runtime.pairing.list("telegram").pending.map((p) => p.userId)).toEqual(["bob"]);

    expect(pairingList(h.runtime.pairing).output).toMatch(/Pending requests \(1\):\n {2}telegram {2}bob/);
    expect(pairingList(h.runtime.pairing).output).not.toContain(code);
    expect(pairingApprove(h.runtime.pairing, "telegram", "ZZZZZZZZ")).toMatchObject({ exitCode: 1 });
    const approved = pairingApprove(h.runtime.pairing, "telegram", ` ${code!.toLowerCase().slice(0, 4)} ${code!.toLowerCase().slice(4)} `);
    expect(approved).toEqual({ exitCode: 0, output: "Approved bob (telegram user bob)." });
    await h.adapter.message({ text: "now?", user: "bob" });
    await h.adapter.waitForText("echo: now?", "bob");
    expect(h.runtime.pairing.list("telegram")).toMatchObject({ pending: [], approved: [{ userId: "bob" }] });

    expect(pairingRevoke(h.runtime.pairing, "telegram", "bob").exitCode).toBe(0);
    expect(pairingRevoke(h.runtime.pairing, "telegram", "bob").exitCode).toBe(1);
    expect(await h.adapter.message({ text: "still?", user: "bob" })).toMatchObject({ status: "ignored" });
  });

  it("ignores unauthorized group messages silently", async () => {
    h = await makeHarness({ platform: "telegram", config: locked });
    expect(await h.adapter.message({ text: "hi", user: "eve", chatId: "-100", chatType: "group" })).toMatchObject({ status: "ignored" });
    await wait(30, never);
    expect(h.adapter.sends()).toHaveLength(0);
  });

  it("says nothing to unknown DMs when unauthorized_dm_behavior is ignore", async () => {
    h = await makeHarness({
      platform: "telegram",
      config: { gateway: { allow_all_users: false, platforms: { telegram: { unauthorized_dm_behavior: "ignore" } } } },
    });
    await h.adapter.message({ text: "hi", user: "bob" });
    await wait(30, never);
    expect(h.adapter.sends()).toHaveLength(0);
    expect(h.runtime.pairing.list().pending).toHaveLength(0);
  });

  it("caps pending codes per platform and tells a refused user once", async () => {
    h = await makeHarness({ platform: "telegram", config: locked });
    for (const u of ["u1", "u2", "u3"]) await h.adapter.message({ text: "hi", user: u });
    for (const u of ["u1", "u2", "u3"]) await h.adapter.waitForText("pairing code", u);
    await h.adapter.message({ text: "hi", user: "u4" });
    await h.adapter.waitForText(TEXT.pairingBusy, "u4");
    await h.adapter.message({ text: "hi again", user: "u4" });
    await wait(30, never);
    expect(h.adapter.texts("u4")).toEqual([TEXT.pairingBusy]);
    expect(h.runtime.pairing.list("telegram").pending).toHaveLength(PAIRING_LIMITS.maxPendingPerPlatform);
  });
});

describe("pairing rules", () => {
  const clock = { now: () => t };
  let t = 1_000_000;

  it("expires codes after an hour and rate limits one request per user per 10 minutes", () => {
    const p = createPairing(runtimeStoreOver(openStore(":memory:")), clock);
    const first = p.request("telegram", "bob", "Bob");
    expect(first.kind).toBe("code");
    expect(p.request("telegram", "bob", "Bob").kind).toBe("rate_limited");
    t += 10 * 60_000 + 1;
    expect(p.request("telegram", "bob", "Bob").kind).toBe("code");
    t += 60 * 60_000 + 1;
    expect(p.approve("telegram", (first as { code: string }).code)).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("locks a platform's approvals for an hour after five wrong codes", () => {
    const p = createPairing(runtimeStoreOver(openStore(":memory:")), clock);
    const r = p.request("discord", "bob", "Bob");
    const code = (r as { code: string }).code;
    for (let i = 0; i < 4; i++) expect(p.approve("discord", "AAAAAAAA")).toMatchObject({ ok: false, reason: "invalid" });
    expect(p.approve("discord", "AAAAAAAA")).toMatchObject({ ok: false, reason: "locked" });
    expect(p.approve("discord", code)).toMatchObject({ ok: false, reason: "locked" });
    expect(p.request("discord", "carol", "Carol").kind).toBe("refused");
    t += 60 * 60_000 + 1;
    // The code itself expired meanwhile; a fresh one works after the lockout.
    const again = p.request("discord", "dave", "Dave") as { code: string };
    expect(p.approve("discord", again.code)).toMatchObject({ ok: true, userId: "dave" });
  });
});

describe("authorization", () => {
  const sender = (userId: string, extra: object = {}) => ({ userId, displayName: userId, isBot: false, ...extra });
  const dm = (platform: string, id: string) => ({ platform, chatId: id, chatType: "dm" as const });
  const group = (platform: string, id: string) => ({ platform, chatId: id, chatType: "group" as const });
  const noPairs = () => false;
  const check = (cfg: Parameters<typeof testConfig>[0], chat: ChatRef, s: ReturnType<typeof sender>, paired = noPairs) => {
    const c = testConfig({ ...cfg, gateway: { allow_all_users: false, ...(cfg?.gateway ?? {}) } });
    return authorize(chat, s, platformSettings(c, chat.platform), { allowedUsers: c.gateway.allowed_users, allowAllUsers: c.gateway.allow_all_users }, paired)
      .ok;
  };

  it("denies by default", () => {
    expect(check({}, dm("telegram", "1"), sender("1"))).toBe(false);
  });
  it("admits per-platform and global allowlists, and *", () => {
    expect(check({ gateway: { platforms: { telegram: { allowed_users: ["1"] } } } }, dm("telegram", "1"), sender("1"))).toBe(true);
    expect(check({ gateway: { platforms: { telegram: { allowed_users: ["1"] } } } }, dm("discord", "1"), sender("1"))).toBe(false);
    expect(check({ gateway: { allowed_users: ["1"] } }, dm("discord", "1"), sender("1"))).toBe(true);
    expect(check({ gateway: { platforms: { slack: { allowed_users: ["*"] } } } }, dm("slack", "x"), sender("x"))).toBe(true);
  });
  it("honours allow-all switches", () => {
    expect(check({ gateway: { platforms: { discord: { allow_all_users: true } } } }, dm("discord", "9"), sender("9"))).toBe(true);
    expect(check({ gateway: { allow_all_users: true } }, dm("slack", "9"), sender("9"))).toBe(true);
  });
  it("admits whole group chats and group-only users, never DMs from group-only users", () => {
    const cfg = { gateway: { platforms: { telegram: { group_allowed_chats: ["-100"], group_allowed_users: ["7"] } } } };
    expect(check(cfg, group("telegram", "-100"), sender("anyone"))).toBe(true);
    expect(check(cfg, group("telegram", "-200"), sender("7"))).toBe(true);
    expect(check(cfg, dm("telegram", "7"), sender("7"))).toBe(false);
  });
  it("closes channels outside allowed_channels to everyone (clicks too), and never limits DMs", () => {
    const cfg = { gateway: { platforms: { slack: { allowed_users: ["*"], allowed_channels: ["C1"] } } } };
    expect(check(cfg, group("slack", "C1"), sender("u"))).toBe(true);
    expect(check(cfg, group("slack", "C2"), sender("u"))).toBe(false);
    expect(check(cfg, dm("slack", "D1"), sender("u"))).toBe(true);
    expect(check({ gateway: { platforms: { slack: { allowed_users: ["*"], allowed_channels: ["*"] } } } }, group("slack", "C9"), sender("u"))).toBe(true);
  });
  it("admits Discord roles and paired users", () => {
    expect(check({ gateway: { platforms: { discord: { allowed_roles: ["mods"] } } } }, group("discord", "c"), sender("5", { roles: ["mods"] }))).toBe(true);
    expect(check({}, dm("telegram", "5"), sender("5"), () => true)).toBe(true);
  });
  it("admits nobody outside allowed_channels or in ignored_channels; a thread counts by its parent; DMs are not channels", () => {
    const thread = (parent: string, id: string): ChatRef => ({ platform: "discord", chatId: parent, chatType: "thread", threadId: id });
    const allowed = { gateway: { platforms: { discord: { allowed_users: ["5"], allowed_channels: ["c1"] } } } };
    expect(check(allowed, group("discord", "c1"), sender("5"))).toBe(true);
    expect(check(allowed, group("discord", "c2"), sender("5"))).toBe(false);
    expect(check(allowed, thread("c1", "t9"), sender("5"))).toBe(true);
    expect(check(allowed, thread("c2", "t9"), sender("5"))).toBe(false);
    expect(check(allowed, dm("discord", "d1"), sender("5"))).toBe(true);
    const ignored = { gateway: { platforms: { discord: { allow_all_users: true, ignored_channels: ["c3", "t4"] } } } };
    expect(check(ignored, group("discord", "c3"), sender("5"))).toBe(false);
    expect(check(ignored, thread("c3", "t1"), sender("5"))).toBe(false);
    expect(check(ignored, thread("c5", "t4"), sender("5"))).toBe(false);
    expect(check(ignored, group("discord", "c5"), sender("5", { roles: ["mods"] }))).toBe(true);
    expect(
      check(
        { gateway: { platforms: { discord: { allowed_roles: ["mods"], allowed_channels: ["*"] } } } },
        group("discord", "c5"),
        sender("5", { roles: ["mods"] }),
      ),
    ).toBe(true);
  });
});
