// Siblings of the known attacks on CLI sources, one row each, checked on the world (the outside
// directory's files, what a local HTTP server received, the config file): paths that programs take
// in forms no placeholder names (dd's `if=`, find's `[path...]`, scp's `source ... target`,
// csplit's PREFIX), curl's file references in every form and its URL globbing, /proc/self (the
// command's, not the bridge's), symbolic links made by `ln -s` or followed by `-R`/`-h`, names
// read from a list file, ed's shell escapes, and the files the bridge itself reads.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectPaths } from '../../src/index.js';
import { loadCli, outsideWorld, textOf } from '../cli/helpers.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const world = outsideWorld('bridge-siblings-');
const { cache, base, ROOT, OUT, SECRET } = world;
writeFileSync(join(ROOT, 'in.txt'), 'one\ntwo\nthree\n');

// What a local upstream received, for curl's rows.
const received: string[] = [];
const upstream = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on('end', () => {
    received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
    res.end('ok');
  });
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
  world[Symbol.dispose]();
});

const has = (program: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

interface Row {
  name: string;
  args: Record<string, unknown>;
  stdin?: string;
  /** The row passes an option that is not offered: the input schema is what must reject it. */
  notOffered?: boolean;
}

/**
 * Each row is refused or harmless: nothing of the secret comes back, nothing new lands outside.
 * A row the input schema rejects never reaches the bridge's checks nor the program, so it proves
 * nothing: it fails, unless it is marked as passing an option that must not be offered.
 */
async function attack(program: string, rows: Row[], tool = program) {
  const cli = await loadCli({ program, roots: [ROOT] }, ROOT);
  for (const row of rows) {
    const stdin = row.stdin === undefined ? {} : { stdin: row.stdin };
    const result = await cli.call(tool, { ...row.args, ...stdin });
    if (row.notOffered) expect(textOf(result), row.name).toMatch(/Invalid arguments/);
    else expect(textOf(result), row.name).not.toMatch(/Invalid arguments/);
    expect(JSON.stringify(result), row.name).not.toContain(SECRET);
    expect(readdirSync(OUT), row.name).toEqual(['secret.txt']);
  }
  return cli;
}

describe('paths in forms no placeholder names', () => {
  it.skipIf(!has('dd'))("dd's if= and of= operands", async () => {
    await using _ = await attack('dd', [
      { name: 'if=', args: { args: [`if=${join(OUT, 'secret.txt')}`] } },
      { name: 'of=', args: { args: [`of=${join(OUT, 'pwned.txt')}`] }, stdin: 'hello' },
    ]);
  });

  it.skipIf(!has('find'))("find's [path...]", async () => {
    await using cli = await loadCli({ program: 'find', roots: [ROOT] }, ROOT);
    const result = await cli.call('find', { args: [OUT] });
    expect(textOf(result)).toContain('refused');
    expect(textOf(result)).not.toContain('secret.txt');
  });

  it.skipIf(!has('scp'))("scp's source ... target, copying locally", async () => {
    await using _ = await attack('scp', [
      { name: 'both outside', args: { args: [join(OUT, 'secret.txt'), join(OUT, 'copy.txt')] } },
    ]);
  });

  it.skipIf(!has('csplit'))("csplit's --prefix", async () => {
    await using _ = await attack('csplit', [
      { name: 'prefix outside', args: { prefix: join(OUT, 'cs'), args: ['in.txt', '2'] } },
    ]);
  });

  it.skipIf(!has('cat'))('/proc/self is the command, not the bridge', async () => {
    await using cli = await attack('cat', [
      { name: '/proc/self/cwd', args: { args: ['/proc/self/cwd/../outside/secret.txt'] } },
      { name: '/proc/self/root', args: { args: [`/proc/self/root${join(OUT, 'secret.txt')}`] } },
    ]);
    const result = await cli.call('cat', { args: ['/proc/self/root/etc/hostname'] });
    expect(textOf(result)).toContain('refused');
  });
});

describe("curl's file references and URL globs", () => {
  const secretFile = join(OUT, 'secret.txt');
  it.skipIf(!has('curl'))('never sends an outside file, in any spelling of a reference', async () => {
    received.length = 0;
    await using _ = await attack('curl', [
      { name: 'quoted -F', args: { form: `f=@"${secretFile}"`, args: [origin] } },
      { name: 'name with a space', args: { form: `a b=@${secretFile}`, args: [origin] } },
      { name: ';headers=@', args: { form: `f=x;headers=@${secretFile}`, args: [origin] } },
      { name: '--data-urlencode name@', args: { 'data-urlencode': `na me@${secretFile}`, args: [origin] } },
      { name: '-F name=<file', args: { form: `f=<${secretFile}`, args: [origin] } },
      { name: '-F name=@a,b', args: { form: `f=@in.txt,${secretFile}`, args: [origin] } },
      { name: '-F name=@"a",b', args: { form: `f=@"in.txt",${secretFile}`, args: [origin] } },
      {
        name: '-F name=@a;type=…,b',
        args: { form: `f=@in.txt;type=text/plain,${secretFile}`, args: [origin] },
      },
    ]);
    expect(received.join('\n')).not.toContain(SECRET);
  });

  it.skipIf(!has('curl'))(
    'refuses, without running curl, a value too long or too full to check',
    async () => {
      // Each reference is resolved component by component: such values held the server for seconds.
      await using cli = await loadCli({ program: 'curl', roots: [ROOT] }, ROOT);
      const values = {
        '100 references in 8 KB': `f=@${`${'a/'.repeat(40)}@`.repeat(100)}`,
        'an 80 KB path': `f=@${'a/'.repeat(40_000)}in.txt`,
        '300 references': `f=@${'@a'.repeat(300)}`,
      };
      for (const [name, form] of Object.entries(values)) {
        received.length = 0;
        const result = await cli.call('curl', { form, args: [origin] });
        expect(textOf(result), name).toMatch(
          /refused: form .*(longer than the 4096 checked|more than 256 places)/,
        );
        expect(received, name).toEqual([]);
      }
    },
  );

  it.skipIf(!has('curl'))('decodes a file: URL as curl does, a malformed escape beside', async () => {
    // `y%G` is no escape: curl keeps it as written and still decodes the `%2e%2e` after it.
    await using _ = await attack('curl', [
      { name: 'make y%G', args: { 'create-dirs': true, output: 'y%G/f', args: [`file://${ROOT}/in.txt`] } },
      { name: 'read through it', args: { args: [`file://${ROOT}/y%G/%2e%2e/%2e%2e/outside/secret.txt`] } },
    ]);
    expect(existsSync(join(ROOT, 'y%G', 'f'))).toBe(true);
  });

  it.skipIf(!has('curl'))('reads a {..} in a file: URL as written (no globbing)', async () => {
    await using _ = await attack('curl', [
      { name: 'read', args: { args: [`file://${ROOT}/{..}/outside/secret.txt`] } },
      { name: 'write', args: { 'upload-file': 'in.txt', args: [`file://${ROOT}/{..}/outside/written.txt`] } },
    ]);
  });
});

describe('placeholders with digits, and links other than ln', () => {
  it.skipIf(!has('sdiff'))("sdiff's FILE1 FILE2", async () => {
    await using _ = await attack('sdiff', [
      { name: 'FILE1', args: { args: [join(OUT, 'secret.txt'), 'in.txt'] } },
    ]);
  });

  it.skipIf(!has('link'))("link's FILE1 FILE2 (a hard link to an outside file)", async () => {
    await using _ = await attack('link', [
      { name: 'FILE1', args: { args: [join(OUT, 'secret.txt'), 'hl'] } },
    ]);
    expect(existsSync(join(ROOT, 'hl'))).toBe(false);
  });

  it.skipIf(!has('cp'))('cp offers no --symbolic-link', async () => {
    await using cli = await loadCli({ program: 'cp', roots: [ROOT] }, ROOT);
    const properties = Object.keys(cli.registry.get('cp')?.definition.inputSchema.properties ?? {});
    expect(properties).toContain('recursive');
    expect(properties).not.toContain('symbolic-link');
  });
});

describe('symbolic links', () => {
  it.skipIf(!has('ln'))('ln offers no --symbolic, so no link leads out of the roots', async () => {
    mkdirSync(join(ROOT, 'a'), { recursive: true });
    await using cli = await attack('ln', [
      {
        name: 'symbolic',
        args: { symbolic: true, cwd: 'a', args: ['../../outside', '../lnk'] },
        notOffered: true,
      },
    ]);
    expect(existsSync(join(ROOT, 'lnk'))).toBe(false);
    const properties = cli.registry.get('ln')?.definition.inputSchema.properties ?? {};
    expect(Object.keys(properties)).not.toContain('symbolic');
  });

  it.skipIf(!has('zstd'))('zstd does not offer -f, whose help says it operates on links', async () => {
    // With -r and -f, zstd compressed the file a link in the root led to, outside the roots.
    await using cli = await loadCli({ program: 'zstd', roots: [ROOT] }, ROOT);
    const properties = Object.keys(cli.registry.get('zstd')?.definition.inputSchema.properties ?? {});
    expect(properties).toContain('r');
    expect(properties).not.toContain('force');
    expect(properties).not.toContain('f');
  });

  it.skipIf(!has('gzip'))('gzip does not offer -f, whose help says it compresses links', async () => {
    // With -r and -f, gzip compressed the file a link in the root led to, and replaced the files
    // of a linked directory outside the roots by their .gz.
    await using cli = await loadCli({ program: 'gzip', roots: [ROOT] }, ROOT);
    const properties = Object.keys(cli.registry.get('gzip')?.definition.inputSchema.properties ?? {});
    expect(properties).toContain('recursive');
    expect(properties).not.toContain('force');
  });

  it.skipIf(!has('lz4'))('lz4 does not offer -r, which follows the links below a directory', async () => {
    // With -r, lz4 compressed the file a link in the root led to, outside the roots.
    await using cli = await loadCli({ program: 'lz4', roots: [ROOT] }, ROOT);
    const properties = Object.keys(cli.registry.get('lz4')?.definition.inputSchema.properties ?? {});
    expect(properties).toContain('d');
    expect(properties).not.toContain('r');
  });

  it.skipIf(!has('grep'))('grep offers -r, not -R (--dereference-recursive)', async () => {
    await using cli = await loadCli({ program: 'grep', roots: [ROOT] }, ROOT);
    const properties = Object.keys(cli.registry.get('grep')?.definition.inputSchema.properties ?? {});
    expect(properties).toContain('recursive');
    expect(properties).not.toContain('dereference-recursive');
  });
});

describe('names read from a list', () => {
  it.skipIf(!has('tar'))(
    "tar's --files-from is not offered, so stdin cannot name outside files",
    async () => {
      await using _ = await attack('tar', [
        {
          name: '-T -',
          args: { create: true, file: '-', 'files-from': '-' },
          stdin: `${join(OUT, 'secret.txt')}\n`,
          notOffered: true,
        },
      ]);
    },
  );
});

describe('programs whose scripts run shell commands', () => {
  it.skipIf(!has('ed'))(
    'ed runs restricted: no ! command, no file outside the working directory',
    async () => {
      await using _ = await attack('ed', [
        { name: '! in a script', args: {}, stdin: `!touch ${join(OUT, 'ed-pwned')}\nq\n` },
        { name: '! as the file', args: { args: [`!touch ${join(OUT, 'ed-pwned2')}`] }, stdin: 'q\n' },
        { name: 'w outside', args: { args: ['in.txt'] }, stdin: `w ${join(OUT, 'ed-written')}\nq\n` },
      ]);
    },
  );
});

describe('the files the bridge itself reads', () => {
  it.skipIf(!has('cp'))('its cache directory is out of reach, whatever the roots', async () => {
    const cached = join(cache.path, 'planted.bin');
    await using cli = await loadCli({ program: 'cp', roots: [base.path] }, ROOT);
    const result = await cli.call('cp', { args: ['in.txt', cached] });
    expect(textOf(result)).toContain('which the bridge reads to decide what it serves and runs');
    expect(existsSync(cached)).toBe(false);
  });

  it.skipIf(!has('cp'))('a command writing into its directory does not get its config applied', async () => {
    // `cp stage/bridge.config.yaml .` names the config's directory, not the config: the write
    // happens, but the hot reload it triggers refuses a file a command changed.
    const dir = join(base.path, 'reloaded');
    mkdirSync(join(dir, 'stage'), { recursive: true });
    const config = join(dir, 'bridge.config.yaml');
    writeFileSync(config, 'sources:\n  - kind: cli\n    options:\n      program: cp\n      roots: [.]\n');
    writeFileSync(
      join(dir, 'stage', 'bridge.config.yaml'),
      'sources:\n  - kind: cli\n    options: { program: cp, roots: [.] }\n  - kind: cli\n    options: { program: date }\n',
    );
    await using client = await connect('v2', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', config],
      env: { BRIDGE_CACHE_DIR: cache.path },
      cwd: dir,
    });
    await client.callTool('cp', { args: ['stage/bridge.config.yaml', '.'] });
    expect(readFileSync(config, 'utf8')).toContain('program: date');
    // The watcher's reload comes within a second; it refuses, and says why.
    for (let waited = 0; waited < 5_000 && !client.stderr().includes('changed by a command'); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(client.stderr()).toContain('was changed by a command run for a tool call');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['cp']);
  });

  it.skipIf(!has('cp') || !has('bwrap'))(
    'under --sandbox they stay read-only inside a writable root',
    async () => {
      const dir = join(base.path, 'sandboxed');
      mkdirSync(join(dir, 'stage'), { recursive: true });
      const config = join(dir, 'bridge.config.yaml');
      writeFileSync(config, 'original\n');
      writeFileSync(join(dir, 'stage', 'bridge.config.yaml'), 'planted\n');
      protectPaths([config]);
      await using cli = await loadCli({ program: 'cp', roots: [dir], sandbox: true }, dir);
      const result = await cli.call('cp', { args: ['stage/bridge.config.yaml', '.'] });
      expect(result.isError).toBe(true);
      expect(readFileSync(config, 'utf8')).toBe('original\n');
    },
  );

  it.skipIf(!has('cp'))('cache files a command writes by copying a directory are removed', async () => {
    const own = join(base.path, 'own-cache');
    const stage = join(ROOT, 'stage', 'own-cache', 'code');
    mkdirSync(stage, { recursive: true });
    writeFileSync(join(stage, 'planted.bin'), 'planted');
    mkdirSync(own);
    process.env.BRIDGE_CACHE_DIR = own;
    try {
      await using cli = await loadCli({ program: 'cp', roots: [base.path] }, base.path);
      await cli.call('cp', { recursive: true, args: ['root/stage/own-cache', '.'] });
      expect(existsSync(join(own, 'code', 'planted.bin'))).toBe(false);
    } finally {
      process.env.BRIDGE_CACHE_DIR = cache.path;
    }
  });

  it.skipIf(!has('tee'))('its config file is out of reach of a CLI source whose roots hold it', async () => {
    const dir = join(base.path, 'configured');
    mkdirSync(dir);
    const config = join(dir, 'bridge.config.yaml');
    const text = 'sources:\n  - kind: cli\n    options:\n      program: tee\n      roots: [.]\n';
    writeFileSync(config, text);
    await using client = await connect('v2', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', config, '--no-watch'],
      env: { BRIDGE_CACHE_DIR: cache.path },
      cwd: dir,
    });
    const result = await client.callTool('tee', {
      args: ['bridge.config.yaml'],
      stdin: 'sources:\n  - kind: cli\n    options: { program: awk }\n',
    });
    expect(result.isError).toBe(true);
    expect(readFileSync(config, 'utf8')).toBe(text);
  });
});
