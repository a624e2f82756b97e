/**
 * The materializer (DESIGN §9): the one place per-run inputs become files a driver may use.
 *
 * 1. Validate every reference before opening anything (limits, kinds, media types, modes,
 *    counts, declared sizes).
 * 2. Create one run-owned directory (`mkdtemp` under the OS temp directory, mode 0700), its name
 *    marking the owner process so that a later start can sweep it if this host is killed.
 * 3. For each input in order: open its source once, stream it into `<dir>/<index>-<name>`
 *    (mode 0400) while counting and hashing, stop as soon as a limit is crossed, check that a
 *    file source did not change, compare with the declared size and digest.
 * 4. Hand back only resolved metadata, and `dispose()` to remove the directory.
 *
 * On any failure or abort the source and the partial file are closed and the directory removed
 * before the promise rejects: with an `InputError` on failure, with the signal's reason on abort.
 * An opener's signal aborts when the run's signal does and when the materialization fails.
 */
import { constants } from "node:fs";
import { chmod, mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { InputLimits } from "../driver/vocabulary.js";
import type { Descriptor, ResolvedInput } from "../driver/types.js";
import { copyFromFile, copyFromStream, Meter } from "./copy.js";
import { diagnosticCause, InputError, inputFailure, reportDiagnostic, type InputDiagnosticHandler } from "./errors.js";
import { resolveInputLimits } from "./limits.js";
import { planInputs, type PlannedInput } from "./plan.js";
import type { InputRef } from "./refs.js";
import { registerInputDirectory, unregisterInputDirectory } from "./registry.js";
import { Aborted, openSource } from "./sources.js";
import { ownedDirectoryPrefix, sweepStaleInputDirectoriesOnce } from "./stale.js";
import { materializeTestHooks } from "./test-hooks.js";

/** What {@link materializeInputs} needs from the run. */
export interface MaterializeContext {
  /** The driver's id, for errors. */
  driverId: string;
  /** The driver's static input capabilities (`Descriptor.inputs`). */
  capabilities: Descriptor["inputs"];
  /** The host's `inputLimits`; defaults apply to missing or zero fields. */
  limits?: InputLimits;
  /** The run's signal: aborting it stops the materialization and removes everything. */
  signal: AbortSignal;
  /** Receives the detailed cause (which may hold paths and secrets) of a failure. Never throws into the run. */
  onDiagnostic?: InputDiagnosticHandler;
}

/** The run's materialized inputs. Keep them until the driver and all its event sources stopped, then dispose. */
export interface MaterializedInputs {
  /** Frozen resolved inputs, in the order of the references. */
  readonly inputs: ResolvedInput[];
  /** Removes the run-owned directory. Idempotent; never rejects (a directory it cannot remove is left to the exit safety net). */
  dispose(): Promise<void>;
}

export { materializeTestHooks } from "./test-hooks.js";

const NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/** Validates, copies and hashes a run's inputs into one run-owned directory. */
export async function materializeInputs(refs: readonly InputRef[], context: MaterializeContext): Promise<MaterializedInputs> {
  const { signal, driverId, onDiagnostic } = context;
  if (signal.aborted) throw signal.reason;
  const limits = resolveInputLimits(context.limits);
  const plan = planInputs(refs, driverId, context.capabilities, limits);
  if (plan.length === 0) return { inputs: [], dispose: async () => undefined };

  void sweepStaleInputDirectoriesOnce();
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let dir: string | undefined;
  try {
    try {
      dir = await mkdtemp(ownedDirectoryPrefix());
      registerInputDirectory(dir);
      await chmod(dir, 0o700);
    } catch (error) {
      throw inputFailure("input_materialization_failed", "the run's input directory could not be created", { driver: driverId }, error);
    }
    const inputs: ResolvedInput[] = [];
    let totalUsed = 0;
    for (const item of plan) {
      if (controller.signal.aborted) throw new Aborted();
      const resolved = await materializeOne(item, dir, totalUsed, limits.maxTotalBytes, controller.signal);
      totalUsed += resolved.size;
      inputs.push(resolved);
    }
    const owned = dir;
    let disposing: Promise<void> | undefined;
    const dispose = (): Promise<void> =>
      (disposing ??= removeDirectory(owned, onDiagnostic).then((removed) => {
        if (!removed) disposing = undefined;
      }));
    return { inputs, dispose };
  } catch (error) {
    controller.abort();
    if (dir !== undefined) await removeDirectory(dir, onDiagnostic);
    if (signal.aborted) throw signal.reason;
    if (InputError.isInputError(error)) {
      reportDiagnostic(onDiagnostic, error.index, error.code, diagnosticCause(error));
      throw error;
    }
    // Unforeseen: its text may hold a path, so only the hook sees it.
    reportDiagnostic(onDiagnostic, undefined, "input_materialization_failed", error);
    throw new InputError("input_materialization_failed", "the inputs could not be materialized", { driver: driverId });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function materializeOne(item: PlannedInput, dir: string, totalUsed: number, maxTotal: number, signal: AbortSignal): Promise<ResolvedInput> {
  const { index, spec, details } = item;
  const meter = new Meter(
    { maxBytes: item.maxBytes, totalUsed, maxTotal, mediaType: spec.mediaType, declaredSize: spec.size, declaredSha256: spec.sha256 },
    details,
  );
  const localPath = join(dir, `${index}-${spec.name}`);
  const source = await openSource(spec, details, signal);
  let out: FileHandle | undefined;
  try {
    if (materializeTestHooks.afterOpen) await materializeTestHooks.afterOpen(index);
    if (signal.aborted) throw new Aborted();
    try {
      out = await open(localPath, CREATE_FLAGS, 0o400);
    } catch (error) {
      throw inputFailure("input_materialization_failed", "the input could not be written to the run's directory", details, error);
    }
    if (source.type === "file") {
      await copyFromFile(source, out, meter, signal);
      if (materializeTestHooks.beforeVerify) await materializeTestHooks.beforeVerify(index);
      await source.verify(meter.bytes);
    } else {
      await copyFromStream(source, out, meter, signal);
    }
    const { size, sha256 } = meter.finish();
    await out.chmod(0o400);
    return Object.freeze({ id: `input_${index}`, kind: spec.kind, name: spec.name, mediaType: spec.mediaType, localPath, size, sha256, deliveryMode: item.mode });
  } finally {
    await out?.close().catch(() => undefined);
    await source.close().catch(() => undefined);
  }
}

/** Removes a run directory; false (reported to the hook) when it could not be removed. */
async function removeDirectory(dir: string, onDiagnostic: InputDiagnosticHandler | undefined): Promise<boolean> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    unregisterInputDirectory(dir);
    return true;
  } catch (error) {
    reportDiagnostic(onDiagnostic, undefined, "input_materialization_failed", error);
    return false;
  }
}
