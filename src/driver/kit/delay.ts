/** A wait that ends early, with the abort reason, when the run is cancelled. */

/** Resolves after `ms`; rejects with `signal.reason` (or an "aborted" error) once `signal` aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const reason = (): unknown => signal.reason ?? new Error("aborted");
    if (signal.aborted) return reject(reason());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(reason());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
