import { describe, expect, it } from 'vitest';
import { clipText } from '../../src/clip-text.js';
import { htmlPageTitle, isHtmlPage } from '../../src/html-page.js';
import { excessiveDepth, nestsDeeperThan } from '../../src/json-depth.js';
import { listSome } from '../../src/list-some.js';
import { silentLogger } from '../../src/logger.js';
import { pageOutput } from '../../src/page-output.js';
import { clip, QUOTED_CHARS, quote } from '../../src/quote-input.js';
import { invokeTool, ToolRegistry } from '../../src/registry.js';
import { MemoryResourceStore } from '../../src/resource-store.js';
import type { ToolDefinition } from '../../src/tool.js';
import { sanitizeToolName, uniqueToolNames } from '../../src/tool-names.js';
import { isLoopback } from '../../src/transports/listen-address.js';
import { longStreamsOf } from '../../src/transports/long-streams.js';

const VALID = /^[A-Za-z0-9_.-]{1,64}$/;

/** What a tool call is given, for the calls made here in-process. */
const context = {
  signal: new AbortController().signal,
  progress() {},
  log: silentLogger,
  resources: new MemoryResourceStore(),
  caller: 'test',
};

describe('tool names', () => {
  it('replaces invalid characters and keeps readable words', () => {
    expect(sanitizeToolName('repos/list for-org')).toBe('repos_list_for-org');
    expect(sanitizeToolName('GET /pets/{petId}')).toBe('GET_pets_petId');
    expect(sanitizeToolName('???')).toBe('tool');
  });

  it('shortens long names to 64 characters with a stable hash, cutting at a word boundary', () => {
    const long =
      'actions_create_or_update_environment_secret_for_a_repository_in_an_organization_with_extras';
    const name = sanitizeToolName(long);
    expect(name).toMatch(VALID);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^actions_create_or_update_environment_secret_for_a_[0-9a-f]{6}$/);
    expect(sanitizeToolName(long)).toBe(name);
    expect(sanitizeToolName(`${long}_other`)).not.toBe(name);
  });

  it('suffixes duplicates deterministically', () => {
    expect(uniqueToolNames(['a', 'a', 'a b', 'a_2'])).toEqual(['a', 'a_3', 'a_b', 'a_2']);
    expect(uniqueToolNames(['a', 'a', 'a'])).toEqual(['a', 'a_2', 'a_3']);
    // A name the user chose keeps it; the adapter's name that was first gets the suffix.
    expect(uniqueToolNames(['a', 'b', 'a'], undefined, [false, false, true])).toEqual(['a_2', 'b', 'a']);
    const longs = Array.from({ length: 3 }, () => 'x'.repeat(100));
    const names = uniqueToolNames(longs);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(VALID);
  });
});

describe('registry', () => {
  const tool = (name: string): ToolDefinition => ({
    name,
    description: name,
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    invoke: async (args) => ({ content: [{ type: 'text', text: `${name}:${String(args.n)}` }] }),
  });

  it('merges sources, orders by name and keeps names unique', () => {
    const registry = new ToolRegistry([
      { source: 'one', tools: [tool('zeta'), tool('alpha')] },
      { source: 'two', tools: [tool('alpha')] },
    ]);
    expect(registry.tools.map((t) => [t.name, t.source])).toEqual([
      ['alpha', 'one'],
      ['alpha_2', 'two'],
      ['zeta', 'one'],
    ]);
  });

  it('validates arguments before invoking, and invokes when they fit', async () => {
    const registry = new ToolRegistry([{ source: 'one', tools: [tool('t')] }]);
    const registered = registry.get('t')!;
    const bad = await registry.call(registered, { n: 'x' }, context);
    expect(bad).toMatchObject({ isError: true });
    expect(JSON.stringify(bad)).toContain('/n: must be an integer');
    expect(await registry.call(registered, { n: 3 }, context)).toEqual({
      content: [{ type: 'text', text: 't:3' }],
    });
  });

  it('serves a tool whose schema does not compile, without validation', async () => {
    const broken = {
      ...tool('broken'),
      inputSchema: { type: 'object', properties: { n: { type: 'no-such-type' } } },
    };
    const registry = new ToolRegistry([{ source: 'one', tools: [broken] }]);
    const result = await registry.call(registry.get('broken')!, { n: 1 }, context);
    expect(result.isError).toBeUndefined();
  });
});

