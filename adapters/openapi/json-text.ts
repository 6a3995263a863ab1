import { isAscii } from 'node:buffer';

// A JSON spec's bytes as text for `JSON.parse`, decoded faster than UTF-8 for the same parsed
// value. GitHub's 13 MB spec has 140 bytes outside ASCII (curly quotes, dashes): enough to make
// the whole text a two-byte string, decoded at ~2 ns a byte (~27 ms in a fresh process), where
// copying it as Latin-1 costs ~7. Outside strings JSON allows only ASCII, so each run of other
// bytes is inside a string, where its characters may as well be written as `\uXXXX` escapes: the
// text stays one byte per character, and `JSON.parse` gives back exactly the characters a UTF-8
// decode would (an invalid sequence as U+FFFD, as there: a run ends at an ASCII byte either way).

/**
 * `bytes` (a UTF-8 JSON document) as a one-byte string that parses to the same value. Where
 * `bytes` is not valid JSON the escapes shift the positions errors name: report those from
 * `bytes.toString('utf8')`.
 */
export function jsonText(bytes: Buffer): string {
  if (isAscii(bytes)) return bytes.toString('latin1');
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (const run of runsOf(bytes)) {
    parts.push(bytes.subarray(copied, run.start), run.escaped);
    copied = run.end;
  }
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts).toString('latin1');
}

/**
 * `jsonText`, with the escapes written within `bytes` and the `spare` bytes that follow them in
 * their memory (which the caller owns) instead of into a copy: copying GitHub's 13 MB into fresh
 * memory cost ~9 ms, about as much as making the string. `original()` gives back the bytes as
 * they were read (for error positions, see `jsonText`). Undefined when the escapes need more room.
 */
export function jsonTextInPlace(
  bytes: Buffer,
  spare: number,
): { text: string; original: () => Buffer } | undefined {
  if (isAscii(bytes)) return { text: bytes.toString('latin1'), original: () => bytes };
  const runs = runsOf(bytes);
  let growth = 0;
  for (const run of runs) growth += run.escaped.length - (run.end - run.start);
  if (growth > spare) return undefined;
  const originals = runs.map((run) => Buffer.from(bytes.subarray(run.start, run.end)));
  const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length + growth);
  // From the end: each stretch of ASCII moves right by the growth of the runs before it, so it
  // never overwrites what is still to move.
  let from = bytes.length;
  let to = out.length;
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as Run;
    to -= from - run.end;
    out.copyWithin(to, run.end, from);
    to -= run.escaped.length;
    out.set(run.escaped, to);
    from = run.start;
  }
  const text = out.toString('latin1');
  const original = () => {
    const parts: Uint8Array[] = [];
    let at = 0;
    let copied = 0;
    runs.forEach((run, index) => {
      const shift = at - copied;
      parts.push(out.subarray(copied + shift, run.start + shift), originals[index] as Buffer);
      at = run.start + shift + run.escaped.length;
      copied = run.end;
    });
    parts.push(out.subarray(at));
    return Buffer.concat(parts);
  };
  return { text, original };
}

interface Run {
  start: number;
  end: number;
  /** The run's characters as `\uXXXX` escapes. */
  escaped: Buffer;
}

function runsOf(bytes: Buffer): Run[] {
  const runs: Run[] = [];
  forEachRun(bytes, (start, end) => {
    runs.push({ start, end, escaped: escaped(bytes.toString('utf8', start, end)) });
  });
  return runs;
}

// Blocks, then lines of a block, are skipped when `isAscii` (memory speed) says so: only the few
// lines with other bytes are scanned here, byte by byte.
const BLOCK = 65_536;
const LINE = 1_024;

/** Calls `run(start, end)` for each run of bytes outside ASCII, in order. */
function forEachRun(bytes: Buffer, run: (start: number, end: number) => void): void {
  let copied = 0;
  for (let block = 0; block < bytes.length; block += BLOCK) {
    const blockEnd = Math.min(bytes.length, block + BLOCK);
    if (blockEnd <= copied || isAscii(bytes.subarray(block, blockEnd))) continue;
    for (let line = block; line < blockEnd; line += LINE) {
      const lineEnd = Math.min(blockEnd, line + LINE);
      if (lineEnd <= copied || isAscii(bytes.subarray(line, lineEnd))) continue;
      for (let at = Math.max(line, copied); at < lineEnd; at++) {
        if ((bytes[at] as number) < 0x80) continue;
        let end = at + 1;
        while (end < bytes.length && (bytes[end] as number) >= 0x80) end++;
        run(at, end);
        copied = end;
        at = end - 1;
      }
    }
  }
}

// Every UTF-16 unit of `text` as a JSON escape (a character past U+FFFF as its surrogate pair).
function escaped(text: string): Buffer {
  let out = '';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return Buffer.from(out, 'latin1');
}
