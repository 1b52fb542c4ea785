/**
 * `/reload-mcp` with approvals.mcp_reload_confirm (default true): the first
 * command asks, only `/reload-mcp confirm` within 60 s reloads; without the
 * flag it reloads at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../config/index.js";
import { RELOAD_MCP_TEXT } from "../../gateway/runtime/commands/control-commands.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { type Harness, makeHarness } from "../runtime/helpers/harness.js";
import { say } from "./helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(config: ConfigInput = {}, clock?: FakeClock): Promise<{ h: Harness; reloads: () => number }> {
  let n = 0;
  h = await makeHarness({
    config,
    ...(clock ? { clock } : {}),
    hooks: {
      reloadMcp: async () => {
        n++;
        return "🔄 MCP reloaded: 2/2 server(s) ready, 7 tool(s).";
      },
    },
  });
  return { h, reloads: () => n };
}

describe("/reload-mcp confirmation", () => {
  it("asks first, and reloads only on /reload-mcp confirm", async () => {
    const { h, reloads } = await harness();
    expect(await say(h, "/reload-mcp", "Send `/reload-mcp confirm`")).toBe(RELOAD_MCP_TEXT.confirm);
    expect(reloads()).toBe(0);
    expect(await say(h, "/reload-mcp confirm", "MCP reloaded")).toBe("🔄 MCP reloaded: 2/2 server(s) ready, 7 tool(s).");
    expect(reloads()).toBe(1);
    // The confirmation is used up: a second one reloads nothing.
    await say(h, "/reload_mcp confirm", RELOAD_MCP_TEXT.nothingPending);
    expect(reloads()).toBe(1);
  });

  it("a plain message in between does not confirm, /reload-mcp cancel drops the request", async () => {
    const { h, reloads } = await harness();
    await say(h, "/reload-mcp", RELOAD_MCP_TEXT.confirm);
    await say(h, "yes", "echo: yes"); // ordinary text goes to the agent
    await say(h, "/reload-mcp cancel", RELOAD_MCP_TEXT.cancelled);
    await say(h, "/reload-mcp confirm", RELOAD_MCP_TEXT.nothingPending);
    expect(reloads()).toBe(0);
  });

  it("a confirmation later than 60 s is refused", async () => {
    const clock = new FakeClock();
    const { h, reloads } = await harness({}, clock);
    await say(h, "/reload-mcp", RELOAD_MCP_TEXT.confirm);
    await clock.advance(61_000);
    await say(h, "/reload-mcp confirm", RELOAD_MCP_TEXT.nothingPending);
    expect(reloads()).toBe(0);
    await say(h, "/reload-mcp", RELOAD_MCP_TEXT.confirm);
    await clock.advance(59_000);
    await say(h, "/reload-mcp confirm", "MCP reloaded");
    expect(reloads()).toBe(1);
  });

  it("each session confirms its own request", async () => {
    const { h, reloads } = await harness();
    await say(h, "/reload-mcp", RELOAD_MCP_TEXT.confirm);
    await h.adapter.message({ text: "/reload-mcp confirm", user: "bob" });
    await h.adapter.waitForText(RELOAD_MCP_TEXT.nothingPending, "bob");
    expect(reloads()).toBe(0);
  });

  it("with mcp_reload_confirm: false it reloads at once", async () => {
    const { h, reloads } = await harness({ approvals: { mcp_reload_confirm: false } });
    await say(h, "/reload-mcp", "MCP reloaded");
    expect(reloads()).toBe(1);
  });

  it("without MCP wired it says not available, confirmation or not", async () => {
    h = await makeHarness();
    await say(h, "/reload-mcp", "is not available");
    await say(h, "/reload-mcp confirm", "is not available");
  });
});
