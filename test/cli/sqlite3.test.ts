import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

// sqlite3 takes dot-commands in its SQL operand, and `.shell` runs one through /bin/sh: its overlay
// always runs it in safe mode. The real sqlite3, over a v1 client on HTTP.
const work = tempDir('bridge-sqlite-');
const outside = tempDir('bridge-sqlite-outside-');
const cache = tempDir('bridge-sqlite-cache-');
let client: TestClient;

beforeAll(async () => {
  client = await connect('v1', 'http', {
    script: BRIDGE_BIN,
    args: ['cli', 'sqlite3', '--root', work.path, '--no-watch'],
    env: { BRIDGE_CACHE_DIR: cache.path },
    cwd: work.path,
  });
}, 60_000);
afterAll(async () => {
  await client?.[Symbol.asyncDispose]();
  for (const dir of [work, outside, cache]) dir[Symbol.dispose]();
});

const text = (result: { content: Array<Record<string, unknown>> }) =>
  result.content.map((block) => String(block.text ?? '')).join('\n');

describe('sqlite3', () => {
  it('runs SQL against a database file in the root', async () => {
    const made = await client.callTool('sqlite3', {
      database: ['shop.db'],
      sql: ['create table items(name text, price int)', "insert into items values ('pen', 2), ('ink', 5)"],
    });
    expect(made.isError, text(made)).toBeFalsy();
    const read = await client.callTool('sqlite3', {
      json: true,
      database: ['shop.db'],
      sql: ['select name, price from items order by price'],
    });
    expect(JSON.parse(text(read).match(/\[.*\]/s)?.[0] ?? '[]')).toEqual([
      { name: 'pen', price: 2 },
      { name: 'ink', price: 5 },
    ]);
  });

  it('runs no shell command, loads no library and reaches no file outside the roots', async () => {
    const marker = join(work.path, 'ran');
    const tries = [
      `.shell touch ${marker}`,
      `.system touch ${marker}`,
      '.load ./evil',
      "select load_extension('./evil')",
      `.output ${join(outside.path, 'out.txt')}`,
      `attach '${join(outside.path, 'other.db')}' as other`,
    ];
    for (const sql of tries) {
      const result = await client.callTool('sqlite3', { database: [':memory:'], sql: [sql] });
      expect(result.isError, sql).toBe(true);
      expect(text(result), sql).toContain('safe mode');
    }
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(outside.path, 'out.txt'))).toBe(false);
    expect(existsSync(join(outside.path, 'other.db'))).toBe(false);
    // The database operand is a path checked against the roots.
    const away = await client.callTool('sqlite3', {
      database: [join(outside.path, 'x.db')],
      sql: ['select 1'],
    });
    expect(away.isError).toBe(true);
    expect(existsSync(join(outside.path, 'x.db'))).toBe(false);
  });
});
