import { existsSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, type LoadedCli, loadCli, makeRepo, tempDir, textOf } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;

describe('git tools on a real repository', () => {
  const work = tempDir();
  const outside = tempDir('bridge-cli-outside-');
  let repo: string;
  let cli: LoadedCli;

  beforeAll(async () => {
    repo = makeRepo(join(work.path), 3000);
    cli = await loadCli({ program: 'git', pageSize: 20_000 }, repo);
  });
  afterAll(async () => {
    await cli?.[Symbol.asyncDispose]();
    work[Symbol.dispose]();
    outside[Symbol.dispose]();
    cache[Symbol.dispose]();
  });

  it('names tools so that they map back to the exact subcommand', async () => {
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['git_cherry_pick', 'git_status', 'git_log', 'git_rev_parse']),
    );
    expect(cli.registry.get('git_cherry_pick')?.definition.title).toBe('git cherry-pick');
    const result = await cli.call('git_cherry_pick', { abort: true });
    // The real `git cherry-pick --abort` ran: it complains that no cherry-pick is in progress.
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/no cherry-pick or revert in progress/);
  });

  it('returns exit code 0 as a result with structured content', async () => {
    const result = await cli.call('git_rev_parse', { args: ['HEAD'] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      exitCode: 0,
      signal: null,
      truncated: false,
      stderr: '',
    });
    expect(String(result.structuredContent?.stdout)).toBe(`${git(repo, 'rev-parse', 'HEAD')}`);
    expect(typeof result.structuredContent?.durationMs).toBe('number');
  });

  it('turns a non-zero exit into isError with the exit code and stderr', async () => {
    const result = await cli.call('git_show', { objects: ['no-such-ref'] });
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.exitCode).toBe(128);
    expect(textOf(result)).toContain('failed with exit code 128');
    expect(String(result.structuredContent?.stderr)).toMatch(
      /unknown revision|bad revision|ambiguous argument/,
    );
  });

  it('keeps colour out of every result even when git config forces it', async () => {
    git(repo, 'config', 'color.ui', 'always');
    git(repo, 'config', 'color.status', 'always');
    git(repo, 'config', 'color.diff', 'always');
    writeFileSync(join(repo, 'file.txt'), 'changed\n');
    try {
      // Direct git, for contrast, does emit escape codes with this config.
      expect(git(repo, 'diff')).toContain('\u001b[');
      const results = [
        await cli.call('git_status', {}),
        await cli.call('git_diff', {}),
        await cli.call('git_log', { 'max-count': 5 }),
        await cli.call('git_branch', { all: true }),
        await cli.call('git_show', { objects: ['HEAD'] }),
      ];
      for (const result of results) {
        expect(result.isError).toBeUndefined();
        const json = JSON.stringify(result);
        expect(json.includes('\u001b') || json.includes('\\u001b')).toBe(false);
      }
      expect(textOf(results[1] as never)).toContain('+changed');
    } finally {
      git(repo, 'checkout', '--', 'file.txt');
      git(repo, 'config', '--unset', 'color.ui');
      git(repo, 'config', '--unset', 'color.status');
      git(repo, 'config', '--unset', 'color.diff');
    }
  });

  it('pages a log of thousands of commits and every page read back rebuilds it exactly', async () => {
    const expected = git(repo, 'log', '--format=%H %s');
    expect(expected.split('\n').length).toBeGreaterThan(3000);
    const result = await cli.call('git_log', { format: '%H %s' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent?.truncated).toBe(true);
    const first = result.content[0];
    expect(first?.type).toBe('text');
    const note = result.content.find((block) => block.type === 'text' && block.text.includes('continues'));
    const pages = Number(/page 1 of (\d+)/.exec(note && 'text' in note ? note.text : '')?.[1]);
    expect(pages).toBeGreaterThan(5);
    const template = /Read the rest with resources\/read on (\S+)\/page\/N/.exec(
      note && 'text' in note ? note.text : '',
    );
    let text = first && 'text' in first ? first.text : '';
    for (let page = 2; page <= pages; page++) {
      const contents = await cli.store.read(`${template?.[1]}/page/${page}`, 'test');
      expect(contents && 'text' in contents).toBe(true);
      text += contents && 'text' in contents ? contents.text : '';
    }
    expect(text).toBe(expected);
    expect(result.content.filter((block) => block.type === 'resource_link').length).toBeGreaterThan(0);
  });

  it('passes operands after --end-of-options and paths after --', async () => {
    const result = await cli.call('git_log', {
      revisions: ['HEAD~2..HEAD'],
      paths: ['file.txt'],
      oneline: true,
    });
    expect(result.isError).toBeUndefined();
    expect(String(result.structuredContent?.stdout).trim().split('\n')).toHaveLength(2);
  });

  it('returns binary output as a blob', async () => {
    const result = await cli.call('git_archive', { format: 'tar', args: ['HEAD'] });
    expect(result.isError).toBeUndefined();
    const block = result.content[0];
    expect(block?.type).toBe('resource');
    const blob = block?.type === 'resource' && 'blob' in block.resource ? block.resource.blob : '';
    expect(Buffer.from(blob, 'base64').subarray(257, 262).toString()).toBe('ustar');
  });

  describe('refuses injection attempts without running them', () => {
    const marker = () => join(outside.path, 'pwned');
    const attempts: Array<[string, string, Record<string, unknown>, RegExp]> = [
      [
        'a ref of --output=<file>',
        'git_log',
        { revisions: [`--output=${join(outside.path, 'pwned')}`] },
        /starts with "-"/,
      ],
      [
        '--output spelled out as a path',
        'git_diff',
        { paths: [`--output=${join(outside.path, 'pwned')}`] },
        /starts with "-"/,
      ],
      [
        'an abbreviated --out= in an option value',
        'git_log',
        { format: `--out=${join(outside.path, 'pwned')}` },
        /dangerous option "--out"/,
      ],
      [
        'an --output option',
        'git_diff',
        { output: join(outside.path, 'pwned') },
        /is not an allowed property|output/,
      ],
      [
        '-c smuggled as an operand',
        'git_log',
        { revisions: ['-c', 'core.pager=touch pwned'] },
        /starts with "-"/,
      ],
      [
        '--upload-pack in an operand',
        'git_ls_remote',
        { args: ['--upload-pack=touch pwned', '.'] },
        /starts with "-"/,
      ],
      [
        'an upload-pack option',
        'git_fetch',
        { 'upload-pack': `touch ${join(outside.path, 'pwned')}` },
        /is not an allowed property/,
      ],
      [
        'an ext:: URL',
        'git_ls_remote',
        { args: [`ext::sh -c touch% ${join(outside.path, 'pwned')}`] },
        /ext:: URLs are refused: git's ext transport runs the command the URL holds/,
      ],
      [
        'an ssh URL whose host is an option',
        'git_ls_remote',
        { args: [`ssh://-oProxyCommand=touch% ${join(outside.path, 'pwned')}/x`] },
        /a URL whose host starts with "-" .* is refused: ssh would read the host as an option/,
      ],
      [
        'an exec option of rebase',
        'git_rebase',
        { exec: `touch ${join(outside.path, 'pwned')}` },
        /is not an allowed property/,
      ],
    ];
    for (const [label, tool, args, reason] of attempts) {
      it(label, async () => {
        const result = await cli.call(tool, args);
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(reason);
        expect(existsSync(marker())).toBe(false);
      });
    }

    it('treats $(...), ; and newlines as plain bytes', async () => {
      const target = join(outside.path, 'pwned');
      for (const ref of [
        `$(touch ${target})`,
        `HEAD; touch ${target}`,
        `HEAD\ntouch ${target}`,
        `\`touch ${target}\``,
      ]) {
        const result = await cli.call('git_rev_parse', { args: [ref] });
        expect(result.isError).toBe(true);
        expect(existsSync(target)).toBe(false);
      }
      const message = await cli.call('git_log', { grep: [`$(touch ${target})`], 'max-count': 1 });
      expect(message.isError).toBeUndefined();
      expect(existsSync(target)).toBe(false);
    });

    it('does not offer dangerous options and says so', () => {
      const fetch = cli.registry.get('git_fetch')?.definition;
      const properties = Object.keys((fetch?.inputSchema.properties ?? {}) as object);
      expect(properties).not.toContain('upload-pack');
      expect(fetch?.description).toContain('--upload-pack');
      const log = cli.registry.get('git_log')?.definition;
      expect(Object.keys((log?.inputSchema.properties ?? {}) as object)).not.toContain('output');
    });
  });

  it('confines cwd to the roots', async () => {
    const inside = await cli.call('git_status', { cwd: '.' });
    expect(inside.isError).toBeUndefined();
    const escaped = await cli.call('git_status', { cwd: outside.path });
    expect(escaped.isError).toBe(true);
    expect(textOf(escaped)).toContain('outside the allowed roots');
    expect(textOf(escaped)).toContain(repo);
    const dotdot = await cli.call('git_status', { cwd: '../..' });
    expect(dotdot.isError).toBe(true);
    symlinkSync(outside.path, join(repo, 'escape-link'));
    try {
      const linked = await cli.call('git_status', { cwd: 'escape-link' });
      expect(linked.isError).toBe(true);
      expect(textOf(linked)).toContain('outside the allowed roots');
    } finally {
      unlinkSync(join(repo, 'escape-link'));
    }
  });

  it('rejects arguments that fail the schema, naming them', async () => {
    const result = await cli.call('git_log', { 'max-count': 'ten', nonsense: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('max-count');
    expect(textOf(result)).toContain('nonsense');
  });

  it('does not offer hidden subcommands unless --allow names them', async () => {
    expect(cli.registry.get('git_config')).toBeUndefined();
    expect(cli.registry.get('git_daemon')).toBeUndefined();
    await using allowed = await loadCli(
      { program: 'git', allow: ['config', 'status'], deny: ['status'] },
      repo,
    );
    expect(allowed.registry.tools.map((tool) => tool.name).sort()).toEqual([
      'git_config',
      'git_config_get',
      'git_config_list',
      'git_config_set',
      'git_config_unset',
    ]);
    const read = await allowed.call('git_config', { get: true, args: ['user.name'] });
    expect(String(read.structuredContent?.stdout)).toBe('Test User\n');
  });

  it('reads a file with stdin only where the tool offers it', async () => {
    await using hashing = await loadCli({ program: 'git', allow: ['hash-object'] }, repo);
    const tool = hashing.registry.get('git_hash_object');
    expect(Object.keys((tool?.definition.inputSchema.properties ?? {}) as object)).toContain('stdin');
    const result = await hashing.call('git_hash_object', { stdin: true, option_stdin: true } as never);
    expect(result.isError).toBe(true); // `stdin` must be a string
    const ok = await hashing.call('git_hash_object', { option_stdin: true, stdin: 'hello\n' });
    expect(String(ok.structuredContent?.stdout).trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(readFileSync(join(repo, 'file.txt'), 'utf8')).toBe('line 3000\n');
  });
});
