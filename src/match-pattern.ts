import { Worker } from 'node:worker_threads';

// A spec's `pattern` is a regular expression someone else wrote, and JavaScript runs it by
// backtracking: `^(\w+\s?)*$` takes 26 s for a 30-character argument that does not match, twice as
// long for each character more, and nothing interrupts a match once it runs. Every argument check
// runs on the event loop all callers share, so one such argument stalled every call and every
// source. Here each pattern the validator tests is either one that cannot backtrack far (anchored,
// with at most one unbounded repetition and no repeated group: the patterns most specs carry), run
// as usual, or one that might, run in a worker thread the event loop waits for a bounded time. A
// match that takes longer is stopped (the worker is ended and a new one started when needed), and
// a pattern once caught taking that long is not run again on values longer than a few characters.
// Short values go there too unless the pattern's shape bounds their cost (see `shortIsSafe`).

/** How long one validation may wait for the worker's matches, all of them together. */
export const MATCH_BUDGET_MS = 250;
/** Values at most this long may be matched here (see `shortIsSafe`), and are still matched by a pattern once caught being slow. */
const SHORT = 8;
/** A counted repetition allowing more than this many is treated as unbounded. */
const MAX_BOUNDED_COUNT = 16;
/**
 * Past this length a pattern with a choice and an unbounded repetition is left to the worker: what
 * follows the repetition is retried at each place it gives back (`^\w*` then 2,000 `\w`: 0.65 s on
 * 200,000 characters).
 */
const LONG_PATTERN = 256;

/** A match that could not finish within the budget: the value is refused, naming the pattern. */
export class SlowPatternError extends Error {
  constructor(readonly pattern: string) {
    super(`could not be checked against the pattern "${pattern.slice(0, 100)}" within ${MATCH_BUDGET_MS} ms`);
    this.name = 'SlowPatternError';
  }
}

/** What Ajv needs of a compiled pattern (its `code.regExp` option). */
export interface PatternTester {
  test(text: string): boolean;
  /** Ajv keys the patterns it compiled by this text. */
  toString(): string;
}

/**
 * The regular expression Ajv compiles for a schema's `pattern` (also `patternProperties` and
 * `propertyNames`): the native one when `pattern` cannot backtrack far, else a tester that matches
 * in the worker within the validation's budget and throws `SlowPatternError` past it.
 */
export const compilePattern = Object.assign(compiledPattern, {
  // Ajv's name for the engine in standalone code, which the bridge never generates.
  code: 'compilePattern',
});

function compiledPattern(pattern: string, flags: string): PatternTester {
  const native = new RegExp(pattern, flags);
  const shape = shapeOf(pattern);
  if (backtracksLittle(shape, pattern)) return native;
  // A short value is matched here only when the pattern's shape bounds its cost (see `shortIsSafe`):
  // a trip to the worker costs ~10-20 µs, which thousands of short values would spend at once.
  const shortHere = shortIsSafe(shape);
  return {
    toString: () => `guarded ${native}`,
    test(text) {
      if (text.length === 0 || (shortHere && text.length <= SHORT)) return native.test(text);
      if (text.length > SHORT && slowPatterns.has(pattern)) throw new SlowPatternError(pattern);
      return matchInWorker(pattern, flags, text);
    },
  };
}

/**
 * Runs `check` (one validation) with a fresh budget for the worker's matches: however many values
 * and patterns it tests, the event loop waits at most `MATCH_BUDGET_MS` for them.
 */
export function withMatchBudget<T>(check: () => T): T {
  const outer = deadline;
  deadline = performance.now() + MATCH_BUDGET_MS;
  try {
    return check();
  } finally {
    deadline = outer;
  }
}

let deadline: number | undefined;
const slowPatterns = new Set<string>();

/**
 * Whether `pattern` can only backtrack a bounded amount per position: no backreference, lookaround
 * or repeated group, and at most one choice in all (a repetition of varying length, `?`, or an
 * alternation), which, when it is an unbounded repetition, needs the pattern anchored at its start
 * (with no alternative outside a group). Choices multiply each other (`(a|a)` twenty-four times
 * took 4.7 s on 30 characters, six `\d{0,16}` in a row 0.6 s on 90), so two are already left to
 * the worker. A choice beside two repetitions past `MAX_BOUNDED_COUNT`, fixed ones included
 * (`^\w*\w{60000}$` retries the 60,000 at each place the `*` gives back: 8.5 s), or in a
 * pattern longer than `LONG_PATTERN` with one of them (its counts added to its length: forty
 * `\w{16}` after `^\w*` took 4.9 s on 1 MB), is left to the worker too. Conservative: a pattern
 * it cannot vouch for is only matched in the worker, never refused.
 */
export function cannotBacktrackFar(pattern: string): boolean {
  return backtracksLittle(shapeOf(pattern), pattern);
}

function backtracksLittle(shape: PatternShape, pattern: string): boolean {
  if (shape.nested || shape.choices > 1) return false;
  if (shape.choices === 1 && (shape.large > 1 || (shape.large === 1 && shape.weight > LONG_PATTERN))) {
    return false;
  }
  return shape.large === 0 || (pattern.startsWith('^') && !shape.topLevelAlternative);
}

/**
 * Whether a guarded pattern may still match a value of at most `SHORT` characters natively: only
 * without a repeated group, backreference or lookaround, and with at most three choices (eight
 * characters shared among them make at most a few hundred ways to try). Twenty alternatives under
 * a `*` took 20^7 steps on `aaaaaaa!` (9.6 s); a hundred `a?` would choose 8 of 100.
 */
function shortIsSafe(shape: PatternShape): boolean {
  return !shape.nested && shape.choices <= 3;
}

