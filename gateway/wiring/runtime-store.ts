/**
 * RuntimeStore over the SQLite store (gateway/store). A turn's messages,
 * usage, inbound outcome and reply are committed in one transaction, which
 * also clears the turn's journal.
 */
import type { Logger } from "pino";
import type { ChatRef } from "../../adapters/types.js";
import type { Message } from "../../agent/types.js";
import { writeCompaction } from "../agent-turn/compression.js";
import type { InboundOutcome, PendingReply, RuntimeStore, SessionInfo } from "../runtime/ports.js";
import { type OutboxRow, openStore, type SessionRecord, type Store, type StoreOptions } from "../store/index.js";

function sessionInfo(r: SessionRecord): SessionInfo {
  return {
    id: r.id,
    source: r.source,
    userId: r.userId,
    model: r.model,
    systemPrompt: r.systemPrompt ?? "",
    title: r.title,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    messageCount: r.messageCount,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    reasoningTokens: r.reasoningTokens,
  };
}

function outboxRow(r: PendingReply): OutboxRow {
  const reply = {
    text: r.text,
    answers: r.answers,
    ...(r.media?.length ? { media: r.media } : {}),
    ...(r.replyTo !== undefined ? { replyTo: r.replyTo } : {}),
    ...(r.previewId !== undefined ? { previewId: r.previewId } : {}),
    ...(r.strayPreview ? { strayPreview: r.strayPreview } : {}),
    ...(r.final ? { final: r.final } : {}),
  };
  return { key: r.key, sessionKey: r.sessionKey, platform: r.chat.platform, chat: JSON.stringify(r.chat), reply: JSON.stringify(reply), createdAt: r.at };
}

function pendingReply(row: OutboxRow): PendingReply {
  const reply = JSON.parse(row.reply) as Pick<PendingReply, "text" | "answers" | "media" | "replyTo" | "previewId" | "strayPreview" | "final">;
  return { key: row.key, sessionKey: row.sessionKey, chat: JSON.parse(row.chat) as ChatRef, ...reply, at: row.createdAt };
}

