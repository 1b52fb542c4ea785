/**
 * Run as a child process by socket.test.ts: starts the Slack adapter on the
 * fake Slack, stops it in the awkward moments (while a reconnect is under
 * way; while Slack no longer answers, so the close handshake never
 * completes), closes the fake, and then must exit by itself: a timer or
 * socket left behind would keep the process alive.
 */
import { pino } from "pino";
import { SlackAdapter } from "../../adapters/slack/index.js";
import { RecordingSink } from "../fakes/recording-sink.js";
import { FakeSlackApi } from "../fakes/slack-api.js";
import { FAST_TIMING, slackConfig } from "./harness.js";

const fake = new FakeSlackApi();
await fake.start();
const make = (): SlackAdapter =>
  new SlackAdapter({
    config: slackConfig(fake),
    downloadDir: "/nonexistent",
    logger: pino({ level: "silent" }),
    maxInboundMediaBytes: 1024,
    timing: { ...FAST_TIMING, closeGraceMs: 300 },
  });

// 1. Stopped while Slack asked for a reconnect and the new socket is being opened.
const first = make();
await first.start(new RecordingSink(), AbortSignal.timeout(5000));
fake.socket.requestReconnect();
await new Promise((r) => setTimeout(r, 5));
await first.stop(AbortSignal.timeout(5000));

// 2. Stopped while Slack has gone silent (half-open): the close handshake is never answered.
const second = make();
await second.start(new RecordingSink(), AbortSignal.timeout(5000));
fake.socket.freezeAll();
await second.stop(AbortSignal.timeout(5000));

await fake.close();
process.stdout.write(`stopped ${Date.now()}\n`);
