import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildConfig, collectSecrets } from "../../config/index.js";
import { createLogger, redact } from "../../gateway/log.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}

describe("secret redaction", () => {
  const token = "7123456789:AAFakeTelegramTokenWithEnoughLength_x";
  const config = buildConfig({
    yamlText: "providers:\n  custom:\n    base_url: http://127.0.0.1:1/v1\n    api_key: plain-custom-key-that-has-no-known-shape\n",
    env: { TELEGRAM_BOT_TOKEN: token, OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwx" },
    file: null,
    home: "/h",
  });

  it("never writes a configured secret, in any field or nesting", () => {
    const { lines, stream } = capture();
    const log = createLogger({ level: "debug", format: "json", secrets: collectSecrets(config), destination: stream });
    log.info({ url: `https://api.telegram.org/bot${token}/getUpdates` }, "polling");
    log.error({ err: new Error(`request failed with key plain-custom-key-that-has-no-known-shape`) }, "provider error");
    log.warn({ headers: { authorization: "Bearer sk-proj-abcdefghijklmnopqrstuvwx" }, nested: { deep: [token] } }, `token ${token}`);
    log.child({ component: "x" }).info(`"quoted ${JSON.stringify(token)}"`);
    const out = lines.join("");
    expect(lines.length).toBe(4);
    expect(out).not.toContain(token);
    expect(out).not.toContain("AAFakeTelegramToken");
    expect(out).not.toContain("plain-custom-key-that-has-no-known-shape");
    expect(out).not.toContain("abcdefghijklmnopqrstuvwx");
    expect(out).toContain("[REDACTED]");
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  });

  it.each([
    ["Authorization: Bearer abc.def.ghi-123", "Authorization: Bearer [REDACTED]"],
    ["https://user:hunter2@example.com/x", "https://user:[REDACTED]@example.com/x"],
    ["slack xoxb-1234-5678-abcdefgh", "slack [REDACTED]"],
    ["app xapp-1-A0-123-abcdef0123", "app [REDACTED]"],
    ["anthropic sk-ant-api03-abcdefghijklmnopqrstu", "anthropic [REDACTED]"],
    ["github ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github [REDACTED]"],
    ['{"api_key":"zzzz-secret"}', '{"api_key":"[REDACTED]"}'],
    ["nothing secret here: 12345 and some words", "nothing secret here: 12345 and some words"],
  ])("redacts shapes of credentials: %s", (input, expected) => {
    expect(redact(input, [])).toBe(expected);
  });
});
