import { describe, expect, it } from 'vitest';
import { InvalidRequestStateError, RequestStateKeeper } from '../../src/ask/request-state.js';

const bind = RequestStateKeeper.bind('local', 'tool', { b: 1, a: [1, 2] });

describe('request states of input_required rounds', () => {
  it('binds a state to the caller, the tool and the arguments, whatever their key order', () => {
    expect(RequestStateKeeper.bind('local', 'tool', { a: [1, 2], b: 1 })).toBe(bind);
    expect(RequestStateKeeper.bind('auth:bob', 'tool', { a: [1, 2], b: 1 })).not.toBe(bind);
    expect(RequestStateKeeper.bind('local', 'tool', { a: [2, 1], b: 1 })).not.toBe(bind);
  });

  it('opens a state once, on the process that sealed it or one sharing its key and used states', () => {
    const key = 'k'.repeat(32);
    const claims = { claim: async () => true };
    const keeper = new RequestStateKeeper({ key, claims });
    const state = keeper.seal({ bind, answers: {}, pending: { q: 'd' } });
    const twin = new RequestStateKeeper({ key, claims });
    expect(twin.open(state, bind).pending).toEqual({ q: 'd' });
    expect(keeper.open(state, bind).pending).toEqual({ q: 'd' });
    expect(() => keeper.open(state, bind)).toThrow(/already used/);
    expect(() =>
      new RequestStateKeeper().open(keeper.seal({ bind, answers: {}, pending: {} }), bind),
    ).toThrow(/signature does not match/);
  });

  it('uses a shared key only beside a shared record of used states: without one, no state opens in another process', () => {
    const key = 'k'.repeat(32);
    const state = new RequestStateKeeper({ key }).seal({ bind, answers: {}, pending: {} });
    // The same key in a restarted process, or in a second instance, without the shared store.
    expect(() => new RequestStateKeeper({ key }).open(state, bind)).toThrow(/signature does not match/);
  });

  it('refuses an expired state and a short key', async () => {
    const keeper = new RequestStateKeeper({ ttlMs: 5 });
    const state = keeper.seal({ bind, answers: {}, pending: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(() => keeper.open(state, bind)).toThrow(InvalidRequestStateError);
    expect(() => keeper.open(state, bind)).toThrow(/expired/);
    expect(() => new RequestStateKeeper({ key: 'short' })).toThrow(/at least 32 bytes/);
  });

  it('forgets the oldest used states beyond its bound, and then refuses every state as old as the one forgotten', async () => {
    const keeper = new RequestStateKeeper({ maxRemembered: 2 });
    const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
    const seal = () => keeper.seal({ bind, answers: {}, pending: {} });
    const waiting = seal(); // a round still waiting for its user, never answered yet
    await tick();
    const states: string[] = [];
    for (let n = 0; n < 3; n++) {
      states.push(seal());
      await tick();
    }
    const later = seal();
    for (const state of states) keeper.open(state, bind);
    expect(() => keeper.open(states[2] as string, bind)).toThrow(/already used/);
    expect(() => keeper.open(states[1] as string, bind)).toThrow(/already used/);
    // The forgotten one is refused, not run a second time; so is an older one it cannot vouch for.
    expect(() => keeper.open(states[0] as string, bind)).toThrow(/cannot tell whether it was used/);
    expect(() => keeper.open(waiting, bind)).toThrow(/cannot tell whether it was used/);
    expect(keeper.open(later, bind).bind).toBe(bind);
  });
});
