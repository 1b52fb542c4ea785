/**
 * The output plumbing on its own: secret patterns, the head+tail cap, the
 * offset-addressed ring log, and line-wise cleaning that never lets a chunk
 * boundary split a token past the redactor.
 */
import { describe, expect, it } from "vitest";
import { literalRedactor, redactSecrets } from "../../tools/common/redact.js";
import { CappedText, LineCleaner, RingLog } from "../../tools/terminal/output.js";

describe("redactSecrets", () => {
  it.each([
    ["sk-proj-abcdefghijklmnop1234567890", "sk-proj-***"],
    ["sk-ant-api03-abcdefghijklmnopqrstuv", "sk-ant-api03-***"],
    ["xoxb-1234567890-abcdefghij", "xoxb-***"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_***"],
    ["github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_***"],
    ["bot 123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-bs done", "bot 123456789:*** done"],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", "Authorization: Bearer ***"],
    ["AKIAIOSFODNN7EXAMPLE", "AKIAIOSF***"],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = ***"],
    ["password=hunter2 next", "password=*** next"],
    ['DB_PASSWORD: "s3cret value"', "DB_PASSWORD: ***"],
    ["api_key=abc123&x=1", "api_key=***&x=1"],
    ["postgres://app:pa55word@db:5432/x", "postgres://app:***@db:5432/x"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED PRIVATE KEY]"],
  ])("masks %j", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it("leaves ordinary text alone", () => {
    const text = "build ok in 3.2s; 12 tests passed; see https://example.com/docs";
    expect(redactSecrets(text)).toBe(text);
  });

  it("applies an extra redactor for exact configured secrets", () => {
    expect(redactSecrets("token is my-own-secret-1", literalRedactor(["my-own-secret-1"]))).toBe("token is ***");
  });
});

describe("CappedText", () => {
  it("keeps everything while under the cap", () => {
    const c = new CappedText(5, 5);
    c.append("abc");
    c.append("def");
    expect(c.text()).toBe("abcdef");
    expect(c.truncated).toBe(false);
  });

  it("keeps the head and the tail and says how much was cut", () => {
    const c = new CappedText(4, 4);
    for (const part of ["HEAD", "middle-".repeat(100), "TAIL"]) c.append(part);
    expect(c.truncated).toBe(true);
    expect(c.text()).toBe(`HEAD\n\n[... ${700} characters of output omitted (708 total); showing the first 4 and last 4 ...]\n\nTAIL`);
  });
});

describe("RingLog", () => {
  it("reads by absolute offset and reports dropped text", () => {
    const log = new RingLog(10);
    log.append("0123456789");
    log.append("abcde");
    expect(log.first).toBe(5);
    expect(log.end).toBe(15);
    expect(log.read(0, 100)).toEqual({ text: "56789abcde", from: 5, to: 15, dropped: 5 });
    expect(log.read(12, 2)).toEqual({ text: "cd", from: 12, to: 14, dropped: 0 });
  });

  it("gives a tail snapped to a line start", () => {
    const log = new RingLog(100);
    log.append("first line\nsecond line\nthird\n");
    expect(log.tail(20)).toEqual({ text: "second line\nthird\n", truncated: true });
    expect(log.tail(1000)).toEqual({ text: "first line\nsecond line\nthird\n", truncated: false });
  });
});

describe("LineCleaner", () => {
  it("redacts a token split across chunks and strips ANSI", () => {
    const cleaner = new LineCleaner();
    const out = [cleaner.push(Buffer.from("\x1b[32mkey sk-proj-abcdefgh")), cleaner.push(Buffer.from("ijklmnop1234\x1b[0m\nnext")), cleaner.flush()].join("");
    expect(out).toBe("key sk-proj-***\nnext");
  });

  it("decodes UTF-8 split across chunks", () => {
    const cleaner = new LineCleaner();
    const bytes = Buffer.from("héllo\n");
    expect(cleaner.push(bytes.subarray(0, 2)) + cleaner.push(bytes.subarray(2))).toBe("héllo\n");
  });
});
