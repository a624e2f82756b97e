/**
 * The clock events are stamped with (`at`) and run activity is timed by: `Date.now()`, read at
 * most once per synchronous stretch of work. A chunk of provider output is framed, mapped and
 * published in one such stretch, so its events share one reading instead of paying one each: on
 * some virtual machines a clock read costs 0.2–0.3 µs, as much as the rest of an event's path.
 * The reading expires at the next microtask checkpoint, so it is never older than the stretch.
 */
let reading: number | undefined;
const RESOLVED: Promise<void> = Promise.resolve();
const expire = (): void => {
  reading = undefined;
};

/** `Date.now()`, shared by every call until the current synchronous stretch of work ends. */
export function eventClock(): number {
  if (reading === undefined) {
    reading = Date.now();
    // A promise reaction, not queueMicrotask: fake-timer libraries may replace the latter.
    void RESOLVED.then(expire);
  }
  return reading;
}
