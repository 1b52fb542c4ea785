/**
 * Rules for commands that stop things: killing processes, shutting the
 * host down, stopping services and containers, and the gateway's own
 * lifecycle (stopping it kills every running agent, including this one).
 */
import { commandName } from "./guard-argv.js";
import { type CommandRule, operands, render, shortLetters } from "./guard-rule.js";
import { DANGEROUS, HARDLINE } from "./guard-types.js";
import type { Field } from "./invocation.js";

const SELF = /hermes|gateway|cli\.py/i;
const MATCH_ALL = new Set([".", ".*", "^", "^.*", "^.*$", ""]);

const kill: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "kill") return;
  if (cmd.args.some((a) => a === "-l" || a === "-L" || a === "--list" || a === "--table")) return;
  if (cmd.args.includes("-1")) {
    ctx.report(HARDLINE.killAll, render(cmd));
    return;
  }
  for (const f of cmd.argFields) {
    const via = f.substs.find((s) => s.invocations.some((i) => ["pgrep", "pidof"].includes(commandName(i.argv[0]))));
    if (via) ctx.report(via.backtick ? DANGEROUS.killPgrepBacktick : DANGEROUS.killPgrep, render(cmd));
    if (isGatewayPid(f, ctx.options.gatewayPid)) ctx.report(DANGEROUS.killSelf, render(cmd));
  }
};

/**
 * A kill target that is the gateway itself: its pid (`kill 4242`, `kill -- 4242`),
 * the shell's parent (commands run as children of the gateway, so `$PPID` is
 * the gateway), or a pid read from its lock file (`$(cat ~/.hermes/gateway.pid)`).
 */
function isGatewayPid(f: Field, pid: number | undefined): boolean {
  if (pid !== undefined && f.text === String(pid)) return true;
  if (/^-?(?:\$PPID|\$\{PPID\})$/.test(f.text)) return true;
  return f.substs.some((s) => /gateway\.pid\b/.test(s.raw) || s.invocations.some((i) => i.argv.some((a) => /gateway\.pid$/.test(a))));
}

function isKillSignal(s: string | undefined): boolean {
  return s !== undefined && /^(?:-)?(?:9|KILL|SIGKILL)$/i.test(s);
}

const pkill: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "pkill" && cmd.name !== "killall") return;
  const text = render(cmd);
  const valueShort = cmd.name === "pkill" ? "uUgGPstFn" : "sunoyO";
  const names = operands(cmd.args, {
    short: valueShort,
    long: ["--signal", "--euid", "--uid", "--group", "--parent", "--session", "--terminal", "--user", "--older-than", "--younger-than"],
  });
  if (names.some((n) => SELF.test(n))) {
    ctx.report(DANGEROUS.killSelf, text);
    return;
  }
  if (cmd.name === "pkill" && names.some((n) => MATCH_ALL.has(n))) {
    ctx.report(HARDLINE.killAll, text);
    return;
  }
  const signalAt = cmd.args.findIndex((a) => a === "-s" || a === "--signal");
  const signalValue = signalAt >= 0 ? cmd.args[signalAt + 1] : cmd.args.find((a) => a.startsWith("--signal="))?.slice(9);
  const dashSignal = cmd.args.some((a) => /^-(?:9|KILL|SIGKILL)$/i.test(a));
  if (cmd.name === "pkill" && (dashSignal || isKillSignal(signalValue))) ctx.report(DANGEROUS.forceKill, text);
  if (cmd.name === "killall") {
    if (dashSignal) ctx.report(DANGEROUS.killallKill, text);
    else if (isKillSignal(signalValue)) ctx.report(DANGEROUS.killallSignal, text);
    if (shortLetters(cmd.args).has("r") || cmd.args.includes("--regexp")) ctx.report(DANGEROUS.killallRegex, text);
  }
  if (names.length === 0 && (cmd.args.includes("-u") || cmd.args.some((a) => a.startsWith("--user")))) ctx.report(DANGEROUS.killUser, text);
};

const power: CommandRule = (cmd, ctx) => {
  const text = render(cmd);
  const first = operands(cmd.args)[0];
  if (["shutdown", "reboot", "halt", "poweroff", "killall5"].includes(cmd.name)) {
    ctx.report(cmd.name === "killall5" ? HARDLINE.killAll : HARDLINE.shutdown, text);
  } else if ((cmd.name === "init" || cmd.name === "telinit") && (first === "0" || first === "6")) {
    ctx.report(cmd.name === "init" ? HARDLINE.init : HARDLINE.telinit, text);
  } else if (cmd.name === "loginctl" && /^(?:poweroff|reboot|halt)$/.test(first ?? "")) ctx.report(HARDLINE.shutdown, text);
};

const SYSTEMCTL_VALUE = [
  "-H",
  "--host",
  "-M",
  "--machine",
  "-t",
  "--type",
  "-s",
  "--signal",
  "-p",
  "--property",
  "--root",
  "-o",
  "--output",
  "-n",
  "--lines",
  "--kill-whom",
  "--job-mode",
];
const STOP_VERBS = new Set(["stop", "restart", "disable", "mask", "kill", "try-restart", "reload-or-restart", "condrestart", "force-reload", "isolate"]);

