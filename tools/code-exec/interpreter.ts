/**
 * Which interpreter runs execute_code scripts: Python 3 when the configured
 * one runs (its real executable is resolved once, so a version-manager shim
 * is not needed at run time), else the Node.js running the gateway.
 */
import { execFile } from "node:child_process";
import type { Config } from "../../config/schema.js";

export interface Interpreter {
  readonly language: "python" | "node";
  /** Absolute path of the executable. */
  readonly command: string;
  /** e.g. "3.11" or "20.20.2". */
  readonly version: string;
}

const PROBE = "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])";
const PROBE_TIMEOUT_MS = 10_000;

/** The configured Python 3 (3.8 or later), or null when it does not run. */
export function probePython(command: string, env: NodeJS.ProcessEnv): Promise<Interpreter | null> {
  return new Promise((resolve) => {
    execFile(command, ["-c", PROBE], { timeout: PROBE_TIMEOUT_MS, env, windowsHide: true }, (err, stdout) => {
      const [executable, version] = String(stdout).trim().split("\n");
      const [major, minor] = (version ?? "").split(".").map(Number);
      if (err || !executable || major !== 3 || (minor ?? 0) < 8) return resolve(null);
      resolve({ language: "python", command: executable, version: version as string });
    });
  });
}

export const nodeInterpreter = (): Interpreter => ({ language: "node", command: process.execPath, version: process.versions.node });

/** Resolves `code_execution.language`; null when the language asked for has no interpreter. */
export async function resolveInterpreter(cfg: Config["code_execution"], env: NodeJS.ProcessEnv): Promise<Interpreter | null> {
  if (process.platform === "win32") return null; // Unix domain sockets are the RPC channel
  if (cfg.language === "node") return nodeInterpreter();
  const python = await probePython(cfg.python, env);
  if (python || cfg.language === "python") return python;
  return nodeInterpreter();
}
