import { randomBytes } from 'node:crypto';
import { ANONYMOUS_CALLER } from '../caller.js';
import { BridgeError, describeError } from '../errors.js';
import type { ToolContext } from '../tool.js';
import type { RedirectOutcome, SignInCallbacks } from './sign-in-callbacks.js';
import { exchangeCode, type OAuthClient, pkcePair, refreshTokens, type TokenSet } from './token-endpoint.js';

/** An upstream API's OAuth 2.1 authorization-code client, as the user configured it. */
export interface SignInSettings extends OAuthClient {
  /** Names the upstream in messages: `security scheme "oidc" of petstore.yaml`. */
  label: string;
  /**
   * Where the tokens are sent: the API's origin (OpenAPI), the endpoint (GraphQL). Part of what
   * keeps tokens apart: two sources whose specs name the same scheme and OAuth server but send to
   * different APIs never share a caller's token (a spec copying a trusted one's scheme would
   * otherwise collect that API's tokens on its own origin).
   */
  audience: string;
  authorizationUrl: string;
  scopes: string[];
  /** How long a started sign-in waits for the user. Default 10 minutes. */
  signInTimeoutMs?: number;
  /** Names variables to set instead, for the message to clients that cannot open a URL. */
  alternative?: string;
}

interface Flow {
  id: string;
  url: string;
  /** Settles when the redirect came and the code was exchanged (or the sign-in failed). */
  done: Promise<TokenSet>;
  /** Why it failed, once it did: a rerun reports it instead of asking again. */
  failed?: Error;
  /** Stops waiting for the redirect; with a reason, calls still waiting fail with it. */
  stop(reason?: Error): void;
  /** Calls of the caller waiting on it: when the last of them is cancelled, the sign-in is dropped. */
  waiters: number;
  /** Whose quota it counts against (see `ToolContext.quotaKey`). */
  quotaKey: string;
}

/**
 * Sign-ins in progress at once, per upstream sign-in: each holds a start page and a state until
 * its browser comes back (at most 10 minutes). Past it, a new sign-in is refused until one ends.
 */
const MAX_PENDING_FLOWS = 1_000;
/**
 * Of those, the ones of one quota key (an anonymous client's address, all its sessions): a few
 * addresses keeping sign-ins waiting must not fill the table and lock everyone else out.
 */
const MAX_PENDING_PER_KEY = 16;

const DEFAULT_SIGN_IN_TIMEOUT_MS = 10 * 60_000;
/** Signed-in callers kept per sign-in (per OpenAPI scheme or GraphQL source). */
const MAX_CALLERS = 10_000;

/**
 * Signs callers in to an upstream API with the OAuth 2.1 authorization code flow and PKCE, through
 * URL-mode elicitation: the user opens the authorization page the bridge sends, the authorization
 * server redirects back to the bridge (`SignInCallbacks`), and the bridge exchanges the code.
 *
 * Tokens are kept per caller (`ToolContext.caller`), in memory only, and never handed to another
 * caller; they are refreshed with the refresh token when they expire or the upstream rejects them.
 * A sign-in survives the 2026-07-28 era's reruns: the rerun finds the same sign-in (same URL, same
 * question) and waits for its redirect.
 */
export class UpstreamSignIn {
  readonly #settings: SignInSettings;
  /**
   * Tokens by caller. Kept by the running bridge's `SignInCallbacks` under this client's identity
   * once a call brings them, so that the source rebuilt by a reload (a spec or config edited) finds
   * its callers still signed in; until then, and without callbacks, its own.
   */
  #tokens = new Map<string, TokenSet>();
  #kept = false;
  readonly #refreshing = new Map<string, Promise<TokenSet>>();
  readonly #flows = new Map<string, Flow>();

  constructor(settings: SignInSettings) {
    this.#settings = settings;
  }

