/**
 * The tool set of the "normal" fake MCP server, shared by the stdio and the
 * HTTP fakes: arithmetic, echo, a throwing tool, an image, structured content,
 * a big result, and a slow tool that honours cancellation and records it.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** 1 KiB of bytes, base64-encoded: a stand-in for a PNG. */
const IMAGE_BYTES = 1024;

export interface NormalToolsState {
  /** Reasons of requests the client cancelled, in order. */
  readonly cancellations: string[];
}

export function registerNormalTools(server: McpServer, state: NormalToolsState, log: (line: string) => void): void {
  server.registerTool("add", { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));

  server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));

  server.registerTool("boom", { description: "Always throws.", inputSchema: {} }, async () => {
    throw new Error("boom: the tool failed on purpose");
  });

  server.registerTool("picture", { description: "Returns an image and a caption.", inputSchema: {} }, async () => ({
    content: [
      { type: "text", text: "a red square" },
      { type: "image", mimeType: "image/png", data: Buffer.alloc(IMAGE_BYTES, 7).toString("base64") },
    ],
  }));

  server.registerTool(
    "stats",
    {
      description: "Sum and count of numbers, as structured content.",
      inputSchema: { values: z.array(z.number()) },
      outputSchema: { sum: z.number(), count: z.number() },
    },
    async ({ values }) => {
      const out = { sum: values.reduce((s, v) => s + v, 0), count: values.length };
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );

  server.registerTool("big", { description: "Returns `chars` characters of text.", inputSchema: { chars: z.number().int() } }, async ({ chars }) => ({
    content: [{ type: "text", text: "x".repeat(chars) }],
  }));

  server.registerTool("slow", { description: "Waits `ms` milliseconds unless cancelled.", inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        state.cancellations.push(String(extra.signal.reason ?? "aborted"));
        log(`slow: cancelled (request ${String(extra.requestId)})`);
        resolve();
      });
    });
    return { content: [{ type: "text", text: extra.signal.aborted ? "cancelled" : `slept ${ms} ms` }] };
  });

  server.registerTool("cancellations", { description: "Lists the cancellations this server observed.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: JSON.stringify(state.cancellations) }],
  }));
}
