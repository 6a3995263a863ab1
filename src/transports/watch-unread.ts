import type { ServerResponse } from 'node:http';

/** How long a client may keep more than the unread bound waiting before it counts as gone. */
export const UNREAD_GRACE_MS = 2_000;

/** The most a stream holds unread at any moment, as a multiple of the unread bound. */
export const UNREAD_CEILING_FACTOR = 4;

/**
 * Judges an event stream's client by what it leaves unread. A burst of events is written faster
 * than any socket takes it (a batch's answers arrive together), so passing `maxUnread` alone is no
 * sign of a client that stopped reading: it is one when the stream stays past the bound for
 * `graceMs`, or when the unread bytes pass `UNREAD_CEILING_FACTOR` times the bound at all (what a
 * client that does not read can make the bridge hold). Then the response is destroyed and
 * `cut()` says so. `allows()` is asked before each write: false once the stream is cut.
 * `pending()`: the stream is past the bound, its client not yet judged (it may still be cut).
 */
export function watchUnread(
  res: ServerResponse,
  maxUnread: number,
  graceMs = UNREAD_GRACE_MS,
): { allows(): boolean; cut(): boolean; pending(): boolean; stop(): void } {
  let cut = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    res.off('drain', stop);
  };
  const cutOff = () => {
    stop();
    cut = true;
    res.destroy();
  };
  return {
    allows() {
      if (cut || res.destroyed) return false;
      const unread = res.writableLength;
      // Measured before the write: one large answer may go out whole.
      if (unread <= maxUnread) return true;
      if (unread > maxUnread * UNREAD_CEILING_FACTOR) {
        cutOff();
        return false;
      }
      if (!timer) {
        // 'drain' comes when the client has read everything written: the burst went through.
        res.once('drain', stop);
        timer = setTimeout(() => {
          if (res.writableLength > maxUnread) cutOff();
          else stop();
        }, graceMs);
        timer.unref();
      }
      return true;
    },
    cut: () => cut,
    pending: () => timer !== undefined && !cut && !res.destroyed,
    stop,
  };
}