  /**
   * The caller's access token: held, refreshed, or obtained by asking the user to sign in (which
   * ends this run with a question in the 2026-07-28 era). Throws a `BridgeError` when the user
   * declines, the authorization server refuses, or the client cannot open a URL.
   */
  async accessToken(context: ToolContext): Promise<string> {
    const { caller } = context;
    if (!this.#kept && context.signIn) {
      this.#tokens = context.signIn.tokensOf(clientIdentity(this.#settings), this.#tokens);
      this.#kept = true;
    }
    const held = this.#tokens.get(caller);
    if (held && held.expiresAt > Date.now()) return held.accessToken;
    if (held?.refreshToken) {
      try {
        return (await this.#refresh(caller, held.refreshToken, context.signal)).accessToken;
      } catch (error) {
        context.log.warn(
          `${this.#settings.label}: refreshing the token failed, signing in again: ${describeError(error)}`,
        );
      }
    }
    this.#tokens.delete(caller);
    return (await this.#signIn(context)).accessToken;
  }

  /** The upstream rejected `accessToken`: the next `accessToken` refreshes it (or signs in again). */
  rejected(caller: string, accessToken: string): void {
    const held = this.#tokens.get(caller);
    if (held?.accessToken === accessToken) held.expiresAt = 0;
  }

  // One refresh per caller at a time: concurrent calls share it, and a rotated refresh token is
  // used once.
  #refresh(caller: string, refreshToken: string, signal: AbortSignal): Promise<TokenSet> {
    let pending = this.#refreshing.get(caller);
    if (!pending) {
      pending = refreshTokens(this.#settings, refreshToken, signal).then((tokens) => {
        this.#hold(caller, tokens);
        return tokens;
      });
      const shared = pending;
      void shared
        .catch(() => {})
        .finally(() => this.#refreshing.get(caller) === shared && this.#refreshing.delete(caller));
      this.#refreshing.set(caller, shared);
    }
    return pending;
  }

  async #signIn(context: ToolContext): Promise<TokenSet> {
    const { label } = this.#settings;
    const { ask, caller } = context;
    // Anonymous 2026-07-28 HTTP requests cannot be told apart: a token kept for one would serve all.
    if (caller === ANONYMOUS_CALLER) {
      throw new BridgeError(
        'invalid_input',
        `Signing in to ${label} needs to know who is calling, so that the token serves only you, and this request carries no identity (a 2026-07-28 HTTP request without authentication). Serve the bridge with --auth (or behind a proxy with --trust-identity-header), or connect with an initialize-era session.${this.#settings.alternative ? ` Or set ${this.#settings.alternative} in the bridge's environment.` : ''} Nothing was sent upstream.`,
      );
    }
    if (!ask?.can('url') || !context.signIn) {
      throw new BridgeError(
        'invalid_input',
        `Signing in to ${label} needs a client that can open a URL for the user (URL-mode elicitation), and this one cannot.${this.#settings.alternative ? ` Set ${this.#settings.alternative} in the bridge's environment instead.` : ''} Nothing was sent upstream.`,
      );
    }
    let flow = this.#flows.get(caller);
    if (flow?.failed) {
      this.#drop(caller, flow);
      throw this.#failure(flow.failed);
    }
    if (!flow) {
      const redirectUri = await context.signIn.redirectUri();
      // Concurrent calls of one caller share one sign-in (another may have started it meanwhile);
      // the cap is checked after the wait, so that calls waiting together cannot all pass it.
      flow = this.#flows.get(caller);
      if (!flow) {
        const quotaKey = context.quotaKey ?? caller;
        const full = this.#flows.size >= MAX_PENDING_FLOWS;
        if (full || this.#waitingOf(quotaKey) >= MAX_PENDING_PER_KEY) {
          const whose = full
            ? `${MAX_PENDING_FLOWS} sign-ins are`
            : `${MAX_PENDING_PER_KEY} sign-ins of this client (all sessions from its address) are`;
          throw new BridgeError(
            'upstream_failed',
            `Signing in to ${label} is refused for now: ${whose} waiting for their browsers. Finish or cancel one, or call again in a few minutes; nothing was sent upstream.`,
          );
        }
        flow = this.#start(caller, quotaKey, context.signIn, redirectUri);
        this.#flows.set(caller, flow);
      }
    }
    // A sign-in no call waits for any more (the client cancelled, or its session closed) is dropped:
    // its start page and state would otherwise stay for the full 10 minutes.
    flow.waiters++;
    try {
      return await this.#await(caller, flow, context, ask);
    } finally {
      flow.waiters--;
      if (context.signal.aborted && flow.waiters === 0) this.#drop(caller, flow);
    }
  }

  async #await(
    caller: string,
    flow: Flow,
    context: ToolContext,
    ask: NonNullable<ToolContext['ask']>,
  ): Promise<TokenSet> {
    const { label } = this.#settings;
    const answer = await ask.elicitUrl({
      key: `sign-in:${label}`.slice(0, 120),
      message: `Sign in to ${label} to let the bridge call it on your behalf. The page asks for your consent; the bridge keeps the token for this session only.`,
      url: flow.url,
      elicitationId: flow.id,
    });
    if (answer.action !== 'accept') {
      // Another call of this caller may be waiting on the same sign-in: it fails too.
      this.#drop(
        caller,
        flow,
        new Error(`the user ${answer.action === 'decline' ? 'declined' : 'cancelled'} it`),
      );
      throw new BridgeError(
        'declined',
        `The user ${answer.action === 'decline' ? 'declined' : 'cancelled'} signing in to ${label}: nothing was sent upstream.`,
      );
    }
    let tokens: TokenSet;
    try {
      tokens = await untilAborted(flow.done, context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      this.#drop(caller, flow);
      throw this.#failure(error);
    }
    this.#drop(caller, flow);
    if (answer.elicitationId) await ask.urlCompleted(answer.elicitationId).catch(() => {});
    return tokens;
  }

  #start(caller: string, quotaKey: string, callbacks: SignInCallbacks, redirectUri: string): Flow {
    const settings = this.#settings;
    const id = randomBytes(12).toString('base64url');
    const state = `${id}.${randomBytes(16).toString('base64url')}`;
    const pkce = pkcePair();
    const url = new URL(settings.authorizationUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', settings.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    if (settings.scopes.length > 0) url.searchParams.set('scope', settings.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', 'S256');

    const flow: Flow = {
      id,
      url: '',
      done: Promise.resolve() as never,
      stop: () => {},
      waiters: 0,
      quotaKey,
    };
    let settle!: { resolve: (tokens: TokenSet) => void; reject: (error: Error) => void };
    let settled = false;
    flow.done = new Promise<TokenSet>((resolve, reject) => {
      settle = {
        // A finished sign-in leaves the table (its tokens are held); a failed one stays to be reported.
        resolve: (tokens) => {
          if (settled) return;
          settled = true;
          if (this.#flows.get(caller) === flow) this.#flows.delete(caller);
          resolve(tokens);
        },
        reject: (error) => {
          if (settled) return;
          settled = true;
          flow.failed = error;
          reject(error);
        },
      };
    });
    flow.done.catch(() => {});
    const timer = setTimeout(() => {
      stop();
      settle.reject(new Error('nobody completed the sign-in page in time'));
    }, settings.signInTimeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
    timer.unref();
    const waiting = callbacks.expect(
      state,
      async (outcome: RedirectOutcome) => {
        clearTimeout(timer);
        if ('error' in outcome) {
          settle.reject(new Error(outcome.error));
          throw new Error(`Signing in to ${settings.label} failed: ${outcome.error}.`);
        }
        try {
          const tokens = await exchangeCode(settings, outcome.code, redirectUri, pkce.verifier);
          this.#hold(caller, tokens);
          settle.resolve(tokens);
        } catch (error) {
          const failure = new Error(`exchanging the code failed: ${describeError(error)}`);
          settle.reject(failure);
          throw failure;
        }
      },
      {
        redirectUri,
        authorizationUrl: url.href,
        label: settings.label,
        who: describeCaller(caller),
        waitsMs: settings.signInTimeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS,
      },
    );
    // The client is sent the bridge's start page, which binds the sign-in to one browser.
    flow.url = waiting.url;
    const stop = (reason?: Error) => {
      clearTimeout(timer);
      waiting.stop();
      if (reason) settle.reject(reason);
    };
    flow.stop = stop;
    return flow;
  }

  // Callers come and go (one per HTTP session): past the cap, the longest-unrefreshed is forgotten.
  #hold(caller: string, tokens: TokenSet): void {
    this.#tokens.delete(caller);
    this.#tokens.set(caller, tokens);
    if (this.#tokens.size > MAX_CALLERS) {
      const oldest = this.#tokens.keys().next().value;
      if (oldest !== undefined) this.#tokens.delete(oldest);
    }
  }

  #failure(error: unknown): BridgeError {
    return new BridgeError(
      'upstream_failed',
      `Signing in to ${this.#settings.label} failed: ${describeError(error)}. Nothing was sent upstream; call again to start a new sign-in.`,
      { cause: error },
    );
  }

