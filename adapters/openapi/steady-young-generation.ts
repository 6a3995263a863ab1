import { setFlagsFromString } from 'node:v8';

// Peak memory of a big spec's load. V8 grows its young generation (where every new object starts)
// by doubling, up to 2 x 16 MiB, when a scavenge finds most of it still alive: which is what parsing
// a 13 MB spec and converting it look like, since all of it stays alive until the conversion ends.
// Those 32 MiB of semi-spaces came on top of the parsed spec itself: GitHub's load peaked at ~148
// MiB, where `--max-semi-space-size=4` gave ~124 MiB at no visible cost in time. That flag only
// works where Node starts, but the growth factor is read at each scavenge, so it can be held at 1
// (no growth) from inside, for the length of the load, and given back its default after.

const DEFAULT_GROWTH = 2;
let holds = 0;

/** Whoever started Node chose the young generation's size themselves: theirs is left alone. */
const chosenAtStart = () =>
  /semi[-_]space/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);

/**
 * Runs `load` (reading, parsing and converting a spec) and, from the moment it calls `steady()`
 * (its reading done, its parsing about to begin), keeps the young generation at the size it has;
 * lets it grow again as V8 would once every load has ended. Loads running at once (a config with
 * several specs) share one window. Held from the start of the load instead, it froze a young
 * generation that the server's own modules, evaluated while the spec is read (see serve.ts), had
 * not grown yet: twice the scavenges (GitHub's first start: 41 against 23).
 */
export async function withSteadyYoungGeneration<T>(load: (steady: () => void) => Promise<T>): Promise<T> {
  if (chosenAtStart()) return load(() => {});
  let held = false;
  const steady = () => {
    if (held) return;
    held = true;
    if (holds++ === 0) setFlagsFromString('--semi-space-growth-factor=1');
  };
  try {
    return await load(steady);
  } finally {
    if (held && --holds === 0) setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH}`);
  }
}
