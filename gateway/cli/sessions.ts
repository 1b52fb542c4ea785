/** `hermes-gateway sessions list|search|export`. Titles, previews and snippets came from platforms: printed terminal-safe. */
import { toShareGpt, trajectoryEntry, trajectoryLine } from "../../agent/trajectory.js";
import type { Config } from "../../config/index.js";
import type { Store } from "../store/index.js";
import { terminalSafe, terminalSafeJson } from "../terminal-text.js";
import { openHomeStore } from "../wiring/store.js";
import { withToolSchemas } from "../wiring/tool-schemas.js";
import type { ParsedCli } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";

export async function sessionsCommand(args: readonly string[], cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const [sub, ...query] = args;
  const limit = cli.values.limit ? Number(cli.values.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1) {
    io.err("--limit must be a positive whole number");
    return EXIT.USAGE;
  }
  const store = openHomeStore(resolveHome(env));
  try {
    if (sub === "list") {
      const rows = store.sessions.list({ limit, ...(cli.values.source ? { source: cli.values.source } : {}) });
      if (rows.length === 0) io.out("no sessions yet");
      for (const s of rows) {
        io.out(
          `${s.id}  ${new Date(s.startedAt).toISOString()}  ${terminalSafe(s.source).padEnd(8)} ${String(s.messageCount).padStart(4)} msgs  ${terminalSafe(s.title ?? s.preview ?? "")}`,
        );
      }
      return EXIT.OK;
    }
    if (sub === "search" && query.length > 0) {
      const hits = store.search.messages({ query: query.join(" "), limit });
      if (hits.length === 0) io.out("no matches");
      for (const h of hits) {
        io.out(`${h.sessionId}  ${new Date(h.timestamp).toISOString()}  ${h.role.padEnd(9)} ${terminalSafe(h.snippet).replace(/\s+/g, " ")}`);
      }
      return EXIT.OK;
    }
    if (sub === "export" && query.length > 0) {
      const config = await loadOrReport(resolveHome(env), cli.values.config, env, io);
      if (!config) return EXIT.CONFIG;
      return await exportTrajectories(store, config, query, io);
    }
    io.err("usage: hermes-gateway sessions list [--limit N] [--source PLATFORM] | sessions search QUERY | sessions export ID...");
    return EXIT.USAGE;
  } finally {
    store.close();
  }
}

/**
 * Writes each session as one ShareGPT JSONL line (Hermes Agent's trajectory
 * format: reasoning in <think>, tool calls in <tool_call>, results in
 * <tool_response>). The tools listed are those the session's platform offers now.
 */
async function exportTrajectories(store: Store, config: Config, ids: readonly string[], io: CliIo): Promise<number> {
  return withToolSchemas(config, async (schemasFor) => {
    let missing = 0;
    for (const id of ids) {
      const session = store.sessions.get(id) ?? store.sessions.getByTitle(id);
      if (!session) {
        io.err(`no session ${id}`);
        missing++;
        continue;
      }
      const conversation = toShareGpt(session.systemPrompt ?? "", store.messages.loadConversation(session.id), await schemasFor(session.source));
      io.out(
        terminalSafeJson(
          trajectoryLine(trajectoryEntry(conversation, session.model ?? "unknown", session.endedAt !== null, new Date(session.startedAt))).trimEnd(),
        ),
      );
    }
    return missing === 0 ? EXIT.OK : EXIT.FAILURE;
  });
}
