/**
 * The texts the model reads when a command is refused. The deny, timeout,
 * hardline and send-failure texts are Hermes Agent's, word for word: models
 * have learnt that "BLOCKED … Do NOT retry" means stop, and the timeout text
 * says plainly that silence is not consent.
 */

const NO_CONSENT =
  "The user has NOT consented to this action. Do NOT retry this command, do NOT rephrase it, and do NOT attempt the same outcome via a different command. Stop the current workflow and wait for the user to respond before taking any further destructive or irreversible action.";

export function deniedMessage(reason?: string): string {
  const because = reason?.trim() ? ` Reason given by the user: "${reason.trim()}".` : "";
  return `BLOCKED: Command denied by user.${because} ${NO_CONSENT}`;
}

export function timeoutMessage(): string {
  return `BLOCKED: Command timed out without user response. ${NO_CONSENT} Silence is not consent.`;
}

export function hardlineMessage(description: string): string {
  return (
    `BLOCKED (hardline): ${description}. This command is on the unconditional blocklist and cannot be executed via the agent — ` +
    "not even with --yolo, /yolo, approvals.mode=off, or cron approve mode. If you genuinely need to run it, run it yourself in a terminal outside the agent."
  );
}

export function sudoStdinMessage(description: string): string {
  return (
    `BLOCKED: ${description}. Do not pipe passwords to 'sudo -S' — this is a brute-force attack vector. ` +
    "If the command really needs root, ask the user to run the sudo command manually in their own terminal."
  );
}

export function denyRuleMessage(glob: string): string {
  return (
    `BLOCKED: this command matches the user's deny rule '${glob}' (approvals.deny). It cannot be executed via the agent — ` +
    "not even with /yolo or approvals.mode=off. Do NOT retry or rephrase this command; the user has explicitly forbidden it."
  );
}

export function smartDeniedMessage(description: string): string {
  return (
    `BLOCKED by smart approval: the safety reviewer judged this command too risky (${description}) and there is no one to override it here. ` +
    "Do NOT retry this command, do NOT rephrase it, and do NOT attempt the same outcome via a different command. Ask the user to run it themselves if it is really needed."
  );
}

export function cronDeniedMessage(description: string): string {
  return (
    `BLOCKED: ${description}. This is a scheduled (cron) run and dangerous commands are refused there (approvals.cron_mode: deny). ` +
    "Do NOT retry or rephrase it. Report which command needs approval so the user can run it, or ask them to set approvals.cron_mode: approve."
  );
}

export function noChannelMessage(description: string): string {
  return (
    `BLOCKED: ${description}. This command needs the user's approval and there is no way to ask them from here, so it was not run. ` +
    "Do NOT retry or rephrase it; tell the user which command needs their approval."
  );
}

export const SEND_FAILED_MESSAGE = "BLOCKED: Failed to send approval request to user. Do NOT retry.";

/** Shown to the person when the auxiliary reviewer said DENY and they may still allow this one run. */
export function smartDenyPrompt(description: string): string {
  return `Smart DENY — owner override for one operation. ${description}`;
}
