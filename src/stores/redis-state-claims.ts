import type { StateClaims } from '../ask/request-state.js';
import type { RedisConnection } from './redis-connection.js';

/** How much later than its state a claim expires: more than the clocks of store and instances differ. */
const CLOCK_MARGIN_MS = 5 * 60_000;

/**
 * The request states every instance sharing the store has opened: one key per state id, set only
 * if absent and expiring a while after the state (after which the state is refused as expired
 * anyway). The while covers clocks that differ: the store expires the key by its own clock, the
 * instances judge expiry by theirs, and a key gone before an instance sees the state expire would
 * let that instance run it again.
 * When the store is unreachable the claim fails, and so does the call: a confirmation that might
 * have been used elsewhere is not run.
 */
export class RedisStateClaims implements StateClaims {
  readonly #redis: RedisConnection;
  readonly #prefix: string;

  constructor(redis: RedisConnection) {
    this.#redis = redis;
    this.#prefix = `${redis.address.namespace}:state:`;
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const reply = await this.#redis.run((client) =>
      client.set(`${this.#prefix}${id}`, '1', { NX: true, PXAT: Math.ceil(expiresAt) + CLOCK_MARGIN_MS }),
    );
    return reply === 'OK';
  }
}
