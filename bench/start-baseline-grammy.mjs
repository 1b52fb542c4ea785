// The start-up benchmark's baseline (daemon-start.bench.ts): a minimal grammY bot — grammY loaded, a Bot with a
// handler, /healthz on HERMES_HTTP_PORT over node:http — so the daemon's start can be read against what any bot
// costs on the same machine at the same moment. It never calls Telegram.
import { createServer } from "node:http";
import { Bot } from "grammy";

const bot = new Bot("123456:baseline-token-never-sent");
bot.on("message:text", (ctx) => ctx.reply(ctx.message.text));
const server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}'));
server.listen(Number(process.env.HERMES_HTTP_PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close());
