/**
 * Every sentence the runtime says to a chat, in one place, so wording stays
 * consistent and tests can refer to it by name.
 */
import { ERRORS } from "../../config/errors.js";
import type { BusyMode } from "../../config/index.js";

export const BUSY_ACK: Readonly<Record<BusyMode, string>> = {
  interrupt: "⚡ Interrupting current task. I'll respond to your message shortly.",
  queue: "⏳ Queued for the next turn. I'll respond once the current task finishes.",
  steer: "⏩ Steered into current run. Your message arrives after the next tool call.",
};

export const TEXT = {
  queueFull: (max: number) =>
    `⚠️ Too many messages are waiting for this conversation (limit ${max}); this one was dropped. Try again once I've caught up, or /stop.`,
  stopped: "⚡ Stopped. You can continue this session.",
  stoppedIdle: "Nothing is running. You can continue this session.",
  newSession: "✨ New session started. What shall we do?",
  busyCommand: (name: string) => `⏳ Agent is running — \`/${name}\` can't run mid-turn. Wait for the current response or \`/stop\` first.`,
  unknownCommand: (name: string) =>
    `Unknown command \`/${name}\`. Type /help to see what's available, or resend without the leading slash to send it as a regular message.`,
  notAvailable: (name: string) => `\`/${name}\` is not available in this gateway.`,
  turnFailed: (why: string) => `⚠️ The agent could not finish this turn: ${why}`,
  deliveryFailed: "⚠️ Message delivery failed after several attempts. Your request was processed but the reply could not be sent.",
  setAside: (attempts: number) =>
    `⚠️ I could not answer this message: the gateway stopped ${attempts} times while working on it, so it was set aside. Send it again if you still need it.`,
  deliveryIncomplete: "⚠️ Message delivery failed after several attempts: only the first part of the reply above could be sent.",
  stillWorking: (minutes: number) => `⏳ Still working — ${minutes} min so far. Send /stop to cancel.`,
  inactivityWarning: (idleMin: number, leftMin: number) =>
    `⚠️ No activity for ${idleMin} min. If the agent does not respond soon it will be stopped in ${leftMin} min. You can keep waiting or send /stop.`,
  inactivityTimeout: (idleMin: number) => `⏱ The agent was inactive for ${idleMin} min and was stopped. Send a message to continue.`,
  shuttingDown: "⚠️ Gateway shutting down — Your current task will be interrupted.",
  restarting: "⚠️ Gateway restarting — Your current task will be interrupted. Send any message after restart and I'll try to resume where you left off.",
  resumeNote:
    "[System note: your previous turn in this conversation was interrupted by a gateway restart. Use the conversation so far to pick up where you left off if the user's message asks for it.]",
  queued: (depth: number) => (depth > 1 ? `Queued for the next turn. (${depth} queued)` : "Queued for the next turn."),
  queueUsage: "Usage: /queue <prompt>",
  steerQueued: (preview: string) => `⏩ Steer queued — arrives after the next tool call: '${preview}'`,
  steerJoined: (preview: string) => `⏩ Added to the task about to start: '${preview}'`,
  steerUsage: "Usage: /steer <prompt>",
  // approvals
  approvalResolved: ERRORS.HGW_ERR_APPROVAL_RESOLVED,
  approvalUnauthorized: "⛔ You are not authorized to approve commands.",
  clarifyResolved: "This question has already been answered.",
  approvalFallback: (command: string, description: string, allowAlways: boolean) =>
    [
      "⚠️ **Dangerous command requires approval:**",
      "```",
      command.length > 200 ? `${command.slice(0, 200)}...` : command,
      "```",
      `Reason: ${description}`,
      "",
      `Reply \`/approve\` to run it once, \`/approve session\` to allow this kind of command for the session${allowAlways ? ", `/approve always` to allow it permanently" : ""}, or \`/deny\` to cancel.`,
    ].join("\n"),
  approved: (choice: "once" | "session" | "always", count: number) => {
    const what = count > 1 ? `Commands approved (${count} commands)` : "Command approved";
    const scope = choice === "session" ? " (pattern approved for this session)" : choice === "always" ? " (pattern approved permanently)" : "";
    return `✅ ${what}${scope}. The agent is resuming...`;
  },
  denied: (count: number, reason: string | null) =>
    reason ? `❌ Command denied. Reason relayed to the agent: "${reason}"` : count > 1 ? `❌ Commands denied (${count} commands).` : "❌ Command denied.",
  noApproval: "No pending command to approve.",
  noDenial: "No pending command to deny.",
  clarifyFallback: (question: string, choices: readonly string[]) =>
    [`❓ ${question}`, ...choices.map((c, i) => `${i + 1}. ${c}`), "", choices.length ? "Reply with a number or type your answer." : "Type your answer."].join(
      "\n",
    ),
  yoloOn: "⚡ YOLO mode **ON** for this session — all commands are auto-approved. Use with caution.",
  yoloOff: "⚠️ YOLO mode **OFF** for this session — dangerous commands will require approval.",
  // pairing
  pairingCode: (code: string, platform: string) =>
    `Hi! I don't recognize you yet.\n\nHere's your pairing code: \`${code}\`\n\nAsk the bot owner to run:\n\`hermes-gateway pairing approve ${platform} ${code}\``,
  pairingBusy: "Too many pairing requests right now. Please try again later.",
  // home channels, background work, restarts
  noHomeChannel: (platform: string) =>
    `📬 No home channel is set for ${platformTitle(platform)}. A home channel is where Hermes delivers cron job results and cross-platform messages.\n\nType ${platform === "slack" ? "!sethome" : "/sethome"} to make this chat your home channel, or ignore to skip.`,
  homeSet: (chatId: string) => `✅ Home channel set to this chat (ID: ${chatId}).\nCron jobs and cross-platform messages will be delivered here.`,
  backgroundUsage: "Usage: /background <prompt>",
  backgroundStarted: (preview: string, id: string) =>
    `🔄 Background task started: "${preview}"\nTask ID: ${id}\nYou can keep chatting — results will appear when done.`,
  backgroundDone: (id: string, text: string) => `✅ Background task complete (${id})\n\n${text}`,
  backgroundFailed: (id: string, why: string) => `❌ Background task failed (${id}): ${why}`,
  backgroundInterrupted: (id: string) => `❌ Background task interrupted (${id}): the gateway stopped before it finished. Send /background again to rerun it.`,
  restartRefused: "⛔ Only users named in the allowlists (or paired) may restart the gateway.",
  restartStarted:
    "♻ Restarting gateway. If you aren't notified within 60 seconds, restart it from the console (`hermes-gateway service restart`, or your supervisor's restart).",
  restartDraining: (count: number) => `⏳ Draining ${count} active agent(s) before restart...`,
  restarted: "♻️ Gateway restarted — I'm back online.",
} as const;

function platformTitle(platform: string): string {
  return platform.charAt(0).toUpperCase() + platform.slice(1);
}

export const OUTCOME_LABEL = {
  once: "✅ Approved once",
  session: "✅ Approved for session",
  always: "✅ Approved permanently",
  deny: "❌ Denied",
} as const;