describe('pageOutput', () => {
  it('rebuilds the text exactly from its pages, including astral characters at page edges', async () => {
    const text = `${'😀'.repeat(15_000)}\n${'line\n'.repeat(9_000)}`;
    const store = new MemoryResourceStore();
    const paged = await pageOutput(text, { store, caller: 'me', pageSize: 4_999 });
    expect(paged.truncated).toBe(true);
    const first = paged.links.find((block) => block.type === 'resource_link');
    if (first?.type !== 'resource_link') throw new Error('no resource_link');
    let rebuilt = paged.firstPage;
    for (let page = 2; page <= paged.pages; page++) {
      const contents = await store.read(first.uri.replace(/\/page\/\d+$/, `/page/${page}`), 'me');
      rebuilt += contents && 'text' in contents ? contents.text : '<missing>';
    }
    expect(rebuilt).toBe(text);
  });

  it('keeps no more pages than one caller may hold, so none pushes out an earlier page of its own', async () => {
    const store = new MemoryResourceStore({ maxBytesPerCaller: 100_000 });
    const older = await store.put(
      {
        uri: 'bridge://output/older/page/2',
        name: 'older',
        mimeType: 'text/plain',
        text: 'x'.repeat(50_000),
      },
      'me',
    );
    const text = `${'y'.repeat(99)}\n`.repeat(3_000); // 300,000 characters: 15 pages of 20,000
    const paged = await pageOutput(text, { store, caller: 'me', pageSize: 20_000, label: 'big' });
    expect(paged.pages).toBe(15);
    const links = paged.links.filter((block) => block.type === 'resource_link');
    expect(links).toHaveLength(5);
    for (const link of links) {
      if (link.type !== 'resource_link') continue;
      expect(await store.has(link.uri, 'me')).toBe(true);
    }
    const note = paged.links[0]?.type === 'text' ? paged.links[0].text : '';
    expect(note).toContain('N = 2…6.');
    expect(note).toContain('Pages 7…15 were not kept');
    expect(note).toContain('0.1 MiB');
    // The caller's older output made room, as the store's eviction order says.
    expect(await store.has(older.uri, 'me')).toBe(false);
  });

  it('cuts a text without newlines (compact JSON) at the page size, and one with them after a newline', async () => {
    const store = new MemoryResourceStore();
    const compact = JSON.stringify(Array.from({ length: 40_000 }, (_, id) => ({ id })));
    const paged = await pageOutput(compact, { store, caller: 'me', pageSize: 20_000 });
    expect(paged.pages).toBe(Math.ceil(compact.length / 20_000));
    expect(paged.firstPage).toBe(compact.slice(0, 20_000));
    // A newline in the first half of a page is too early to cut at; one in the second half is used.
    const early = `${'a'.repeat(100)}\n${'b'.repeat(300)}`;
    expect((await pageOutput(early, { store, caller: 'me', pageSize: 250 })).firstPage).toBe(
      early.slice(0, 250),
    );
    const late = `${'a'.repeat(200)}\n${'b'.repeat(300)}`;
    expect((await pageOutput(late, { store, caller: 'me', pageSize: 250 })).firstPage).toBe(
      late.slice(0, 201),
    );
  });

  it('leaves a short text alone', async () => {
    const store = new MemoryResourceStore();
    expect(await pageOutput('short', { store, caller: 'me' })).toEqual({
      firstPage: 'short',
      links: [],
      pages: 1,
      truncated: false,
    });
  });
});

describe('clipText', () => {
  it('keeps a short text whole and cuts a long one, saying its length, without splitting a pair', () => {
    expect(clipText('short', 5)).toBe('short');
    expect(clipText('abcdef', 3)).toBe('abc… [6 characters in all]');
    // '😀' is two UTF-16 units: a cut between them would leave half a character.
    expect(clipText('ab😀cd', 3)).toBe('ab… [6 characters in all]');
  });
});

describe('listSome', () => {
  const options = {
    most: 2,
    show: (text: string) => clip(text, 3),
    more: (count: number) => `and ${count} more`,
  };

  it('lists all when they fit, each shown as it says', () => {
    expect(listSome([], options)).toEqual([]);
    expect(listSome(['a', 'abcdef'], options)).toEqual(['a', 'abc…']);
  });

  it('lists the first few and counts the rest on a line of its own', () => {
    expect(listSome(['a', 'b', 'c', 'd'], options)).toEqual(['a', 'b', 'and 2 more']);
  });
});

describe('an HTML page where JSON or YAML was expected', () => {
  it('is known by its first tag, past a byte order mark and white space', () => {
    expect(isHtmlPage('\uFEFF\n <!DOCTYPE html><html>')).toBe(true);
    expect(isHtmlPage('<body>')).toBe(true);
    expect(isHtmlPage('<bodyx>')).toBe(false);
    expect(isHtmlPage('{"html": 1}')).toBe(false);
  });

  it('is named by its title, white space collapsed, when it has one', () => {
    expect(htmlPageTitle('<html><head><title lang="en"> Sign\n  in </title>')).toBe('Sign in');
    expect(htmlPageTitle('<html><title> </title>')).toBeUndefined();
    expect(htmlPageTitle('<html><body>no title</body>')).toBeUndefined();
  });

  // Quadratic, as the unbounded `<title[^>]*>` was, this page took minutes: the test's timeout.
  it('finds no title in a page of unclosed title tags', () => {
    expect(htmlPageTitle(`<html>${'<title '.repeat(200_000)}`)).toBeUndefined();
  });
});

