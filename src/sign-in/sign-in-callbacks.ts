import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The path of the OAuth redirect endpoint, on the bridge's HTTP server or its loopback listener. */
export const CALLBACK_PATH = '/oauth/callback';

/** What a sign-in does with the redirect it was waiting for; a throw shows on the page as a failure. */
export type RedirectHandler = (outcome: RedirectOutcome) => Promise<void>;

/** The redirect, judged: a code to exchange, or why the sign-in failed. */
export type RedirectOutcome = { code: string } | { error: string };

/**
 * Receives OAuth redirects (`/oauth/callback?code=…&state=…`) for the upstream sign-ins in progress
 * and hands each to the sign-in whose `state` it carries. One per running bridge: over HTTP the
 * bridge's own server routes the path here (see `route`); over stdio a loopback listener on
 * 127.0.0.1 is opened on first use (RFC 8252 §7.3: authorization servers accept any loopback port
 * for a native client's redirect URI).
 *
 * A state is `<id>.<secret>`: a redirect naming a known id with the wrong secret is a forged or
 * mixed-up redirect, and aborts that sign-in rather than leaving it waiting.
 */
export class SignInCallbacks {
  readonly #pending = new Map<string, { secret: string; handle: RedirectHandler }>();
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

  /** Waits for the redirect carrying `state` (`<id>.<secret>`); returns a function that stops waiting. */
  expect(state: string, handle: RedirectHandler): () => void {
    const [id, secret] = splitState(state);
    this.#pending.set(id, { secret, handle });
    return () => {
      if (this.#pending.get(id)?.handle === handle) this.#pending.delete(id);
    };
  }

  /** The `routes` hook of the HTTP handler: answers the callback path, passes everything else. */
  route = async (request: Request, url: URL): Promise<Response | undefined> => {
    if (url.pathname !== this.#path() || request.method !== 'GET') return undefined;
    return this.handle(url.searchParams);
  };

  /** Answers one redirect with a page for the user's browser. */
  async handle(query: URLSearchParams): Promise<Response> {
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
    if (!sameSecret(secret, entry.secret)) {
      outcome = {
        error:
          'the redirect carried a state that does not match the one the bridge sent (a forged or mixed-up redirect); the sign-in was aborted and its code not used',
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
  }

  #path(): string {
    return this.#configured ? new URL(this.#configured).pathname : CALLBACK_PATH;
  }

  async #listen(): Promise<{ server: Server; uri: string }> {
    const fixed = this.#configured ? new URL(this.#configured) : undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const answer =
        url.pathname === this.#path() && req.method === 'GET'
          ? this.handle(url.searchParams)
          : Promise.resolve(page(404, 'Not found', 'This listener only receives sign-in redirects.'));
      void answer.then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(await response.text());
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

function page(status: number, title: string, text: string): Response {
  const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
  });
}
