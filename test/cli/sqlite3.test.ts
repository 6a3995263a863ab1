import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientText as text } from './helpers.js';

// sqlite3 takes dot-commands in its SQL operand, and `.shell` runs one through /bin/sh: its overlay
// always runs it in safe mode. The real sqlite3, over a v1 client on HTTP.
const { work, outside, client } = serveCliForTests('sqlite3', 'v1', 'http');

describe('sqlite3', () => {
  // Discovery's probes ran in the directory the bridge started in, and `sqlite3 __complete ''`
  // (the probe for a Cobra program) created a database file named `__complete` there.
  it('is discovered without a file written where the bridge started', async () => {
    expect((await client().listTools()).tools.some((tool) => tool.name === 'sqlite3')).toBe(true);
    expect(readdirSync(work)).toEqual([]);
  });

  it('runs SQL against a database file in the root', async () => {
    const made = await client().callTool('sqlite3', {
      database: ['shop.db'],
      sql: ['create table items(name text, price int)', "insert into items values ('pen', 2), ('ink', 5)"],
    });
    expect(made.isError, text(made)).toBeFalsy();
    const read = await client().callTool('sqlite3', {
      json: true,
      database: ['shop.db'],
      sql: ['select name, price from items order by price'],
    });
    expect(JSON.parse(text(read).match(/\[.*\]/s)?.[0] ?? '[]')).toEqual([
      { name: 'pen', price: 2 },
      { name: 'ink', price: 5 },
    ]);
  });

  it('takes one database, and offers no database the operand check refuses', async () => {
    const tools = (await client().listTools()).tools;
    const sqlite = tools.find((tool) => tool.name === 'sqlite3') as unknown as {
      inputSchema: {
        properties: Record<string, { minItems?: number; maxItems?: number; description?: string }>;
      };
    };
    const database = sqlite.inputSchema.properties.database;
    expect(database).toMatchObject({ minItems: 1, maxItems: 1 });
    expect(database?.description).toContain('the SQL goes in sql');
    // An operand never starts with "-": the description does not offer one.
    expect(database?.description).not.toContain('"-"');
    const dashed = await client().callTool('sqlite3', { database: ['-'], sql: ['select 1'] });
    expect(text(dashed)).toContain('starts with "-"');
    // A second item would run as SQL on the first: refused by the schema, and nothing ran.
    const two = await client().callTool('sqlite3', { database: ['two.db', 'create table t(x int)'] });
    expect(two.isError).toBe(true);
    expect(text(two)).toContain('/database: must have at most 1 item');
    expect(existsSync(join(work, 'two.db'))).toBe(false);
  });

  it('runs no shell command, loads no library and reaches no file outside the roots', async () => {
    const marker = join(work, 'ran');
    const tries = [
      `.shell touch ${marker}`,
      `.system touch ${marker}`,
      '.load ./evil',
      "select load_extension('./evil')",
      `.output ${join(outside, 'out.txt')}`,
      `attach '${join(outside, 'other.db')}' as other`,
    ];
    for (const sql of tries) {
      const result = await client().callTool('sqlite3', { database: [':memory:'], sql: [sql] });
      expect(result.isError, sql).toBe(true);
      expect(text(result), sql).toContain('safe mode');
    }
    // Safe mode's escape: a nonce given on the command line lets `.nonce` unlock the next command.
    const tools = (await client().listTools()).tools;
    const sqlite = tools.find((tool) => tool.name === 'sqlite3') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(sqlite.inputSchema.properties.nonce).toBeUndefined();
    const escaped = await client().callTool('sqlite3', {
      nonce: 'abc',
      database: [':memory:'],
      sql: ['.nonce abc', `.shell touch ${marker}`],
    });
    expect(escaped.isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
    // And the init file's dot-commands, which run before safe mode applies.
    writeFileSync(join(work, 'init.sql'), `.shell touch ${marker}\n`);
    expect(sqlite.inputSchema.properties.init).toBeUndefined();
    const initialized = await client().callTool('sqlite3', {
      init: 'init.sql',
      database: [':memory:'],
      sql: ['select 1'],
    });
    expect(initialized.isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
    expect(existsSync(join(outside, 'other.db'))).toBe(false);
    // The database operand is a path checked against the roots.
    const away = await client().callTool('sqlite3', {
      database: [join(outside, 'x.db')],
      sql: ['select 1'],
    });
    expect(away.isError).toBe(true);
    expect(existsSync(join(outside, 'x.db'))).toBe(false);
  });
});
