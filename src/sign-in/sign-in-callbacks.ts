import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenSet } from './token-endpoint.js';

/** The path of the OAuth redirect endpoint, on the bridge's HTTP server or its loopback listener. */
export const CALLBACK_PATH = '/oauth/callback';
/** The start page, beside the callback (`/oauth/start`, or beside a configured redirect URI). */
const START = 'start';

/** What a sign-in does with the redirect it was waiting for; a throw shows on the page as a failure. */
export type RedirectHandler = (outcome: RedirectOutcome) => Promise<void>;

/** The redirect, judged: a code to exchange, or why the sign-in failed. */
export type RedirectOutcome = { code: string } | { error: string };

/** What the start page tells the person who opens a sign-in link. */
export interface SignInPage {
  /** The authorization server's page the browser goes on to. */
  authorizationUrl: string;
  /** The upstream, e.g. `security scheme "oidc" of items.json`. */
  label: string;
  /** Who asked for the sign-in, as the bridge knows the caller. */
  who: string;
  /** How long the sign-in waits for the user, in ms: the lifetime of the browser's cookie. */
  waitsMs: number;
}

interface Pending extends SignInPage {
  /** The secret half of the OAuth `state`. */
  secret: string;
  handle: RedirectHandler;
  /** The cookie of the browser that went on from the start page first: it holds the sign-in. */
  holder?: string;
}

/**
 * Receives OAuth redirects (`/oauth/callback?code=…&state=…`) for the upstream sign-ins in progress
 * and hands each to the sign-in whose `state` it carries. One per running bridge: over HTTP the
 * bridge's own server routes the path here (see `route`); over stdio a loopback listener on
 * 127.0.0.1 is opened on first use (RFC 8252 §7.3: authorization servers accept any loopback port
 * for a native client's redirect URI).
 *
 * A state is `<id>.<secret>`: a redirect naming a known id with the wrong secret is a forged or
 * mixed-up redirect, and aborts that sign-in rather than leaving it waiting.
 *
 * The client is sent the bridge's own start page (`/oauth/start?flow=<id>`, beside the callback),
 * not the authorization server's. It tells whoever opens it which upstream and which caller the
 * sign-in is for, and gives that browser (a cookie) its own confirmation link. The first browser to
 * go on by its link holds the sign-in, and the redirect is accepted only in that browser. So a
 * sign-in link passed to someone else (to have their upstream account land on the sender's caller)
 * either was gone on with by the sender already and is refused, or shows its recipient whose
 * sign-in it is before anything happens; and merely opening the page (a link previewer, a mail
 * scanner) holds nothing, so it cannot lock the user out.
 */
export class SignInCallbacks {
  readonly #pending = new Map<string, Pending>();
  readonly #tokens = new Map<string, Map<string, TokenSet>>();
  #base: string | undefined;
  readonly #configured: string | undefined;
  #loopback: Promise<{ server: Server; uri: string }> | undefined;

  /**
   * @param options.redirectUri a fixed redirect URI (behind a proxy, or a registered loopback port);
   *   its path is the one served. Default: `<the HTTP server's origin>/oauth/callback`, or the
   *   loopback listener's.
   */
  constructor(options: { redirectUri?: string } = {}) {
    this.#configured = options.redirectUri;
  }

  /**
   * The tokens by caller of the sign-ins to one upstream client (`identity`), kept for as long as
   * the bridge runs: a source rebuilt by a reload gets the map its predecessor filled. `initial`
   * (what the asking sign-in holds so far) becomes the map when there is none yet.
   */
  tokensOf(identity: string, initial: Map<string, TokenSet>): Map<string, TokenSet> {
    let tokens = this.#tokens.get(identity);
    if (!tokens) {
      tokens = initial;
      this.#tokens.set(identity, tokens);
    }
    return tokens;
  }

  /** Serving HTTP: redirects arrive at the bridge's own origin. */
  useHttpServer(endpointUrl: string): void {
    this.#base = new URL(endpointUrl).origin;
  }

