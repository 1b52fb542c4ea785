/**
 * What a /background task does (BackgroundTasks holds them): a detached run
 * of its prompt in a session of its own, then its result posted to the chat.
 */

import type { StartTask } from "./background.js";
import type { RuntimeCore } from "./core.js";
import { deliverText } from "./deliver.js";
import { runDetached } from "./detached.js";
import { TEXT } from "./texts.js";
import { isSilent } from "./turn-finish.js";

/** Runs one task and posts its result (or why there is none). Never rejects. */
export async function runBackgroundTask(core: RuntimeCore, spec: StartTask & { id: string }, signal: AbortSignal): Promise<void> {
  const where = { task: spec.id, chatId: spec.chat.chatId };
  let text: string | null;
  try {
    const r = await runDetached(
      core,
      {
        sessionKey: `background:${spec.chat.platform}:${spec.id}`,
        platform: spec.chat.platform,
        prompt: spec.prompt,
        model: null,
        chat: spec.chat,
        interactive: true,
        userId: spec.userId,
      },
      signal,
    );
    if (r.status === "aborted") text = TEXT.backgroundInterrupted(spec.id);
    else if (r.status === "failed") text = TEXT.backgroundFailed(spec.id, r.error ?? "unknown error");
    else text = r.finalText && !isSilent(r.finalText) ? TEXT.backgroundDone(spec.id, r.finalText) : null;
  } catch (err) {
    core.logger.error({ ...where, err }, "background task failed outside the agent");
    text = TEXT.backgroundFailed(spec.id, "internal error (see the gateway log)");
  }
  if (text === null) return;
  try {
    await deliverText(core, spec.chat, text, `${spec.key}:result`, AbortSignal.timeout(120_000));
  } catch (err) {
    core.logger.warn({ ...where, err }, "could not post a background task's result");
  }
}
