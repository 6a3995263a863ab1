import type { StateClaims } from '../ask/request-state.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * The request states every instance sharing the store has opened: one key per state id, set only
 * if absent and expiring with the state (after which the state is refused as expired anyway).
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
      client.set(`${this.#prefix}${id}`, '1', { NX: true, PXAT: Math.ceil(expiresAt) }),
    );
    return reply === 'OK';
  }
}