  /** The redirect URI to send to authorization servers. Opens the loopback listener when needed. */
  async redirectUri(): Promise<string> {
    if (this.#base !== undefined) return this.#configured ?? `${this.#base}${CALLBACK_PATH}`;
    this.#loopback ??= this.#listen();
    return (await this.#loopback).uri;
  }

  /**
   * Waits for the redirect carrying `state` (`<id>.<secret>`). Returns the start page's URL (what
   * the client is sent) and a function that stops waiting.
   */
  expect(
    state: string,
    handle: RedirectHandler,
    start: SignInPage & { redirectUri: string },
  ): { url: string; stop: () => void } {
    const [id, secret] = splitState(state);
    const { redirectUri, ...shown } = start;
    this.#pending.set(id, { ...shown, secret, handle });
    const url = new URL(START, redirectUri);
    url.searchParams.set('flow', id);
    return {
      url: url.href,
      stop: () => {
        if (this.#pending.get(id)?.handle === handle) this.#pending.delete(id);
      },
    };
  }

  /** The `routes` hook of the HTTP handler: answers the start and callback paths, passes everything else. */
  route = async (request: Request, url: URL): Promise<Response | undefined> => {
    if (request.method !== 'GET') return undefined;
    return this.#answer(url, request.headers.get('cookie') ?? '');
  };

  #answer(url: URL, cookies: string): Promise<Response> | undefined {
    const callback = this.#path();
    if (url.pathname === callback) return this.handle(url.searchParams, cookies);
    if (url.pathname === new URL(START, `http://x${callback}`).pathname) {
      return Promise.resolve(this.#start(url, cookies));
    }
    return undefined;
  }

  // The start page: each browser gets its own confirmation link; the first to go on holds the sign-in.
  #start(url: URL, cookies: string): Response {
    const id = url.searchParams.get('flow') ?? '';
    const entry = this.#pending.get(id);
    if (!entry) {
      return page(
        400,
        'Sign-in failed',
        'This link matches no sign-in in progress (unknown or expired). Start again from your MCP client.',
      );
    }
    const held = cookieOf(cookies, cookieName(id));
    if (entry.holder !== undefined && !(held !== undefined && sameSecret(held, entry.holder))) {
      return page(
        409,
        'Sign-in link already opened',
        'This sign-in was already continued in another browser, and only that browser can complete it. If you did not do that yourself, someone else may have: start again from your MCP client.',
      );
    }
    const go = url.searchParams.get('go');
    if (go !== null) {
      // A confirmation link works only in the browser it was given to (its cookie).
      if (held === undefined || !sameSecret(go, confirmationToken(id, held))) {
        return page(
          403,
          'Sign-in refused',
          'This confirmation link is not valid in this browser. Start again from your MCP client.',
        );
      }
      entry.holder ??= held;
      return new Response(null, {
        status: 303,
        headers: { ...PAGE_HEADERS, location: entry.authorizationUrl },
      });
    }
    const browser = held ?? token();
    const next = new URL(url);
    next.search = '';
    next.searchParams.set('flow', id);
    next.searchParams.set('go', confirmationToken(id, browser));
    // Behind a proxy that ends TLS the request arrives as http: the public redirect URI says https.
    const secure =
      (this.#configured ? new URL(this.#configured) : url).protocol === 'https:' ? '; Secure' : '';
    const maxAge = Math.ceil(entry.waitsMs / 1000);
    const cookie = `${cookieName(id)}=${browser}; Path=${new URL('.', url).pathname}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
    return page(
      200,
      `Sign in to ${entry.label}`,
      `This connects your account at ${entry.label} to the MCP bridge at ${url.host}, for ${entry.who}. Go on only if you asked your AI assistant for this sign-in yourself, just now; if someone sent you this link, close this page.`,
      {
        link: { href: next.pathname + next.search, text: 'Continue to sign in' },
        headers: { 'set-cookie': cookie },
      },
    );
  }

  /** Answers one redirect with a page for the user's browser. */
  async handle(query: URLSearchParams, cookies = ''): Promise<Response> {
    const [id, secret] = splitState(query.get('state') ?? '');
    const entry = this.#pending.get(id);
    if (!entry) {
      return page(
        400,
        'Sign-in failed',
        'This redirect matches no sign-in in progress (unknown or expired state). Start again from your MCP client.',
      );
    }
    this.#pending.delete(id);
    let outcome: RedirectOutcome;
    const held = cookieOf(cookies, cookieName(id));
    if (!sameSecret(secret, entry.secret)) {
      outcome = {
        error:
          'the redirect carried a state that does not match the one the bridge sent (a forged or mixed-up redirect); the sign-in was aborted and its code not used',
      };
    } else if (entry.holder === undefined || held === undefined || !sameSecret(held, entry.holder)) {
      outcome = {
        error:
          "the redirect came to a browser that did not open this sign-in's link (the link may have been passed on); the sign-in was aborted and its code not used",
      };
    } else if (query.get('error')) {
      const description = query.get('error_description');
      outcome = {
        error: `the authorization server answered ${query.get('error')}${description ? `: ${description}` : ''}`,
      };
    } else if (query.get('code')) {
      outcome = { code: query.get('code') as string };
    } else {
      outcome = { error: 'the redirect carried neither a code nor an error' };
    }
    try {
      await entry.handle(outcome);
    } catch (error) {
      return page(400, 'Sign-in failed', error instanceof Error ? error.message : String(error));
    }
    return page(
      200,
      'Signed in',
      'You are signed in. You can close this window and return to your MCP client.',
    );
  }

  /** Stops the loopback listener, if one was opened. */
  async close(): Promise<void> {
    const loopback = await this.#loopback?.catch(() => undefined);
    if (loopback) await new Promise((resolve) => loopback.server.close(resolve));
    this.#pending.clear();
    this.#tokens.clear();
  }

  #path(): string {
    return this.#configured ? new URL(this.#configured).pathname : CALLBACK_PATH;
  }

  async #listen(): Promise<{ server: Server; uri: string }> {
    const fixed = this.#configured ? new URL(this.#configured) : undefined;
    // Loaded here: a bridge on stdio that never signs in never loads Node's HTTP server.
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      // Joined to the origin as text: a target such as `//evil.example/x` stays a path of this origin.
      const full = `http://127.0.0.1${req.url ?? '/'}`;
      const url = URL.canParse(full) ? new URL(full) : null;
      let answer: Promise<Response>;
      try {
        answer =
          (url && req.method === 'GET' ? this.#answer(url, req.headers.cookie ?? '') : undefined) ??
          Promise.resolve(page(404, 'Not found', 'This listener only serves sign-ins.'));
      } catch (error) {
        answer = Promise.reject(error);
      }
      // Whatever a browser (or anything else on this machine) sends, the bridge goes on serving.
      answer
        .then(async (response) => {
          res.writeHead(response.status, [...response.headers].flat());
          res.end(await response.text());
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
    // A listener waiting for a browser must not keep the process alive after the transport ends.
    server.unref();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(fixed?.port || 0), '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    return { server, uri: this.#configured ?? `http://127.0.0.1:${port}${CALLBACK_PATH}` };
  }
}

function splitState(state: string): [string, string] {
  const dot = state.indexOf('.');
  return dot < 0 ? [state, ''] : [state.slice(0, dot), state.slice(dot + 1)];
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieName(id: string): string {
  return `bridge_sign_in_${id}`;
}

function cookieOf(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function token(): string {
  return randomBytes(16).toString('base64url');
}

// The confirmation link of the browser holding `cookie`: only that browser can send both.
function confirmationToken(id: string, cookie: string): string {
  return createHash('sha256').update(`${id}.${cookie}`).digest('base64url');
}

// No caching, no referrer (the pages' URLs carry secrets), and never inside another site's frame
// (a confirmation button must not be clicked through an overlay).
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

function page(
  status: number,
  title: string,
  text: string,
  extra: { link?: { href: string; text: string }; headers?: Record<string, string> } = {},
): Response {
  const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const link = extra.link
    ? `<p><a href="${escapeHtml(extra.link.href)}">${escapeHtml(extra.link.text)}</a></p>`
    : '';
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${link}</body></html>`;
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS, ...extra.headers },
  });
}
