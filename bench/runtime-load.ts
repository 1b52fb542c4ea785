/**
 * Load generator for runtime.bench.ts. It runs in its own process (so neither
 * the client's CPU nor its memory is counted as the gateway's), started with
 * `node -e` from this self-contained function's source — which works the same
 * under tsx and compiled. Scenario in argv as JSON; latencies out on stdout as JSON.
 */
export interface LoadScenario {
  readonly url: string;
  readonly key: string;
  readonly tag: string;
  readonly sessions: number;
  readonly perSession: number;
  /** Mean pause between one session's messages (ms); 0 = send the next as soon as the reply arrives. */
  readonly pauseMs: number;
}

/** The load process's whole program: no imports, plain JavaScript once compiled. */
function loadProgram(): void {
  const s = JSON.parse(process.argv[1] ?? "{}") as LoadScenario;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const ask = async (session: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", "x-hermes-session": session },
      body: JSON.stringify({ model: "hermes-agent", messages: [{ role: "user", content: "ping" }] }),
    });
    await res.json();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return performance.now() - t0;
  };
  const lat: number[] = [];
  const one = async (i: number) => {
    // Spread the sessions' starts over one pause so the load is smooth, not in waves.
    if (s.pauseMs) await sleep(Math.random() * s.pauseMs);
    for (let n = 0; n < s.perSession; n++) {
      lat.push(await ask(`${s.tag}-${i}`));
      if (s.pauseMs) await sleep(s.pauseMs * (0.5 + Math.random()));
    }
  };
  Promise.all(Array.from({ length: s.sessions }, (_, i) => one(i))).then(
    () => process.stdout.write(JSON.stringify({ lat })),
    (err: unknown) => process.stdout.write(JSON.stringify({ error: String(err) })),
  );
}

/** tsx (esbuild keepNames) wraps inner functions in __name(); the eval'd script needs a stand-in. */
export const LOAD_PROGRAM_SOURCE = `var __name = (f) => f;\n(${loadProgram.toString()})()`;