  // The sign-ins of one quota key in the table (at most MAX_PENDING_FLOWS to count).
  #waitingOf(quotaKey: string): number {
    let count = 0;
    for (const flow of this.#flows.values()) if (flow.quotaKey === quotaKey) count++;
    return count;
  }

  #drop(caller: string, flow: Flow, reason?: Error): void {
    flow.stop(reason);
    if (this.#flows.get(caller) === flow) this.#flows.delete(caller);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

// The caller as the person opening the sign-in page can recognise it.
function describeCaller(caller: string): string {
  if (caller === 'local') return 'the assistant running the bridge on this computer';
  if (caller.startsWith('auth:')) return `the signed-in user "${caller.slice('auth:'.length)}"`;
  if (caller.startsWith('session:')) return 'an MCP session without authentication';
  return caller;
}

/**
 * What makes tokens of one sign-in good for another: the same upstream (the label names the scheme
 * and its spec or endpoint, which a reload keeps), authorization server, token endpoint, client and
 * scopes. Two sources sharing one OAuth client still sign in apart, as the README says ("per
 * scheme"); a reload that changes any of these signs callers in again.
 */
function clientIdentity(settings: SignInSettings): string {
  return JSON.stringify([
    settings.label,
    settings.audience,
    settings.authorizationUrl,
    settings.tokenUrl,
    settings.clientId,
    [...settings.scopes].sort(),
  ]);
}
