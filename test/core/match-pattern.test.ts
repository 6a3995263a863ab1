import { describe, expect, it } from 'vitest';
import { cannotBacktrackFar, MATCH_BUDGET_MS } from '../../src/match-pattern.js';
import { compileValidator } from '../../src/validate-arguments.js';

// A spec's `pattern` runs on every argument it covers, on the event loop every caller shares;
// JavaScript matches by backtracking, and some patterns backtrack without end on a short value.

describe('patterns that cannot backtrack far', () => {
  it.each([
    '^[a-z]+$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '[a-z]{1,16}_x',
    '^(foo|bar)[0-9]{4}$',
    '^[^\\s]+$',
    '^.*$',
    '^[a-z]+?x$',
    'literal',
    '^\\p{L}{1,10}$',
  ])('%s runs as it is', (pattern) => {
    expect(cannotBacktrackFar(pattern)).toBe(true);
  });

  it.each([
    '^(\\w+\\s?)*$',
    '(a+)+$',
    '^(a|a)*$',
    '^(?:[A-Za-z0-9+/]{4})*$',
    '[a-z]+_token_[0-9]+',
    '^a*a*b$',
    '^[a-z]{1,100}[a-z]{1,100}$',
    '(a)\\1',
    '(?=a)b',
    '^a+|b+$',
    '^\\k<x>',
    // Choices multiply each other, bounded or not.
    '^(foo|bar)[0-9]+$',
    '(a|a)(a|a)(a|a)b',
    '^\\d{0,16}\\d{0,16}x$',
    '^\\w+a?$',
    // A choice before a long fixed part retries all of it at each place it gives back.
    '^\\w*\\w{60000}$',
    `^\\w*${'\\w'.repeat(200)}$`,
    `^\\w*${'\\w{16}'.repeat(40)}$`,
  ])('%s is matched within a time bound', (pattern) => {
    expect(cannotBacktrackFar(pattern)).toBe(false);
  });
});

describe('an argument a pattern backtracks on without end', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', pattern: '^(\\w+\\s?)*$' },
      names: { type: 'array', items: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
      code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]+$' },
    },
  };
  // 2^40 steps of backtracking: days, without the bound.
  const EVIL = `${'a'.repeat(40)}!`;

  it('is refused, naming the pattern, and the same check still judges other values', () => {
    const validate = compileValidator(schema);
    expect(validate({ name: EVIL })).toEqual([
      {
        path: '',
        message: `could not be checked against the pattern "^(\\w+\\s?)*$" within ${MATCH_BUDGET_MS} ms`,
      },
    ]);
    // Values the pattern decides at once: a short one directly, a longer one in the worker.
    expect(validate({ name: 'ab!' })).toHaveLength(1);
    expect(validate({ code: 'ABC-123', name: 'ok' })).toEqual([]);
    expect(validate({ code: 'ABC-12x' })).toHaveLength(1);
  });

  it('costs one bound per check, however many values carry it', () => {
    const validate = compileValidator(schema);
    const violations = validate({ names: Array.from({ length: 50 }, () => EVIL) });
    expect(violations).toHaveLength(1);
    expect(violations[0]?.message).toContain('could not be checked against the pattern');
  });

  it('matches other patterns that might backtrack in the worker, with their usual answers', () => {
    const validate = compileValidator({
      type: 'object',
      properties: {
        email: { type: 'string', pattern: '^[a-z0-9]+(?:\\.[a-z0-9]+)*@[a-z]+\\.[a-z]{2,3}$' },
        words: { type: 'object', patternProperties: { '^(x+y?)+$': { type: 'integer' } } },
      },
    });
    expect(validate({ email: 'jane.doe@example.com' })).toEqual([]);
    expect(validate({ email: 'jane..doe@example.com' })).toHaveLength(1);
    expect(validate({ words: { xxxxyxxxxxxx: 1 } })).toEqual([]);
    expect(validate({ words: { xxxxyxxxxxxx: 'one' } })).toHaveLength(1);
  });

  // Twenty alternatives under a `*` take 20^7 steps on eight characters: no value is too short.
  it('is bounded however short the value', () => {
    const pattern = `^(${Array.from({ length: 20 }, () => 'a').join('|')})*$`;
    const validate = compileValidator({ type: 'object', properties: { s: { type: 'string', pattern } } });
    // Refused by the bound (matched natively, it was refused as not matching, seconds later).
    const violations = validate({ s: 'aaaaaaa!' });
    expect(violations).toHaveLength(1);
    expect(violations[0]?.message).toContain('could not be checked against the pattern');
    expect(validate({ s: 'aaa' })).toEqual([]);
  });

  // A trip to the worker costs microseconds; a hundred thousand short values of a pattern whose
  // shape bounds their cost are matched here, within the check's budget, not refused by it.
  it('matches short values here when the pattern has few choices and no repeated group', () => {
    const validate = compileValidator({
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'string', pattern: '[a-z]+_[0-9]+' } } },
    });
    expect(validate({ ids: Array.from({ length: 100_000 }, (_, n) => `ab_${n % 1000}`) })).toEqual([]);
    expect(validate({ ids: ['ab_1', 'nope'] })).toHaveLength(1);
  });
});
