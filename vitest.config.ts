import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Vitest's default is one worker less than the cores: one worker on CI's two cores, so the files
 * ran one after another while most of them mostly wait — on real CLIs answering the scripted model
 * server, on child processes, on stores. Measured on two cores, one worker against three, for the
 * same CPU time: test/real-cli 104 s → 48 s (77 s of CPU), test/session, test/thread and test/chaos
 * 102 s → 48 s (74 s), test/drivers 386 s → 173 s (252 s). Files run largest first, so the long
 * real-CLI files start early. Two workers on two cores: three made real-CLI and multi-process tests
 * flaky under the contention (SQLite lock waits, provider timings) and two still about halve the
 * one-worker time. Machines with more cores keep the default. VITEST_MAX_WORKERS overrides it.
 */
const WORKERS = Number(process.env.VITEST_MAX_WORKERS) || Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: WORKERS,
    // Heap-growth tests measure after a full collection.
    execArgv: ["--expose-gc"],
  },
});
