/** `hermes-gateway sessions list|search`. */
import { join } from "node:path";
import { openStore } from "../store/index.js";
import { resolveHome, type CliIo } from "./context.js";
import { EXIT } from "./exit-codes.js";
import type { ParsedCli } from "./main.js";

export async function sessionsCommand(args: readonly string[], cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const [sub, ...query] = args;
  const limit = cli.values.limit ? Number(cli.values.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1) {
    io.err("--limit must be a positive whole number");
    return EXIT.USAGE;
  }
  const store = openStore(join(resolveHome(env), "state.db"));
  try {
    if (sub === "list") {
      const rows = store.sessions.list({ limit, ...(cli.values.source ? { source: cli.values.source } : {}) });
      if (rows.length === 0) io.out("no sessions yet");
      for (const s of rows) {
        io.out(`${s.id}  ${new Date(s.startedAt * 1000).toISOString()}  ${s.source.padEnd(8)} ${String(s.messageCount).padStart(4)} msgs  ${s.title ?? s.preview ?? ""}`);
      }
      return EXIT.OK;
    }
    if (sub === "search" && query.length > 0) {
      const hits = store.search.messages({ query: query.join(" "), limit });
      if (hits.length === 0) io.out("no matches");
      for (const h of hits) {
        io.out(`${h.sessionId}  ${new Date(h.timestamp * 1000).toISOString()}  ${h.role.padEnd(9)} ${h.snippet.replace(/\s+/g, " ")}`);
      }
      return EXIT.OK;
    }
    io.err("usage: hermes-gateway sessions list [--limit N] [--source PLATFORM] | sessions search QUERY");
    return EXIT.USAGE;
  } finally {
    store.close();
  }
}
