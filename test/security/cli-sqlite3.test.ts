// sqlite3's safe mode stops .shell, .load, ATTACH and readfile(), but not every way to a file
// outside the roots: the shell's fsdir() table reads any file, a database brought into the roots
// can use it in a view, a trigger or its selftest table, and SQL on standard input or a dot-command
// shortened to a prefix (`.t FILE` for `.trace FILE`) passed the refused patterns. The real sqlite3
// through the built bridge (v2 client over HTTP); checked on the answers and the outside directory.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientText as text } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const SECRET = `TOP-SECRET-${process.pid}`;
const { work, outside, client } = serveCliForTests('sqlite3', 'v2', 'http', {
  // A database as a clone could bring it: a view, a trigger and a selftest row reading the secret.
  prepare: (root) => {
    const file = secretFile();
    execFileSync('sqlite3', [
      join(root, 'brought.db'),
      [
        `create view v as select data from fsdir('${file}')`,
        'create table t(a)',
        `create trigger tr after insert on t begin insert into t2 select data from fsdir('${file}'); end`,
        'create table t2(data)',
        'create table selftest(tno integer primary key, op text, cmd text, ans text)',
        `insert into selftest values (1, 'run', 'select data from fsdir(''${file}'')', 'x')`,
      ].join(';'),
    ]);
  },
});
writeFileSync(secretFile(), `${SECRET}\n`);
function secretFile(): string {
  return join(outside, 'secret.txt');
}

describe('sqlite3 and the files safe mode lets it reach', () => {
  const before = snapshot(outside);
  const answers: string[] = [];
  const call = async (args: Record<string, unknown>) => {
    const result = await client().callTool('sqlite3', args);
    answers.push(JSON.stringify(result));
    return result;
  };
  const hidden = `char(47)||'${secretFile().slice(1)}'`;

  it('refuses fsdir() in every spelling, and sha3_query(), which runs SQL built at run time', async () => {
    for (const sql of [
      `select substr(data, 1, 60) from fsdir(${hidden})`,
      `select data from "FsDir"(${hidden})`,
      `select data from main.fsdir(${hidden})`,
      `select sha3_query('select data from fs' || 'dir(' || quote(${hidden}) || ')')`,
      "select * from zipfile('x.zip')",
    ]) {
      const result = await call({ database: [':memory:'], sql: [sql] });
      expect(result.isError, sql).toBe(true);
      expect(text(result), sql).toContain('sha3_query() and trusted_schema are refused anywhere in SQL');
    }
  });

  it("does not run a database's view or trigger that uses fsdir(), nor its selftest table", async () => {
    const view = await call({ database: ['brought.db'], sql: ['select * from v'] });
    expect(view.isError).toBe(true);
    expect(text(view)).toContain('unsafe use of virtual table');
    const trigger = await call({
      database: ['brought.db'],
      sql: ['insert into t values (1)', 'select count(*) from t2'],
    });
    expect(trigger.isError).toBe(true);
    for (const sql of [
      '.selftest',
      '.selft',
      '. selftest',
      '."selftest"',
      'pragma trusted_schema = on; select * from v',
      '.dbconfig trusted_schema on',
      '.dbc trusted_schema on',
    ]) {
      const result = await call({ database: ['brought.db'], sql: [sql, 'select * from v'] });
      expect(result.isError, sql).toBe(true);
      expect(text(result), sql).toMatch(/refused: sql\[0\] is .*: .* (are|is) refused/m);
    }
  });

  it('takes no SQL on standard input, where no pattern is checked', async () => {
    const result = await call({
      database: [':memory:'],
      stdin: `.t ${join(outside, 'traced')}\nselect data from fsdir(${hidden});\n`,
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Invalid arguments');
  });

  it('refuses every prefix of a refused dot-command (.t FILE is .trace FILE)', async () => {
    // Spaces after the dot, and a quoted name (with backslash escapes), are the same commands.
    for (const command of [
      '.t',
      '.tr',
      '.trac',
      '.ses s changeset',
      '.chec',
      '.io',
      '. trace',
      '.  t',
      '."trace"',
      ".'trace'",
      '. "\\164race"',
    ]) {
      const target = join(outside, `written-${command.slice(1).split(' ')[0]}`);
      const result = await call({ database: [':memory:'], sql: [`${command} ${target}`, 'select 1'] });
      expect(result.isError, command).toBe(true);
      expect(text(result), command).toMatch(/any prefix of\s+their names|a quoted dot-command name/);
    }
  });

  it('still runs plain SQL and the dot-commands that read the database', async () => {
    const result = await call({
      database: ['brought.db'],
      sql: ['.tables', '.schema t', 'select 41 + 1', '.separator ,', 'select 1, 2'],
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain('42');
    expect(text(result)).toContain('1,2');
  });

  it('left the world as it was: no secret in any answer, nothing written outside, no process', async () => {
    for (const answer of answers) expect(answer).not.toContain(SECRET);
    expect(snapshot(outside)).toEqual(before);
    await expect.poll(() => processesUnder(work), { timeout: 5_000 }).toEqual([]);
  });
});