/** What `cannotBacktrackFar` and `shortIsSafe` read of a pattern. */
interface PatternShape {
  /** A repeated group, a backreference or a lookaround: backtracking without a bound. */
  nested: boolean;
  /** Repetitions of varying length, `?`, and alternations. */
  choices: number;
  /** Repetitions allowing more than `MAX_BOUNDED_COUNT`, fixed counts included. */
  large: number;
  /** An alternative outside every group (`^a+|b+$`: the anchor binds only the first). */
  topLevelAlternative: boolean;
  /** The pattern's length plus its counts: what a choice may make the engine retry. */
  weight: number;
}

function shapeOf(pattern: string): PatternShape {
  const shape: PatternShape = { nested: false, choices: 0, large: 0, topLevelAlternative: false, weight: 0 };
  let depth = 0;
  // What the character before was: a group's end (a repetition of it is refused), or a repetition
  // (a `?` after it only makes it lazy).
  let before: 'atom' | 'group' | 'repetition' = 'atom';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    const count = char === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at)) : null;
    if (char === '*' || char === '+' || char === '?' || count) {
      if (char === '?' && before === 'repetition') {
        before = 'atom';
        continue;
      }
      if (before === 'group') shape.nested = true; // a repeated group: (a+)+, (\w+\s?)*, (a|a)*
      const least = count ? Number(count[1]) : char === '+' ? 1 : 0;
      const most = count
        ? count[2] === undefined
          ? least
          : count[3]
            ? Number(count[3])
            : Infinity
        : char === '?'
          ? 1
          : Infinity;
      if (most !== least) shape.choices++;
      if (most > MAX_BOUNDED_COUNT) shape.large++;
      if (count) {
        shape.weight += Math.min(Number.isFinite(most) ? most : least, 1_000_000);
        at += count[0].length - 1;
      }
      before = 'repetition';
      continue;
    }
    before = 'atom';
    if (char === '\\') {
      if (/[1-9k]/.test(pattern[at + 1] ?? '')) shape.nested = true; // a backreference
      at++;
    } else if (char === '[') {
      // A class is one atom: skip to its end (escapes inside included).
      for (at++; at < pattern.length && pattern[at] !== ']'; at++) if (pattern[at] === '\\') at++;
    } else if (char === '(') {
      if (pattern[at + 1] === '?' && /^(=|!|<=|<!)/.test(pattern.slice(at + 2, at + 4))) shape.nested = true;
      depth++;
    } else if (char === ')') {
      depth--;
      before = 'group';
    } else if (char === '|') {
      shape.choices++;
      if (depth === 0) shape.topLevelAlternative = true;
    }
  }
  shape.weight += pattern.length;
  return shape;
}

// The worker: one thread that matches what it is sent and says so through shared memory, so that
// the event loop can wait for it synchronously (Ajv's checks are synchronous) with a time limit.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData);
const compiled = new Map();
parentPort.on('message', ({ pattern, flags, text }) => {
  let result = 3;
  try {
    let regExp = compiled.get(pattern + '/' + flags);
    if (!regExp) {
      if (compiled.size > 1000) compiled.clear();
      regExp = new RegExp(pattern, flags);
      compiled.set(pattern + '/' + flags, regExp);
    }
    result = regExp.test(text) ? 2 : 1;
  } catch {
    // Answered as failed (3); the thread goes on serving.
  } finally {
    Atomics.store(state, 0, result);
    Atomics.notify(state, 0);
  }
});
Atomics.store(state, 1, 1);
Atomics.notify(state, 1);
`;

/** State slots: [0] the answer (0 waiting, 1 no match, 2 match, 3 failed), [1] the worker is ready. */
let worker: { thread: Worker; state: Int32Array } | undefined;

/** How long the event loop waits for a new worker to start: its start is not the pattern's fault. */
const START_TIMEOUT_MS = 5_000;

function matchInWorker(pattern: string, flags: string, text: string): boolean {
  const current = worker ?? startWorker();
  const left = (deadline ?? performance.now() + MATCH_BUDGET_MS) - performance.now();
  if (left <= 0) throw new SlowPatternError(pattern);
  Atomics.store(current.state, 0, 0);
  current.thread.postMessage({ pattern, flags, text });
  if (Atomics.wait(current.state, 0, 0, left) === 'timed-out') {
    // Stopped mid-match (V8 interrupts a running expression). Not run again on long values only
    // when this match had a fair share of the budget to itself: many quick matches that used the
    // budget up say nothing of the last one's pattern.
    if (left >= MATCH_BUDGET_MS / 2) slowPatterns.add(pattern);
    stopWorker();
    throw new SlowPatternError(pattern);
  }
  const answer = Atomics.load(current.state, 0);
  if (answer === 3) throw new Error(`the pattern "${pattern.slice(0, 100)}" failed to run`);
  return answer === 2;
}

function startWorker(): { thread: Worker; state: Int32Array } {
  const state = new Int32Array(new SharedArrayBuffer(8));
  const thread = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: state.buffer,
    // Matching needs little memory; a value of a few MiB is copied in.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  thread.unref();
  // A worker that fails (out of memory) is replaced at the next match.
  thread.once('exit', () => {
    if (worker?.thread === thread) worker = undefined;
  });
  thread.on('error', () => {});
  if (Atomics.wait(state, 1, 0, START_TIMEOUT_MS) === 'timed-out') {
    void thread.terminate();
    throw new Error('the pattern-matching worker did not start');
  }
  worker = { thread, state };
  return worker;
}

function stopWorker(): void {
  const stopping = worker?.thread;
  worker = undefined;
  void stopping?.terminate();
}
