/**
 * Polling that stops while the page is hidden: no request from a background tab, and a fresh
 * answer as soon as the tab is shown again rather than at the next tick.
 */

/** The part of `document` the poll reads (a test passes its own). */
export interface VisibilitySource {
  readonly visibilityState: DocumentVisibilityState;
  addEventListener(type: "visibilitychange", listener: () => void): void;
  removeEventListener(type: "visibilitychange", listener: () => void): void;
}

/** Calls `refresh` every `everyMs` while `doc` is visible, and at once when it becomes visible; returns the stop. */
export function pollWhileVisible(refresh: () => void, everyMs: number, doc: VisibilitySource = document): () => void {
  let timer: ReturnType<typeof setInterval> | undefined;
  const start = (): void => {
    timer ??= setInterval(refresh, everyMs);
  };
  const pause = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const onVisibility = (): void => {
    if (doc.visibilityState !== "visible") return pause();
    refresh();
    start();
  };
  doc.addEventListener("visibilitychange", onVisibility);
  if (doc.visibilityState === "visible") start();
  return () => {
    pause();
    doc.removeEventListener("visibilitychange", onVisibility);
  };
}
