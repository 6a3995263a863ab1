/**
 * A 2026-07-28 `tools/call`'s place among its caller's calls in flight over HTTP
 * (`--max-calls-per-caller`), bound to the call's request. Hanging up cancels a 2026-07-28 call,
 * but a tool that ignores the abort runs on: its place is given back when the tool has ended
 * (`startCall`'s end), or, for a request answered without its call starting (refused, unknown
 * tool), once it is answered (`freeUnstarted`).
 */
interface Slot {
  release: () => void;
  started: boolean;
  freed: boolean;
}

const slots = new WeakMap<Request, Slot>();

/** Binds `release` to `request`; the returned function frees it unless the call has started. */
export function bindCallSlot(request: Request, release: () => void): () => void {
  const slot: Slot = { release, started: false, freed: false };
  slots.set(request, slot);
  return () => {
    if (!slot.started) free(slot);
  };
}

/** The same slot for a copy of the request (the one the SDK's handler is given). */
export function shareCallSlot(from: Request, to: Request): void {
  const slot = slots.get(from);
  if (slot) slots.set(to, slot);
}

/**
 * Marks the call of `request` started: its slot is then freed by the returned function, once the
 * tool has ended, whatever became of the request. Undefined for a request with no slot bound.
 */
export function startCall(request: Request | undefined): (() => void) | undefined {
  const slot = request ? slots.get(request) : undefined;
  if (!slot || slot.started) return undefined;
  slot.started = true;
  return () => free(slot);
}

function free(slot: Slot): void {
  if (slot.freed) return;
  slot.freed = true;
  slot.release();
}
