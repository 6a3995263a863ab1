import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonText, jsonTextInPlace } from '../../adapters/openapi/json-text.js';
import { loadDocument } from '../../adapters/openapi/load-document.js';

// `jsonText` must parse to exactly what a UTF-8 decode parses to, whatever the bytes: GitHub's
// real spec, every length of UTF-8 sequence, invalid sequences, and runs on the edges of the blocks
// and lines it skips with `isAscii` (64 KiB, 1 KiB).

const utf8Parse = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'));
const fastParse = (bytes: Buffer) => JSON.parse(jsonText(bytes));

/**
 * `bytes` escaped in place within a copy followed by `spare` bytes and a guard after those, which
 * must come out untouched: the text parsed, and the bytes `original()` gives back.
 */
function inPlace(bytes: Buffer, spare = 4096) {
  const guard = Buffer.alloc(64, 0x5a);
  const memory = Buffer.concat([bytes, Buffer.alloc(spare, 0x20), guard]);
  const decoded = jsonTextInPlace(memory.subarray(0, bytes.length), spare);
  expect(memory.subarray(bytes.length + spare).equals(guard)).toBe(true);
  return decoded && { value: JSON.parse(decoded.text), original: decoded.original() };
}

/** `{"k": "<before><raw bytes><after>"}` as bytes, the raw bytes placed at `offset` of the file. */
function documentWith(raw: number[], offset: number): Buffer {
  const head = Buffer.from('{"k": "');
  const pad = Buffer.alloc(Math.max(0, offset - head.length), 0x61);
  return Buffer.concat([head, pad, Buffer.from(raw), Buffer.from('x", "n": 1}')]);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-json-text-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('jsonText', () => {
  it("parses GitHub's spec (140 bytes outside ASCII) to the same value as its UTF-8 text", () => {
    const spec = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
    const bytes = readFileSync(spec);
    expect(bytes.some((byte) => byte > 0x7f)).toBe(true);
    const expected = utf8Parse(bytes);
    expect(fastParse(bytes)).toEqual(expected);
    const escaped = inPlace(bytes);
    expect(escaped?.value).toEqual(expected);
    expect(escaped?.original.equals(bytes)).toBe(true);
  });

  it.each([
    ['ASCII only', []],
    ['a two-byte character (é)', [0xc3, 0xa9]],
    ['a three-byte character (’)', [0xe2, 0x80, 0x99]],
    ['a four-byte character (an emoji, a surrogate pair)', [0xf0, 0x9f, 0x98, 0x80]],
    ['several characters in one run', [0xc3, 0xa9, 0xe2, 0x80, 0x94, 0xf0, 0x9f, 0x8c, 0x8d]],
    ['a lone continuation byte', [0x80]],
    ['a sequence cut short', [0xe2, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a surrogate encoded in UTF-8', [0xed, 0xa0, 0x80]],
    ['a byte that is never UTF-8', [0xff, 0xfe]],
  ])('%s gives the characters a UTF-8 decode gives, wherever it falls', (_name, raw) => {
    for (const offset of [7, 100, 1023, 1024, 1025, 65_534, 65_535, 65_536, 65_537, 131_071]) {
      const bytes = documentWith(raw, offset);
      expect(fastParse(bytes), `at ${offset}`).toEqual(utf8Parse(bytes));
      const escaped = inPlace(bytes);
      expect(escaped?.value, `in place at ${offset}`).toEqual(utf8Parse(bytes));
      expect(escaped?.original.equals(bytes), `given back at ${offset}`).toBe(true);
    }
  });

  it('handles a run that ends the document and many runs in one line', () => {
    const many = Buffer.from(`{"k": "${'é a ’ b 😀 '.repeat(300)}"}`);
    expect(fastParse(many)).toEqual(utf8Parse(many));
    expect(inPlace(many, 20_000)?.value).toEqual(utf8Parse(many));
    expect(inPlace(many, 20_000)?.original.equals(many)).toBe(true);
    const last = Buffer.concat([Buffer.from('{"k": "x"}'), Buffer.from([0xc3])]);
    expect(() => fastParse(last)).toThrow();
    expect(() => utf8Parse(last)).toThrow();
  });
});

describe('jsonTextInPlace', () => {
  it('needs room for every escape: with less it declines and leaves the bytes as they were', () => {
    const bytes = documentWith([0xc3, 0xa9, 0xe2, 0x80, 0x99], 100);
    // é grows by 4 bytes, ’ by 3.
    expect(inPlace(bytes, 7)?.value).toEqual(utf8Parse(bytes));
    const memory = Buffer.concat([bytes, Buffer.alloc(6)]);
    expect(jsonTextInPlace(memory.subarray(0, bytes.length), 6)).toBeUndefined();
    expect(memory.subarray(0, bytes.length).equals(bytes)).toBe(true);
  });

  it('decodes ASCII without moving a byte', () => {
    const bytes = Buffer.from('{"k": [1, "two"]}');
    expect(inPlace(bytes, 0)?.value).toEqual({ k: [1, 'two'] });
  });
});

describe('loading a local JSON spec through jsonText', () => {
  const minimal = (title: string) =>
    JSON.stringify({ openapi: '3.0.3', info: { title, version: '1' }, paths: {} });

  it('reads a spec with a byte-order mark and characters outside ASCII', async () => {
    const file = join(dir, 'bom.json');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`  \n${minimal('Café — “API” 😀')}`)]),
    );
    const loaded = await loadDocument(file, dir);
    expect((loaded.document.info as { title: string }).title).toBe('Café — “API” 😀');
  });

  it('reads a spec from a pipe, which states no size (bridge openapi <(curl …))', async () => {
    const fifo = join(dir, 'spec.pipe');
    execFileSync('mkfifo', [fifo]);
    // Larger than the first buffer, with characters outside ASCII on both sides of its end.
    const title = `${'é’'.repeat(20_000)} — ${'😀'.repeat(20_000)}`;
    const writer = spawn('sh', ['-c', 'cat > "$1"', 'sh', fifo], { stdio: ['pipe', 'ignore', 'ignore'] });
    writer.stdin.end(minimal(title));
    const loaded = await loadDocument(fifo, dir);
    expect((loaded.document.info as { title: string }).title).toBe(title);
  });

  it('names a binary file as such, without quoting its bytes', async () => {
    // 4 KiB of pseudo-random bytes, on which the YAML parser stops (its errors quote the line).
    const bytes = Buffer.alloc(4096);
    let state = 4;
    for (let index = 0; index < bytes.length; index++) {
      state = (state * 1103515245 + 12345) >>> 0;
      bytes[index] = state >>> 24;
    }
    const file = join(dir, 'archive.yaml');
    writeFileSync(file, bytes);
    const error = await loadDocument(file, dir).catch((failure: Error) => failure);
    expect(error).toBeInstanceOf(Error);
    const { message } = error as Error;
    expect(message).toMatch(
      /archive\.yaml is neither valid JSON nor valid YAML: it holds bytes that are not text/,
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach the terminal.
    expect(message).not.toMatch(/[\u0000-\u0008\u001b\ufffd]/);
  });

  it('reports invalid JSON at the position of the text as written, not of its escapes', async () => {
    const file = join(dir, 'broken.json');
    const text = `{"info": {"title": "é’é’é’"}, "paths": {,}}`;
    writeFileSync(file, text);
    let expected = '';
    try {
      JSON.parse(text);
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).not.toBe('');
    await expect(loadDocument(file, dir)).rejects.toThrow(`${file} is not valid JSON: ${expected}`);
  });
});
