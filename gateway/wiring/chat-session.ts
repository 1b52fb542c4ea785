/**
 * The stored session behind this run's terminal chat. A run starts with none
 * (the runtime creates it with the first message) or, with `--resume`, points
 * its chat's route at a stored one — any session, by id or exact title — so
 * the runtime continues it with its frozen prompt and history. When the run
 * ends, whatever session the route points at then (a compression may have
 * moved it to a child) ends with reason "cli_close".
 */
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import type { Store } from "../store/index.js";

export const CLI_CLOSE = "cli_close";

export interface SessionSummary {
  readonly id: string;
  readonly messages: number;
}

/** Routes `key` to the session `ref` names. Throws HGW_ERR_SESSION_NOT_FOUND. */
export function pointAtSession(store: Store, key: string, ref: string): void {
  const record = store.sessions.get(ref) ?? store.sessions.getByTitle(ref);
  if (!record) throw new HermesError("HGW_ERR_SESSION_NOT_FOUND", `Nothing matches "${ref}" as a session id or title; see \`hermes-gateway sessions list\`.`);
  if (record.endedAt !== null) store.sessions.reopen(record.id);
  store.routes.set({ sessionKey: key, sessionId: record.id });
}

export function summarize(store: Store, key: string): SessionSummary | null {
  const route = store.routes.get(key);
  const record = route ? store.sessions.get(route.sessionId) : null;
  return record ? { id: record.id, messages: record.messageCount } : null;
}

export function endChatSession(store: Store, key: string, logger: Logger): void {
  const route = store.routes.get(key);
  if (!route) return;
  try {
    const record = store.sessions.get(route.sessionId);
    if (record && record.endedAt === null) store.sessions.end(record.id, CLI_CLOSE);
  } catch (err) {
    logger.error({ err, sessionId: route.sessionId }, "could not mark the session ended");
  }
}