const services: CommandRule = (cmd, ctx) => {
  const text = render(cmd);
  if (cmd.name === "systemctl") {
    const [verb, ...units] = operands(cmd.args, { long: SYSTEMCTL_VALUE, short: "HMtspon" });
    if (/^(?:poweroff|reboot|halt|kexec|soft-reboot)$/.test(verb ?? "")) ctx.report(HARDLINE.systemctlPower, text);
    else if (STOP_VERBS.has(verb ?? "")) ctx.report(units.some((u) => /hermes/i.test(u)) ? DANGEROUS.gatewayStop : DANGEROUS.serviceStop, text);
  } else if (cmd.name === "service") {
    const [unit, verb] = operands(cmd.args);
    if (STOP_VERBS.has(verb ?? "")) ctx.report(/hermes/i.test(unit ?? "") ? DANGEROUS.gatewayStop : DANGEROUS.serviceStop, text);
  } else if (cmd.name === "launchctl") {
    const [verb, ...targets] = cmd.args;
    if (!/^(?:stop|kickstart|bootout|unload|remove|disable|kill)$/.test(verb ?? "")) return;
    const named = targets.some((t) => /ai\.hermes\.gateway/i.test(t));
    // The label may be built in a loop before the verb (`launchctl bootout "gui/$uid/$label"`).
    const indirect = cmd.argFields.slice(1).some((f) => f.dynamic) && /hermes\.gateway/i.test(ctx.source);
    if (named || indirect) ctx.report(DANGEROUS.launchd, text);
  }
};

/** hermes / hermes-gateway / `python -m hermes_cli.main`: the gateway's own lifecycle commands. */
const hermes: CommandRule = (cmd, ctx) => {
  let args: readonly string[] | null = null;
  if (cmd.name === "hermes") args = cmd.args;
  else if (cmd.name === "hermes-gateway") args = ["gateway", ...cmd.args];
  else if (/^python(?:\d+(?:\.\d+)?)?$/.test(cmd.name)) {
    if (cmd.args[0] === "-m" && /^hermes_cli(?:\.main)?$/.test(cmd.args[1] ?? "")) args = cmd.args.slice(2);
    else if (/hermes_cli\/main\.py$|(?:^|\/)cli\.py$/.test(cmd.args[0] ?? "")) args = cmd.args.slice(1);
  }
  if (!args) return;
  const words = args.filter((a) => !a.startsWith("-"));
  // `hermes-gateway` alone runs the daemon, as `hermes-gateway run` does.
  if (cmd.name === "hermes-gateway" && words.length === 1 && !args.some((a) => /^-(?:h|v|-help|-version)$/.test(a))) words.push("run");
  const text = render(cmd);
  if (words[0] === "update") ctx.report(DANGEROUS.hermesUpdate, text);
  if (words[0] !== "gateway") return;
  if (words[1] === "stop" || words[1] === "restart") ctx.report(DANGEROUS.gatewayStop, text);
  if (words[1] === "run" || words[1] === "start") ctx.report(DANGEROUS.gatewayRun, text);
};

const DOCKER_VALUE = ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"];
const COMPOSE_VALUE = ["-f", "--file", "-p", "--project-name", "--env-file", "--profile", "--project-directory", "--ansi", "--progress", "--parallel"];

const docker: CommandRule = (cmd, ctx) => {
  const text = render(cmd);
  if (cmd.name === "docker-compose" || cmd.name === "podman-compose") {
    if (/^(?:restart|stop|kill|down|rm)$/.test(operands(cmd.args, { long: COMPOSE_VALUE, short: "fp" })[0] ?? "")) ctx.report(DANGEROUS.dockerCompose, text);
    return;
  }
  if (cmd.name !== "docker" && cmd.name !== "podman") return;
  const [sub, ...rest] = operands(cmd.args, { long: DOCKER_VALUE, short: "Hcl" });
  if (sub === "compose") {
    if (/^(?:restart|stop|kill|down|rm)$/.test(operands(rest, { long: COMPOSE_VALUE, short: "fp" })[0] ?? "")) ctx.report(DANGEROUS.dockerCompose, text);
    return;
  }
  const grouped = ["container", "image", "volume", "network", "system", "builder"].includes(sub ?? "");
  const verb = grouped ? rest[0] : sub;
  if (/^(?:restart|stop|kill)$/.test(verb ?? "") && (!grouped || sub === "container")) ctx.report(DANGEROUS.dockerLifecycle, text);
  else if (/^(?:rm|rmi|prune)$/.test(verb ?? "")) ctx.report(DANGEROUS.dockerRemove, text);
};

/** Commands that leave something to run later: crontab (except listing), at/batch, enabling systemd units. */
const scheduler: CommandRule = (cmd, ctx) => {
  const text = render(cmd);
  if (cmd.name === "crontab" && !(cmd.args.length > 0 && cmd.args.every((a) => a === "-l" || a === "-u" || !a.startsWith("-")) && cmd.args.includes("-l"))) {
    ctx.report(DANGEROUS.schedulerWrite, text);
  } else if ((cmd.name === "at" || cmd.name === "batch") && !cmd.args.some((a) => /^-[lcrd]$/.test(a))) ctx.report(DANGEROUS.schedulerWrite, text);
  else if (
    cmd.name === "systemctl" &&
    /^(?:enable|reenable|link|edit|preset|set-property|add-wants|add-requires)$/.test(operands(cmd.args, { long: SYSTEMCTL_VALUE, short: "HMtspon" })[0] ?? "")
  ) {
    ctx.report(DANGEROUS.schedulerWrite, text);
  }
};

export const PROC_RULES: readonly CommandRule[] = [kill, pkill, power, services, hermes, docker, scheduler];
