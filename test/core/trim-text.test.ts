import { describe, expect, it } from 'vitest';
import {
  PROPERTY_DESCRIPTION_BUDGET,
  propertyDescription,
  TOOL_DESCRIPTION_BUDGET,
  trimText,
} from '../../src/trim-text.js';

describe('description budgets', () => {
  it('keep the words of Markdown links and drop their URLs', () => {
    expect(
      trimText('Lists [repositories](https://docs.github.com/rest/repos) of a [user](/users).', 100),
    ).toBe('Lists repositories of a user.');
  });

  it('leave out sentences that only point at other documentation, wherever they stand', () => {
    const text = [
      'Lists the issues.',
      '',
      'For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/pagination)."',
      '',
      'Pull requests are issues too. For more information about pull requests, see [Pulls](https://x.test/p). Use `state` to filter.',
      'For more details, see the GitHub Help documentation.',
    ].join('\n');
    expect(trimText(text, 500)).toBe(
      'Lists the issues.\n\nPull requests are issues too. Use `state` to filter.',
    );
    // A description that is nothing else is left out altogether.
    expect(propertyDescription('For more information, see "Media types."')).toBeUndefined();
    // Not a pointer: kept.
    expect(trimText('for more information, call `get_item`.', 500)).toBe(
      'for more information, call `get_item`.',
    );
  });

  it('cut at the budget with an ellipsis, counting the ellipsis', () => {
    const long = 'word '.repeat(400);
    const tool = trimText(long, TOOL_DESCRIPTION_BUDGET);
    expect(tool.length).toBeLessThanOrEqual(TOOL_DESCRIPTION_BUDGET);
    expect(tool.endsWith('...')).toBe(true);
    expect(propertyDescription(long)?.length).toBeLessThanOrEqual(PROPERTY_DESCRIPTION_BUDGET);
    expect(propertyDescription('  short  ')).toBe('short');
    expect(propertyDescription(3)).toBeUndefined();
  });

  it('cut after the last whole sentence that fits, when that keeps at least half the budget', () => {
    const sentence = 'The branch the pull request merges into. ';
    const text = `${sentence.repeat(6)}Only a branch of this repository can be chosen here.`;
    const cut = trimText(text, PROPERTY_DESCRIPTION_BUDGET);
    expect(cut.length).toBeLessThanOrEqual(PROPERTY_DESCRIPTION_BUDGET);
    expect(cut).toBe(`${sentence.repeat(4).trimEnd()} ...`);
    // A question or an exclamation ends a sentence too; a dot inside a word or number does not.
    expect(trimText('Is it merged? Then v1.2.3 is out and the rest of this is long', 40)).toBe(
      'Is it merged? Then v1.2.3 is out and...',
    );
    expect(trimText('Is it merged? Yes! Then v1.2.3 is out and the rest is long', 30)).toBe(
      'Is it merged? Yes! ...',
    );
    // A sentence that would leave less than half the budget: cut mid-way, as before.
    expect(trimText(`Short. ${'word '.repeat(40)}`, 40)).toBe(`Short. ${'word '.repeat(5)}word...`);
  });

  // Half a pair is listed as `\ud83d`, which strict JSON readers (serde_json: "lone leading
  // surrogate") refuse, and with it the whole tools/list.
  it('never cut a surrogate pair in two', () => {
    const cut = trimText(
      `${'a'.repeat(TOOL_DESCRIPTION_BUDGET - 4)}\u{1f600}${'b'.repeat(100)}`,
      TOOL_DESCRIPTION_BUDGET,
    );
    expect(cut).toBe(`${'a'.repeat(TOOL_DESCRIPTION_BUDGET - 4)}...`);
    expect(Buffer.from(cut).toString()).toBe(cut);
  });

  it('write typographic punctuation as ASCII, so a list of ASCII text stays a one-byte string', () => {
    const text = 'It\u2019s \u201cfast\u201d \u2013 really\u2026 and caf\u00e9 stays.';
    expect(trimText(text, 500)).toBe('It\'s "fast" - really... and caf\u00e9 stays.');
    expect(propertyDescription('\u2018a\u2019 \u2014 b')).toBe("'a' - b");
    // Whatever is left, cut or not, has no character above U+00FF.
    const cut = trimText(`${'\u201cword\u201d '.repeat(300)}`, TOOL_DESCRIPTION_BUDGET);
    expect(cut).not.toMatch(/[^\x20-\xff\n]/);
    expect(cut.length).toBeLessThanOrEqual(TOOL_DESCRIPTION_BUDGET);
  });
});

describe('description budgets, on text made to be slow', () => {
  it('stay linear on long runs of blanks and on pointers that never end', () => {
    const started = performance.now();
    trimText(`${' '.repeat(200_000)}x For more `, 300);
    trimText('For more information '.repeat(20_000), 300);
    trimText(`${'['.repeat(200_000)}](`, 300);
    // Quadratic, these took minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
