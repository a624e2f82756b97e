import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Vitest's default is one worker less than the cores: one worker on CI's two cores, so the files
 * ran one after another while most of them mostly wait — on real CLIs answering the scripted model
 * server, on child processes, on stores. Measured on two cores: the real-CLI lane took 293 s with
 * one worker, 142 s with two and 108 s with three, for the same CPU time (82 s); the session,
 * thread and chaos files 316 s with one and 141 s with two (79 s of CPU). No file's own time grew.
 * Machines with more cores keep the default. VITEST_MAX_WORKERS still overrides it.
 */
const WORKERS = Math.max(3, availableParallelism() - 1);

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
