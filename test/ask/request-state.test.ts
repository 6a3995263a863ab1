import { describe, expect, it } from 'vitest';
import { InvalidRequestStateError, RequestStateKeeper } from '../../src/ask/request-state.js';

const bind = RequestStateKeeper.bind('local', 'tool', { b: 1, a: [1, 2] });

describe('request states of input_required rounds', () => {
  it('binds a state to the caller, the tool and the arguments, whatever their key order', () => {
    expect(RequestStateKeeper.bind('local', 'tool', { a: [1, 2], b: 1 })).toBe(bind);
    expect(RequestStateKeeper.bind('auth:bob', 'tool', { a: [1, 2], b: 1 })).not.toBe(bind);
    expect(RequestStateKeeper.bind('local', 'tool', { a: [2, 1], b: 1 })).not.toBe(bind);
  });

  it('opens a state once, on the process that sealed it or one sharing its key', () => {
    const key = 'k'.repeat(32);
    const keeper = new RequestStateKeeper({ key });
    const state = keeper.seal({ bind, answers: {}, pending: { q: 'd' } });
    const twin = new RequestStateKeeper({ key });
    expect(twin.open(state, bind).pending).toEqual({ q: 'd' });
    expect(keeper.open(state, bind).pending).toEqual({ q: 'd' });
    expect(() => keeper.open(state, bind)).toThrow(/already used/);
    expect(() =>
      new RequestStateKeeper().open(keeper.seal({ bind, answers: {}, pending: {} }), bind),
    ).toThrow(/signature does not match/);
  });

  it('refuses an expired state and a short key', async () => {
    const keeper = new RequestStateKeeper({ ttlMs: 5 });
    const state = keeper.seal({ bind, answers: {}, pending: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(() => keeper.open(state, bind)).toThrow(InvalidRequestStateError);
    expect(() => keeper.open(state, bind)).toThrow(/expired/);
    expect(() => new RequestStateKeeper({ key: 'short' })).toThrow(/at least 32 bytes/);
  });

  it('forgets the oldest used states beyond its bound, never the newest', () => {
    const keeper = new RequestStateKeeper({ maxRemembered: 2 });
    const states = [1, 2, 3].map(() => keeper.seal({ bind, answers: {}, pending: {} }));
    for (const state of states) keeper.open(state, bind);
    expect(() => keeper.open(states[2] as string, bind)).toThrow(/already used/);
    expect(() => keeper.open(states[1] as string, bind)).toThrow(/already used/);
  });
});
