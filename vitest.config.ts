import { configDefaults, defineConfig } from "vitest/config";

/**
 * Suites that test what the machine's kernel and V8 do rather than this project's logic: Linux cpu cgroups and
 * autogroups, niceness and SCHED_IDLE (chrt, taskset), running as root, V8's garbage collector. They skip what the
 * machine does not offer, and run in the `platform` project; everything else is `unit`. `npm test` (and so CI)
 * runs both, `npm run test:unit` only the first.
 */
const PLATFORM = [
  "bench/test/daemon-cgroup.test.ts",
  "bench/test/driver-session.test.ts",
  "bench/test/machine-probe.test.ts",
  "bench/test/priority-probe.test.ts",
  "test/mcp/autogroup.test.ts",
  "test/mcp/process-group.test.ts",
  "test/mcp/sched-idle.test.ts",
  "test/mcp/scavenge.test.ts",
  "test/mcp/threads.test.ts",
  "test/foundation/linked-signal-gc.test.ts",
  "test/ops/connect-timeout.test.ts",
];

/**
 * Files that drive discord.js in the test process: its REST client runs on its own undici 6, and when undici 7 (the
 * providers' and web tools' client) was loaded first in the same process, its file uploads fail ("action is not a
 * function", discord.js issues 10946 and 11525). They run isolated, each file in a fresh process.
 */
const DISCORD_IN_PROCESS = ["test/discord/**/*.test.ts", "test/delivery/one-retry-layer.test.ts"];

export default defineConfig({
  test: {
    pool: "forks",
    // Files at once. Vitest's default on a 2-core machine is 1 (cores - 1), but an end-to-end file spends most of
    // its time waiting on a child process or a fake's timer, not computing (bench/results/2026-11-27-test-suite.md).
    maxWorkers: 4,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
    // Child processes run dist/: built here when the sources are newer (npm test builds first, in its pretest).
    globalSetup: ["test/global-setup.ts"],
    projects: [
      // `unit` files share a worker's module registry (isolate: false): each file loads the modules once per worker,
      // not once per file. A file there restores what it changes in the process (environment, listeners, fake
      // timers) and leaves no child process behind; the platform suites (GC, scheduling) each get a fresh process.
      {
        extends: true,
        test: {
          name: "unit",
          isolate: false,
          include: ["test/**/*.test.ts", "bench/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...PLATFORM, ...DISCORD_IN_PROCESS],
        },
      },
      { extends: true, test: { name: "discord", include: DISCORD_IN_PROCESS } },
      { extends: true, test: { name: "platform", include: PLATFORM } },
    ],
  },
});
