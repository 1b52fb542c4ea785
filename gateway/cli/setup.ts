/**
 * `hermes-gateway setup`: the first-run wizard. Provider, then platforms;
 * every value is checked live before anything is written; then config.yaml
 * and .env are edited in place and doctor's report is shown.
 */
import type { Readable } from "node:stream";
import { ENV_OVERRIDES } from "../../config/index.js";
import { parseCommandArgs } from "./command-args.js";
import { type CliIo, ensureHome, loadOrReport, resolveHome } from "./context.js";
import { doctorCommand } from "./doctor.js";
import { EXIT } from "./exit-codes.js";
import { SETUP_OPTIONS, SETUP_USAGE, type SetupFlags, type StepContext } from "./setup-args.js";
import { SetupFiles } from "./setup-files.js";
import { platformSteps } from "./setup-platforms.js";
import { Answers, linePrompter, SetupCancelled } from "./setup-prompt.js";
import { providerStep } from "./setup-provider.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where questions are asked: the terminal, unless a caller gives other streams. */
export interface Terminal {
  readonly input: Readable & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream;
}

export async function setupCommand(
  argv: readonly string[],
  env: Env,
  io: CliIo,
  terminal: Terminal = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const args = parseCommandArgs<SetupFlags>(argv, SETUP_OPTIONS, SETUP_USAGE, io);
  if (typeof args === "number") return args;
  if (args.positionals.length > 0) {
    io.err(`unexpected: ${args.positionals.join(" ")}\n\n${SETUP_USAGE}`);
    return EXIT.USAGE;
  }
  const flags = args.values;
  const home = resolveHome(env);
  await ensureHome(home);
  const current = await loadOrReport(home, flags.config, env, io);
  if (!current) {
    io.err("setup edits the existing configuration and keeps the rest of it: fix the problems above first.");
    return EXIT.CONFIG;
  }
  const files = await SetupFiles.load(home, flags.config);
  const prompter = flags["non-interactive"] ? null : linePrompter(terminal.input, terminal.output);
  const ctx: StepContext = { flags, files, current, answers: new Answers(prompter), io, env };
  if (prompter) io.out(`hermes-gateway setup for HERMES_HOME ${home}. Enter keeps what is in [brackets]; nothing is written until the end.\n`);
  try {
    if (!(await providerStep(ctx)) || !(await platformSteps(ctx))) {
      io.err(`nothing was written${flags["non-interactive"] ? " (--keep-unverified saves values whose check failed)" : ""}`);
      return EXIT.FAILURE;
    }
  } catch (err) {
    if (!(err instanceof SetupCancelled)) throw err;
    io.err(err.message);
    return EXIT.FAILURE;
  } finally {
    prompter?.close();
  }
  await report(files, env, io);
  io.out("");
  return doctorCommand({ command: ["doctor"], values: flags.config ? { config: flags.config } : {} }, env, io);
}

async function report(files: SetupFiles, env: Env, io: CliIo): Promise<void> {
  const written = await files.save();
  const { yaml, env: envKeys } = files.changes();
  if (written.length === 0) io.out("\nnothing to change: config.yaml and .env stay as they were");
  if (yaml.length > 0) io.out(`\n✓ wrote ${files.configPath}: ${yaml.join(", ")}`);
  if (envKeys.length > 0) io.out(`✓ wrote ${files.envPath} (mode 0600): ${envKeys.join(", ")}`);
  for (const line of shadowed(yaml, envKeys, files, env)) io.err(`! ${line}`);
}

/** What this environment sets over the values just written: the daemon started from it would not see them. */
function shadowed(yaml: readonly string[], envKeys: readonly string[], files: SetupFiles, env: Env): string[] {
  const out: string[] = [];
  for (const key of envKeys) {
    if (env[key] !== undefined && env[key] !== files.getEnv(key))
      out.push(`${key} is set in this environment, which wins over .env: unset it, or the daemon keeps the old value`);
  }
  for (const o of ENV_OVERRIDES) {
    if (env[o.env] && yaml.includes(o.path.join("."))) out.push(`${o.env} is set in this environment and overrides ${o.path.join(".")} in config.yaml`);
  }
  return out;
}
