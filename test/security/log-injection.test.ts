// Text from a spec reaches the log and the terminal: an operation's path in the warning that skips
// it, a summary in `bridge inspect`'s table, a spec value in the error that stops a start. A
// newline there must not start a line that passes for the bridge's own ("bridge info: …"), nor an
// escape sequence reach the terminal. Real bridge processes, asserting on the lines they write.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';
import { connectWithHeaders } from './helpers.js';

const ESC = '\u001b';
const CSI = '\u009b'; // the one-character C1 form of ESC [
const RLO = '\u202e'; // right-to-left override: what follows is shown reversed
// Format characters a terminal does not show at all: a zero-width space, a tag character.
const UNSEEN = ['\u200b', '\u{e0041}'];
const FORGED_PATH = `/x\nbridge info: ${ESC}[31mFAKE LINE: all credentials verified${ESC}[0m${CSI}2J${RLO}txt${UNSEEN[0]}.exe${UNSEEN[1]}`;
const FORGED_SUMMARY = `Fine\r\nbridge info: ${ESC}[31mforged summary${ESC}[0m`;
// Every line a bridge writes to stderr is one of its own log lines.
const LOG_LINE = /^bridge (debug|info|warning|error): /;

let dir: string;
let upstream: Upstream;
let spec: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-log-injection-'));
  upstream = await startUpstream();
  spec = join(dir, 'forged.json');
  const ok = { '200': { description: 'ok' } };
  const paths = {
    '/ok': { get: { operationId: 'ok', summary: FORGED_SUMMARY, responses: ok } },
    // An unresolvable parameter: the operation is skipped with a warning naming its path.
    [FORGED_PATH]: { get: { operationId: 'bad', parameters: [{ $ref: '#/nowhere' }], responses: ok } },
  };
  writeFileSync(spec, JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths }));
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('control characters from a spec are shown escaped', () => {
  it('in the log of a serving bridge: one line per message, none forged, no escape sequence', async () => {
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--no-cache', '--tools', 'all', '--base-url', upstream.url],
    });
    await using client = await connectWithHeaders('v1', bridge.url);
    await client.callTool('ok');
    expect(upstream.requests.map((request) => request.url)).toContain('/v1/ok');

    const stderr = bridge.stderr();
    expect(stderr).not.toContain(ESC);
    expect(stderr).not.toContain(CSI);
    expect(stderr).not.toContain(RLO);
    for (const unseen of UNSEEN) expect(stderr).not.toContain(unseen);
    expect(stderr).not.toContain('\r');
    for (const line of lines(stderr)) expect(line).toMatch(LOG_LINE);
    const skipped = lines(stderr).filter((line) => line.includes('FAKE LINE'));
    expect(skipped).toEqual([
      'bridge warning: skipped operation GET /x\\nbridge info: \\x1b[31mFAKE LINE: all credentials verified' +
        '\\x1b[0m\\x9b2J\\u202etxt\\u200b.exe\\u{e0041} (bad) cannot be served: $ref #/nowhere points nowhere',
    ]);
  });

  it('in bridge inspect: the table, its --json and the load warnings', () => {
    const table = spawnSync(process.execPath, [BRIDGE_BIN, 'inspect', 'openapi', spec, '--no-cache'], {
      encoding: 'utf8',
    });
    for (const stream of [table.stdout, table.stderr]) {
      expect(stream).not.toContain(ESC);
      expect(stream).not.toContain(CSI);
      expect(stream).not.toContain(RLO);
      expect(stream).not.toContain('\r');
    }
    for (const line of lines(table.stderr)) expect(line).toMatch(LOG_LINE);
    const row = lines(table.stdout).find((line) => line.startsWith('ok '));
    expect(row).toContain('Fine\\r\\nbridge info: \\x1b[31mforged sum…');
    expect(lines(table.stdout).filter((line) => /bridge info|forged|FAKE/.test(line))).toEqual([row]);

    // The JSON is the same document (a client of it reads the summary back as it is in the spec).
    const json = spawnSync(
      process.execPath,
      [BRIDGE_BIN, 'inspect', 'openapi', spec, '--no-cache', '--json'],
      {
        encoding: 'utf8',
      },
    );
    expect(json.stdout).not.toContain(ESC);
    const report = JSON.parse(json.stdout) as { tools: Array<{ title?: string }>; warnings: string[] };
    expect(report.tools[0]?.title).toBe(FORGED_SUMMARY);
    expect(report.warnings.join('\n')).toContain(FORGED_PATH);
  });

  it('in the error that stops a start: no line of it passes for a log line', () => {
    const broken = join(dir, 'broken.json');
    const version = `9.9\nbridge info: ${ESC}[31mforged version${CSI}2J`;
    writeFileSync(
      broken,
      JSON.stringify({ openapi: version, info: { title: 't', version: '1' }, paths: {} }),
    );
    const run = spawnSync(process.execPath, [BRIDGE_BIN, 'openapi', broken, '--no-cache'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).not.toContain(ESC);
    expect(run.stderr).not.toContain(CSI);
    expect(lines(run.stderr)[0]).toMatch(/^bridge openapi: .*OpenAPI version 9\.9$/);
    expect(lines(run.stderr).slice(1)).toEqual([
      '  bridge info: \\x1b[31mforged version\\x9b2J is not supported (2.0, 3.0 and 3.1 are).',
    ]);
  });
});
