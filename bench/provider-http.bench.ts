/**
 * What a model request costs the main thread's garbage collector, through the
 * global fetch (undici's, as the SDKs use by default) and through the
 * provider http client (agent/providers/http.ts: undici's request()).
 *
 * This process serves a streamed chat completion on loopback; for each client a
 * child process runs the real openai SDK against it for a few seconds, three
 * requests at a time, each with a 40-message history, under
 * `--trace-gc-nvp`. Reported per client: requests per second, and per
 * young-generation GC (scavenge) the bytes that survived and were promoted
 * and the pause. Survivors are what a scavenge copies, so they set its pause.
 *
 *   node --import tsx bench/provider-http.bench.ts [seconds]   (or: npm run bench -- provider-http)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { createProviderHttp } from "../agent/providers/http.js";

const CLIENTS = ["global fetch", "provider http"] as const;
type Client = (typeof CLIENTS)[number];

const CHUNKS = ["Hello", " there", ", how", " can", " I", " help", "?"];
const sse = [
  ...CHUNKS.map(
    (c) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: c }, finish_reason: null }] })}\n\n`,
  ),
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
  "data: [DONE]\n\n",
];

async function child(client: Client, url: string, seconds: number): Promise<void> {
  const http = createProviderHttp();
  const fetch = client === "provider http" ? http.fetch(() => {}) : globalThis.fetch;
  const messages = Array.from({ length: 40 }, (_, i) => ({
    role: i % 2 ? ("assistant" as const) : ("user" as const),
    content: `${"a sentence of the conversation ".repeat(20)}${i}`,
  }));
  const one = async () => {
    const ai = new OpenAI({ apiKey: "sk-bench", baseURL: url, fetch, maxRetries: 0 });
    const stream = await ai.chat.completions.create({ model: "m", messages, stream: true }, { signal: new AbortController().signal });
    for await (const _ of stream) void _;
  };
  let n = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    await Promise.all([one(), one(), one()]);
    n += 3;
  }
  await http.close();
  process.stderr.write(`requests ${n}\n`);
}

interface Scavenge {
  readonly pause: number;
  readonly survived: number;
  readonly promoted: number;
}

async function measure(client: Client, url: string, seconds: number): Promise<{ perSecond: number; scavenges: Scavenge[] }> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ["--trace-gc-nvp", "--import", "tsx", self, "--child", client, url, String(seconds)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = (await once(proc, "exit")) as [number | null];
  if (code !== 0) throw new Error(`${client} run exited with ${code}: ${err}`);
  const requests = Number(/requests (\d+)/.exec(err)?.[1] ?? 0);
  const field = (line: string, name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
  // One line per GC per isolate ([pid:isolate]); tsx's loader thread has an isolate too: keep the busiest.
  const lines = out.split("\n").filter((l) => l.includes("gc=s "));
  const isolate = (l: string) => /^\[\d+:(0x[0-9a-f]+)\]/.exec(l)?.[1] ?? "";
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(isolate(l), (counts.get(isolate(l)) ?? 0) + 1);
  const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const scavenges = lines
    .filter((l) => isolate(l) === main)
    .slice(3) // start-up
    .map((l) => ({ pause: field(l, "pause"), survived: field(l, "new_space_survived"), promoted: field(l, "promoted") }));
  return { perSecond: requests / seconds, scavenges };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 8);
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sse.join(""));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const avg = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`openai SDK, streamed completions, 3 in flight, ${seconds} s per client, one child process each`);
  console.log("client          requests/s  scavenges  survived/scavenge  promoted/scavenge  pause avg / max");
  for (const client of CLIENTS) {
    const { perSecond, scavenges } = await measure(client, url, seconds);
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(2)} MB`;
    console.log(
      `${client.padEnd(15)} ${perSecond.toFixed(0).padStart(10)}  ${String(scavenges.length).padStart(9)}  ${mb(avg(scavenges.map((s) => s.survived))).padStart(17)}  ${mb(avg(scavenges.map((s) => s.promoted))).padStart(17)}  ${avg(scavenges.map((s) => s.pause)).toFixed(1)} / ${Math.max(0, ...scavenges.map((s) => s.pause)).toFixed(1)} ms`,
    );
  }
  server.closeAllConnections();
  server.close();
}

if (process.argv[2] === "--child") await child(process.argv[3] as Client, process.argv[4] ?? "", Number(process.argv[5]));
else await main();