describe('isLoopback', () => {
  it('takes addresses of this machine only, IPv6 bracketed as URLs write it or not', () => {
    for (const host of ['localhost', '127.0.0.1', '127.3.4.5', '::1', '[::1]']) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of ['127.example.com', '[::2]', '0.0.0.0', '10.0.0.1', 'localhost.example', '']) {
      expect(isLoopback(host), host).toBe(false);
    }
    expect(isLoopback(new URL('http://[::1]:8080/token').hostname)).toBe(true);
  });
});

describe('arguments nested deeper than a check can recurse', () => {
  it('are refused as the caller’s error, naming the tool, and the next call is served', async () => {
    const node = { $ref: '#/$defs/node' };
    const definition: ToolDefinition = {
      name: 'tree',
      description: 'tree',
      inputSchema: {
        type: 'object',
        properties: { node },
        $defs: { node: { type: 'object', properties: { child: node } } },
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      invoke: async () => ({ content: [{ type: 'text', text: 'ran' }] }),
    };
    let deep: Record<string, unknown> = {};
    for (let depth = 0; depth < 100_000; depth++) deep = { child: deep };
    const refused = await invokeTool(definition, { node: deep }, context);
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('tree');
    expect(JSON.stringify(refused.content)).toContain('nested too deeply');
    const served = await invokeTool(definition, { node: { child: {} } }, context);
    expect(served).toEqual({ content: [{ type: 'text', text: 'ran' }] });
  });
});

describe('nestsDeeperThan', () => {
  it('counts levels as excessiveDepth counts them in the text, going no deeper than the limit', () => {
    for (const levels of [1, 127, 128, 129, 100_000]) {
      const text = `{"a":${'['.repeat(levels - 1)}0${']'.repeat(levels - 1)}}`;
      expect(nestsDeeperThan(JSON.parse(text)), String(levels)).toBe(excessiveDepth(text) !== undefined);
    }
    expect(nestsDeeperThan([[1]], 1)).toBe(true);
    expect(nestsDeeperThan([[1]], 2)).toBe(false);
    expect(nestsDeeperThan('[[[]]]', 0)).toBe(false);
  });
});

describe('longStreamsOf', () => {
  it('counts listen streams, GET and tasks/result waits against the stream cap; only the first two end', () => {
    expect(longStreamsOf('GET', [])).toEqual({ count: 1, endless: true, listenIds: [] });
    const batch = [
      { id: 1, method: 'subscriptions/listen' },
      { id: 2, method: 'tasks/result' },
      { id: 3, method: 'tools/call' },
    ];
    expect(longStreamsOf('POST', batch)).toEqual({ count: 2, endless: true, listenIds: [1] });
    // A tasks/result waits for its task (bounded by the task's time to live), not forever.
    expect(longStreamsOf('POST', [{ id: 4, method: 'tasks/result' }])).toEqual({
      count: 1,
      endless: false,
      listenIds: [],
    });
  });
});

describe('quoting a value from a request', () => {
  it('keeps a short value whole and cuts a long one, with a marker', () => {
    expect(clip('get_user')).toBe('get_user');
    expect(clip('x'.repeat(QUOTED_CHARS))).toBe('x'.repeat(QUOTED_CHARS));
    expect(clip('x'.repeat(4_000_000))).toBe(`${'x'.repeat(QUOTED_CHARS)}…`);
    expect(clip('abcdef', 3)).toBe('abc…');
  });

  it('never splits a surrogate pair', () => {
    const cut = clip(`${'x'.repeat(QUOTED_CHARS - 1)}😀😀`);
    expect(cut).toBe(`${'x'.repeat(QUOTED_CHARS - 1)}…`);
    // A lone surrogate would go out as U+FFFD, or be refused by a strict UTF-8 reader.
    expect(Buffer.from(cut).toString()).toBe(cut);
  });

  it('quotes a string as JSON after cutting it, and other values as JSON, cut', () => {
    expect(quote('get_user')).toBe('"get_user"');
    expect(quote('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    expect(quote('x'.repeat(1_000))).toBe(`"${'x'.repeat(QUOTED_CHARS)}…"`);
    expect(quote(60_000)).toBe('60000');
    expect(quote({ ttl: 'x'.repeat(1_000) })).toHaveLength(QUOTED_CHARS + 1);
    expect(quote(10n)).toBe('10');
  });
});
