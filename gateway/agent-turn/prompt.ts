/**
 * The production PromptBuilder: the agent's layered system prompt for the
 * session's platform and tools, followed by the gateway's session-context
 * block. Built once per session and frozen in the store. A context file left
 * out as a likely prompt injection becomes a notice the chat is sent.
 *
 * What the prompt reads from disk (SOUL.md, the context files, the skills
 * index, the memory block) is read afresh for every new session, so a memory
 * saved in one chat is in the next chat's prompt. Builds that overlap share
 * one read: fifty chats starting at once cost one read, not fifty (each read
 * is some fifteen file-system requests, and every request is a round trip
 * through libuv's thread pool that the main thread has to signal).
 */
import { assembleSystemPrompt, blockedFileNotice, loadPromptFiles, localEnvironment, type PromptFiles, type ToolView } from "../../agent/index.js";
import type { Config } from "../../config/index.js";
import type { PromptBuilder } from "../runtime/ports.js";
import type { SessionPromptExtras } from "../tools-session.js";

export interface AgentPromptDeps {
  readonly config: Config;
  readonly cwd: string;
  tools(toolsets: readonly string[]): Promise<ToolView>;
  /** The skills index and memory block as they are now, when those features are wired. */
  extras?(): Promise<SessionPromptExtras>;
}

interface SharedRead {
  readonly files: PromptFiles;
  readonly extras: SessionPromptExtras | undefined;
}

export function createAgentPromptBuilder(deps: AgentPromptDeps): PromptBuilder {
  const read = shareOverlapping(async (): Promise<SharedRead> => {
    const [files, extras] = await Promise.all([
      loadPromptFiles({ home: deps.config.home, identity: deps.config.agent.identity, contextDir: deps.cwd }),
      deps.extras?.(),
    ]);
    return { files, extras };
  });
  return {
    async build(ctx, signal) {
      signal?.throwIfAborted();
      const [view, shared] = await Promise.all([deps.tools(ctx.toolsets), read()]);
      // The shared read does not take one caller's signal (it would fail the others): a build aborted meanwhile stops here.
      signal?.throwIfAborted();
      const built = assembleSystemPrompt(
        {
          platform: ctx.platform,
          platformHint: ctx.configuredHint ?? undefined,
          environment: localEnvironment(deps.cwd),
          model: ctx.model,
          toolNames: view.schemas.map((s) => s.name),
          skillsIndex: shared.extras?.skillsIndex,
          memoryBlock: shared.extras?.memoryBlock,
        },
        shared.files,
      );
      return { text: `${built.system}\n\n${ctx.sessionContext}`, notices: built.blocked.map(blockedFileNotice) };
    },
  };
}

/**
 * Calls that overlap one in flight get its promise; a call after it settled
 * (fulfilled or rejected) starts a new one, so nothing is cached beyond the
 * overlap.
 */
function shareOverlapping<T>(run: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= run().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
