import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AskInterrupt } from './client-ask.js';

/** What the bridge remembers between two rounds of one call, inside the signed request state. */
export interface RoundState {
  /** Random id of this state: each is accepted once. */
  id: string;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
  /** Digest of who called, which tool, and the exact arguments: the state fits that call only. */
  bind: string;
  /** Answers of earlier rounds by question key, each with the digest of the question it answers. */
  answers: Record<string, { d: string; r: unknown }>;
  /** The questions of the last round by key, with their digests. */
  pending: Record<string, string>;
}

/** A request state that is malformed, forged, expired, replayed or for another call. */
export class InvalidRequestStateError extends AskInterrupt {
  override readonly name = 'InvalidRequestStateError';
}

export interface RequestStateOptions {
  /**
   * HMAC key, at least 32 bytes, shared by every instance behind one endpoint; used only with
   * `claims`. Without them a process remembers alone which states were used, so it signs with a key
   * of its own: a state from before a restart, or from another instance, would open there unused.
   */
  key?: string | Uint8Array;
  /** How long a round's state stays valid. Default 10 minutes. */
  ttlMs?: number;
  /**
   * How many used state ids are remembered to refuse replays. Default 100,000. Past it the oldest
   * is forgotten, and every state issued no later than it is refused from then on (see `open`).
   */
  maxRemembered?: number;
  /** Where every instance behind one endpoint records the states it opened (the shared store). */
  claims?: StateClaims;
}

/**
 * The used request states of every instance behind one endpoint, so that a state replayed to
 * another instance than the one that opened it is refused too.
 */
export interface StateClaims {
  /** Records state `id` as used until `expiresAt` (ms since the epoch): `false` when it already was. */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

const PREFIX = 'b1.';

/**
 * Seals and opens the `requestState` of 2026-07-28 `input_required` rounds. The state is signed
 * (HMAC-SHA256), not encrypted: it holds only what the client itself answered, never a secret.
 * Each state opens once: a replayed state is refused, so a confirmed call cannot be run twice
 * from one confirmation. Replays are remembered per process and, with `claims` (the shared store
 * of several instances behind a load balancer, which also share one `key`), by all of them:
 * `claim` must then settle before the call runs. Without `claims` the key is the process's own, so
 * no state outlives the memory of which were used.
 */
export class RequestStateKeeper {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #maxRemembered: number;
  readonly #claims: StateClaims | undefined;
  /** Used state ids → their expiry; insertion order is age order. */
  readonly #used = new Map<string, number>();
  /** States expiring at or before this (ms since the epoch) are refused: one of them was forgotten. */
  #forgottenUntil = 0;

  constructor(options: RequestStateOptions = {}) {
    const key = options.key === undefined ? undefined : Buffer.from(options.key);
    if (key && key.length < 32) {
      throw new RangeError(`The request-state key must be at least 32 bytes long (got ${key.length}).`);
    }
    // A shared key without a shared record of used states would let a state open once per process:
    // again after a restart, and once on each instance behind the endpoint.
    this.#key = key && options.claims ? key : randomBytes(32);
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#maxRemembered = options.maxRemembered ?? 100_000;
    this.#claims = options.claims;
  }

  /**
   * Records an opened state as used by every instance (see `claims`); resolves at once without
   * them. Rejects with `InvalidRequestStateError` when another instance opened it already.
   */
  async claim(state: RoundState): Promise<void> {
    if (!this.#claims) return;
    if (!(await this.#claims.claim(state.id, state.exp))) {
      throw refused('it was already used, through another instance (a request state answers one retry only)');
    }
  }

  /** The binding digest of one call: caller, tool and canonical arguments. */
  static bind(caller: string, tool: string, args: unknown): string {
    return digest(`${caller}\u0000${tool}\u0000${canonicalJson(args)}`);
  }

  seal(state: Omit<RoundState, 'id' | 'exp'>): string {
    const full: RoundState = {
      id: randomBytes(12).toString('base64url'),
      exp: Date.now() + this.#ttlMs,
      ...state,
    };
    const body = Buffer.from(JSON.stringify(full)).toString('base64url');
    return `${PREFIX}${body}.${this.#mac(body)}`;
  }

  /** Verifies `wire` for the call bound as `bind`, and marks it used. Throws `InvalidRequestStateError`. */
  open(wire: string, bind: string): RoundState {
    const parts = wire.startsWith(PREFIX) ? wire.slice(PREFIX.length).split('.') : [];
    const [body, mac] = parts;
    if (parts.length !== 2 || !body || !mac) throw refused('it is not a request state this server issued');
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw refused('its signature does not match (it was altered, or issued by another server or key)');
    }
    const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as RoundState;
    const now = Date.now();
    if (!(state.exp > now)) throw refused('it has expired');
    if (state.bind !== bind) throw refused('it belongs to another call (other tool, arguments or caller)');
    if (state.exp <= this.#forgottenUntil) {
      throw refused(
        'it is older than the used states this server still remembers, so it cannot tell whether it was used (the server answered many rounds since)',
      );
    }
    if (this.#used.has(state.id))
      throw refused('it was already used (a request state answers one retry only)');
    this.#remember(state.id, state.exp, now);
    return state;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }

  #remember(id: string, exp: number, now: number): void {
    this.#used.set(id, exp);
    if (this.#used.size <= this.#maxRemembered) return;
    for (const [old, oldExp] of this.#used) {
      // Expired ids need no remembering: an expired state is refused anyway.
      if (oldExp <= now) this.#used.delete(old);
      else if (this.#used.size > this.#maxRemembered) {
        // Forgetting a live id must not make it usable again: every state expiring no later than
        // it is refused from now on (those of rounds still waiting start over), so a flood of
        // rounds costs the flooded callers a retry, never a second run.
        this.#used.delete(old);
        this.#forgottenUntil = Math.max(this.#forgottenUntil, oldExp);
      } else break;
    }
  }
}

function refused(reason: string): InvalidRequestStateError {
  return new InvalidRequestStateError(
    `Invalid requestState: ${reason}. Nothing was run; call the tool again without requestState and inputResponses to start over.`,
  );
}

/** A short digest of `text` (128 bits, base64url). */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  });
}
