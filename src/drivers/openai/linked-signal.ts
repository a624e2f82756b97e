/**
 * A controller that also aborts when a parent signal does (with the parent's reason). Cheaper
 * than `AbortSignal.any` (tens of µs per call on Node 20), which a run and each of its model
 * requests would otherwise pay; `unlink()` removes the listener once the child's work is over.
 */
export class LinkedAbort {
  readonly controller = new AbortController();
  readonly signal: AbortSignal = this.controller.signal;
  readonly #parent: AbortSignal;
  readonly #onAbort = (): void => this.controller.abort(this.#parent.reason);

  constructor(parent: AbortSignal) {
    this.#parent = parent;
    if (parent.aborted) this.#onAbort();
    else parent.addEventListener("abort", this.#onAbort, { once: true });
  }

  unlink(): void {
    this.#parent.removeEventListener("abort", this.#onAbort);
  }
}
