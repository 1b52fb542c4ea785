/**
 * Runs `hermes-gateway chat` for real: a child process running the build, with a
 * temp HERMES_HOME whose config points model.base_url at the fake LLM
 * server, and a temp working directory for the agent's files. stdin is a
 * pipe the test writes to (or closes at once), so interactive mode is driven
 * exactly like a user piping answers in.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChildOutput } from "../fakes/child-output.js";
import { builtCli } from "../fakes/daemon-process.js";
import type { FakeLlmServer } from "../fakes/llm-server.js";

export interface ChatEnv {
  readonly home: string;
  /** The agent's working directory. */
  readonly work: string;
  readonly configPath: string;
  cleanup(): Promise<void>;
}

/** A HERMES_HOME with `config.yaml` (the model section points at `llm`, plus `extraYaml`) and a working directory. */
export async function chatEnv(llm: FakeLlmServer | null, extraYaml = ""): Promise<ChatEnv> {
  const home = await mkdtemp(join(tmpdir(), "hgw-chat-home-"));
  const work = await mkdtemp(join(tmpdir(), "hgw-chat-work-"));
  const configPath = join(home, "config.yaml");
  const model = llm ? `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  model: fake-model\n  request_timeout_s: 20\n` : "";
  await writeFile(configPath, `# test config\n${model}${extraYaml}`);
  return {
    home,
    work,
    configPath,
    cleanup: async () => {
      await rm(home, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    },
  };
}

export interface ChatProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Writes to the child's stdin. */
  write(text: string): void;
  endInput(): void;
  /** Resolves with the exit code. */
  readonly exited: Promise<number>;
  /** Waits until stderr (or stdout) contains `text`. */
  waitFor(text: string, where?: "stdout" | "stderr", timeoutMs?: number): Promise<void>;
}

/** Starts the CLI; `stdin: "closed"` gives it an empty, already-ended pipe (not a TTY). */
export function startChat(env: ChatEnv, args: readonly string[], opts: { stdin?: "closed" | "open"; extraEnv?: Record<string, string> } = {}): ChatProcess {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    cwd: env.work,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: env.home, HERMES_HOME: env.home, ...opts.extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output = new ChildOutput(child);
  if (opts.stdin !== "open") child.stdin?.end();
  const exited = once(child, "exit").then(([code]) => (code ?? -1) as number);
  return {
    child,
    stdout: () => output.stdout(),
    stderr: () => output.stderr(),
    write: (text) => void child.stdin?.write(text),
    endInput: () => void child.stdin?.end(),
    exited,
    waitFor: (text, where = "stderr", timeoutMs = 20_000) =>
      output
        .until(
          () => ((where === "stderr" ? output.stderr() : output.stdout()).includes(text) ? true : undefined),
          `"${text}" never appeared on ${where}`,
          timeoutMs,
        )
        .then(() => undefined),
  };
}

/** Runs the CLI to completion. */
export async function runChat(
  env: ChatEnv,
  args: readonly string[],
  extraEnv?: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = startChat(env, args, extraEnv ? { extraEnv } : {});
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** The tool messages a recorded chat-completions request carried. */
export function toolResults(body: { messages: { role: string; content: unknown; tool_call_id?: string }[] }): string[] {
  return body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}