export function runtimeStoreOver(store: Store): RuntimeStore {
  const { inbound, outbound, outbox, journal, routes, sessions, messages, approvals, pairing } = store;
  // A finished row's turn journal goes with it, in the same transaction.
  const mark = (id: number, outcome: InboundOutcome) =>
    store.transaction(() => {
      inbound.mark(id, outcome);
      journal.clear(id);
    });
  return {
    writable: () => store.health(),
    recordInbound: (r) => inbound.record(r.platform, r.eventId, r.sessionKey, r.payload, r.receivedAt),
    markInbound: mark,
    startInbound: (ids) =>
      store.transaction(() => {
        for (const id of ids) inbound.mark(id, "processing");
      }),
    requeueInbound: (ids) =>
      store.transaction(() => {
        for (const id of ids) inbound.mark(id, "pending");
      }),
    unfinishedInbound: () =>
      inbound.unfinished().map((r) => ({
        id: r.id,
        platform: r.platform,
        eventId: r.eventId,
        payload: r.payload,
        receivedAt: r.receivedAt,
        crashes: r.crashes,
        crashBlame: r.crashBlame,
      })),
    recoverInbound: (platforms) => inbound.recoverCrashed(platforms),

    outboundState: (key) => outbound.state(key),
    markOutboundDispatched: (key, m) => void outbound.claim(key, m.platform, m.chatId, m.at),
    // A reply marked sent leaves the outbox in the same transaction (no separate settle on the hot path).
    markOutboundSent: (key, ids, at) =>
      store.transaction(() => {
        outbound.markSent(key, ids, at);
        outbox.remove(key);
      }),
    releaseOutbound: (key) => void outbound.release(key),

    getRoute: (key) => {
      const r = routes.get(key);
      return r ? { sessionId: r.sessionId, resumePending: r.resumePending } : null;
    },
    setRoute: (sessionKey, sessionId) => routes.set({ sessionKey, sessionId }),
    setResumePending: (key, pending) => void routes.markResumePending(key, pending),

    createSession: (s) => void sessions.create(s),
    getSession: (id) => {
      const r = sessions.get(id);
      return r ? sessionInfo(r) : null;
    },
    endSession: (id, reason, at) => void sessions.end(id, reason, at),
    reopenSession: (id) => sessions.reopen(id),
    setSessionTitle: (id, title) => void sessions.setTitle(id, title),
    setSessionModel: (id, model) => sessions.setModel(id, model),
    findSessionByTitle: (title) => {
      const r = sessions.getByTitle(title);
      return r ? sessionInfo(r) : null;
    },
    listSessions: (q) => sessions.list(q).map(sessionInfo),

    loadHistory: (id) => messages.list(id).map((r) => ({ id: r.id, message: r.message })),
    commitTurn: (c) =>
      store.transaction(() => {
        messages.appendMany(c.sessionId, c.messages);
        const next = c.continueIn;
        if (next) writeCompaction(store, { parentId: c.sessionId, childId: next.sessionId, messages: next.messages, sessionKey: next.sessionKey, at: next.at });
        sessions.addUsage(next?.sessionId ?? c.sessionId, { ...c.usage, api_calls: c.apiCalls ?? 0 });
        for (const id of c.inboundIds) mark(id, c.outcome);
        if (c.reply) outbox.add(outboxRow(c.reply));
      }),
    journalMessage: (inboundId, seq, message) => journal.append(inboundId, seq, JSON.stringify(message)),
    journalPreview: (inboundId, messageId) => journal.notePreview(inboundId, messageId),
    journalPreviewPosting: (inboundId, posting, at) => journal.notePosting(inboundId, posting, at),
    forgetPreview: (inboundId) => journal.forgetPreview(inboundId),
    journaled: (inboundId) => {
      const { messages, preview, posting, postingAt } = journal.read(inboundId);
      return { messages: messages.map((m) => JSON.parse(m) as Message), preview, posting, postingAt };
    },
    pendingReplies: () => outbox.list().map(pendingReply),
    settleReply: (key) => void outbox.remove(key),
    deleteMessagesFrom: (id, fromId) => messages.deleteFrom(id, fromId),

    recordApprovalDecision: (a) => void approvals.record(a),

    setHomeChannel: (h) => routes.setHome(h),
    getHomeChannel: (platform) => {
      const h = routes.getHome(platform);
      return h ? { platform: h.platform, chatId: h.chatId, threadId: h.threadId, name: h.name } : null;
    },

    getMark: (name) => store.marks.get(name),
    setMark: (name, value) => store.marks.set(name, value),
    deleteMark: (name) => store.marks.delete(name),

    insertPairingRequest: (r) => void pairing.insertRequest(r),
    listPairingRequests: (platform) => pairing.listRequests(platform),
    deletePairingRequest: (id) => void pairing.deleteRequest(id),
    prunePairingRequests: (before) => void pairing.pruneRequests(before),
    getPairingLockout: (platform) => pairing.getLockout(platform),
    setPairingLockout: (platform, failures, until) => pairing.setLockout(platform, failures, until),
    addPairedUser: (u) => pairing.addPaired(u),
    isPairedUser: (platform, userId) => pairing.isPaired(platform, userId),
    listPairedUsers: (platform) => pairing.listPaired(platform),
    removePairedUser: (platform, userId) => pairing.removePaired(platform, userId),
  };
}

/** Opens the SQLite store at `path` (or ":memory:") and wraps it for the runtime. */
export function openRuntimeStore(path: string, opts: StoreOptions & { logger?: Logger } = {}): { store: RuntimeStore; raw: Store; close(): void } {
  const raw = openStore(path, opts);
  return { store: runtimeStoreOver(raw), raw, close: () => raw.close() };
}
