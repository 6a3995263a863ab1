import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browseSignIn, type CookieJar, openStartPage } from '../helpers/browse-sign-in.js';
import { type ClientOffer, connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN, type ServerCommand } from '../helpers/start-bridge.js';
import {
  type AuthorizationServer,
  type ProtectedApi,
  protectedApiSpec,
  startAuthorizationServer,
  startProtectedApi,
} from '../servers/oidc-server.js';

// Upstream sign-in end to end: a real authorization server (oidc-provider), an API that checks
// every bearer token by introspection, the bridge as a child process, and MCP clients that answer
// the URL elicitation by actually following the URL (log in, consent, redirect to the bridge).

let authorization: AuthorizationServer;
let api: ProtectedApi;
let dir: string;
let bridge: ServerCommand;

beforeAll(async () => {
  authorization = await startAuthorizationServer();
  api = await startProtectedApi(authorization);
  dir = mkdtempSync(join(tmpdir(), 'bridge-sign-in-'));
  const spec = join(dir, 'items.json');
  writeFileSync(spec, protectedApiSpec(api, authorization));
  bridge = {
    script: BRIDGE_BIN,
    args: ['openapi', spec],
    env: {
      BRIDGE_ITEMS_AUTH_CLIENT_ID: authorization.client.id,
      BRIDGE_ITEMS_AUTH_CLIENT_SECRET: authorization.client.secret,
    },
  };
});
afterAll(async () => {
  await api?.[Symbol.asyncDispose]();
  await authorization?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

type Page = { status: number; url: string; text: string; visited: string[] };

/** A client that answers the bridge's URL elicitation as a user would, in a browser, as `login`. */
function user(
  login: string,
  how: { action?: 'accept' | 'decline' | 'cancel'; deny?: boolean; tamper?: (redirect: URL) => URL } = {},
): ClientOffer & { asked: Array<Record<string, unknown>>; pages: Array<Promise<Page>> } {
  const asked: Array<Record<string, unknown>> = [];
  const pages: Array<Promise<Page>> = [];
  return {
    asked,
    pages,
    capabilities: { elicitation: { form: {}, url: {} } },
    async answer(_method, params) {
      asked.push(params);
      const action = how.action ?? 'accept';
      // The user agrees to open the page; the browser goes on while the client answers.
      if (action === 'accept') {
        const page = browseSignIn(String(params.url), {
          login,
          ...(how.deny ? { deny: true } : {}),
          ...(how.tamper ? { tamper: how.tamper } : {}),
        });
        page.catch(() => {});
        pages.push(page);
      }
      return { action };
    },
  };
}

const text = (result: { content: Array<Record<string, unknown>> }) => String(result.content[0]?.text);

// Anonymous 2026-07-28 HTTP requests have no identity to keep a token for: tested apart below.
const SIGNED_IN = MATRIX.filter(({ kind, wire }) => !(kind === 'v2' && wire === 'http'));

describe.each(SIGNED_IN)('upstream sign-in, $kind client over $wire', ({ kind, wire }) => {
  it('signs the user in through the URL, keeps the token, and refreshes it when the API rejects it', async () => {
    const alice = user('alice');
    await using client = await connect(kind, wire, bridge, alice);
    const before = api.requests.length;

    const first = await client.callTool('listMyItems');
    expect(first.isError).toBeFalsy();
    expect(text(first)).toContain('"owner":"alice"');
    expect(alice.asked).toHaveLength(1);
    const question = alice.asked[0] ?? {};
    expect(question.mode).toBe('url');
    // The client is sent the bridge's start page; its confirmation link leads to the authorization server.
    expect(String(question.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/start\?flow=[\w-]+$/);
    const landed = await alice.pages[0];
    const url = new URL(
      String(landed?.visited.find((href) => href.startsWith(`${authorization.issuer}/auth?`))),
    );
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('openid items:read');
    expect(url.searchParams.get('redirect_uri')).toBe(new URL('callback', String(question.url)).href);
    expect(landed?.status).toBe(200);
    expect(landed?.text).toContain('You are signed in');

    // The token is kept: no second question, the same token upstream.
    const second = await client.callTool('listMyItems');
    expect(text(second)).toContain('"owner":"alice"');
    expect(alice.asked).toHaveLength(1);
    const used = api.requests.slice(before);
    expect(used.map((r) => r.status)).toEqual([200, 200]);
    const token = used[0]?.token as string;
    expect(used[1]?.token).toBe(token);

    // The API now holds the token expired: the bridge refreshes it and retries, without asking.
    api.refuse(token);
    const third = await client.callTool('listMyItems');
    expect(third.isError).toBeFalsy();
    expect(text(third)).toContain('"owner":"alice"');
    expect(alice.asked).toHaveLength(1);
    const retried = api.requests.slice(before + 2);
    expect(retried.map((r) => r.status)).toEqual([401, 200]);
    expect(retried[1]?.token).not.toBe(token);
    expect((await authorization.introspect(retried[1]?.token as string)).sub).toBe('alice');
  });

  it('runs nothing upstream when the user declines or cancels, and keeps serving', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const nobody = user('nobody', { action });
      await using client = await connect(kind, wire, bridge, nobody);
      const before = api.requests.length;
      const result = await client.callTool('listMyItems');
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(
        `The user ${action === 'decline' ? 'declined' : 'cancelled'} signing in to security scheme "items_auth"`,
      );
      expect(api.requests.length).toBe(before);
      // Still serving: the next call asks again.
      await client.callTool('listMyItems');
      expect(nobody.asked).toHaveLength(2);
    }
  });

  it('reports a refusal by the authorization server, and runs nothing upstream', async () => {
    const refusing = user('carol', { deny: true });
    await using client = await connect(kind, wire, bridge, refusing);
    const before = api.requests.length;
    const result = await client.callTool('listMyItems');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the authorization server answered access_denied');
    expect(api.requests.length).toBe(before);
    expect((await refusing.pages[0])?.status).toBe(400);
  });

  it('aborts on a redirect whose state does not match, without using its code', async () => {
    const forged = user('mallory', {
      tamper: (redirect) => {
        const state = String(redirect.searchParams.get('state'));
        redirect.searchParams.set('state', `${state.split('.')[0]}.forged`);
        return redirect;
      },
    });
    await using client = await connect(kind, wire, bridge, forged);
    const before = api.requests.length;
    const result = await client.callTool('listMyItems');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('does not match the one the bridge sent');
    expect(api.requests.length).toBe(before);
    const page = await forged.pages[0];
    expect(page?.status).toBe(400);
    expect(page?.text).toContain('does not match');
    // A redirect for no sign-in at all is refused too, and the server goes on.
    // The callback is beside the start page the client was sent.
    const redirectUri = new URL('callback', String(forged.asked[0]?.url)).href;
    const stray = await fetch(`${redirectUri}?state=nobody.knows&code=stolen`);
    expect(stray.status).toBe(400);
    expect(await stray.text()).toContain('matches no sign-in in progress');
    expect(api.requests.length).toBe(before);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('listMyItems');
  });
});

// The attack: a caller of the bridge has someone else complete its sign-in, so that their upstream
// account serves the caller. The client is sent the bridge's start page, which the first browser
// holds; the redirect is accepted only in that browser.
describe.each(['stdio', 'http'] as const)(
  'a sign-in link passed on to someone else, v1 client over %s',
  (wire) => {
    /** A client whose answer hands the sign-in URL to `pass` (what mallory does with it). */
    function passing(pass: (startUrl: string) => Promise<Page | undefined>) {
      const pages: Array<Promise<Page | undefined>> = [];
      const offer: ClientOffer = {
        capabilities: { elicitation: { form: {}, url: {} } },
        async answer(_method, params) {
          const page = pass(String(params.url));
          page.catch(() => {});
          pages.push(page);
          return { action: 'accept' };
        },
      };
      return { offer, pages };
    }

    it('is refused when the sender opened it first: the redirect in another browser is not used', async () => {
      const mallory: CookieJar = new Map();
      let asked = 0;
      const { offer, pages } = passing(async (startUrl) => {
        // Only the first question is passed on; a later one is left unanswered.
        if (++asked > 1) return undefined;
        const authorizeUrl = await openStartPage(startUrl, mallory);
        // Victor, in his own browser, signs in at the authorization server's page mallory sent him.
        return browseSignIn(authorizeUrl, { login: 'victor' });
      });
      await using client = await connect('v1', wire, bridge, offer);
      const before = api.requests.length;
      const result = await client.callTool('listMyItems');
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("did not open this sign-in's link");
      const page = await pages[0];
      expect(page?.status).toBe(400);
      expect(page?.text).toContain('code not used');
      expect(api.requests.length).toBe(before);
      // Victor's account never landed on mallory's caller: her next call asks her to sign in again.
      await client.callTool('listMyItems', {}, { timeout: 1_000 }).catch(() => {});
      expect(asked).toBe(2);
      expect(api.requests.length).toBe(before);
    });

    it('opened in a second browser, says it was opened elsewhere; the first browser still completes it', async () => {
      const mallory: CookieJar = new Map();
      const refused: Page[] = [];
      const { offer } = passing(async (startUrl) => {
        await openStartPage(startUrl, mallory);
        const victor = await fetch(startUrl);
        refused.push({
          status: victor.status,
          url: startUrl,
          text: await victor.text(),
          visited: [startUrl],
        });
        // A confirmation link without the browser's cookie is refused too.
        const guessed = await fetch(`${startUrl}&go=guessed`, { redirect: 'manual' });
        refused.push({ status: guessed.status, url: startUrl, text: await guessed.text(), visited: [] });
        return browseSignIn(startUrl, { login: 'mallory', jar: mallory });
      });
      await using client = await connect('v1', wire, bridge, offer);
      const result = await client.callTool('listMyItems');
      expect(text(result)).toContain('"owner":"mallory"');
      expect(refused.map((page) => page.status)).toEqual([409, 409]);
      expect(refused[0]?.text).toContain('already continued in another browser');
    });

    it('opened but not gone on with (a link previewer), holds nothing: the user still signs in', async () => {
      const seen: Array<{ status: number; cookie: string | null }> = [];
      const { offer } = passing(async (startUrl) => {
        // A previewer fetches the page and never follows its link.
        const preview = await fetch(startUrl);
        const html = await preview.text();
        seen.push({ status: preview.status, cookie: preview.headers.get('set-cookie') });
        // Its confirmation link, taken to a browser without its cookie, is refused and holds nothing.
        const href = /<a href="([^"]+)">Continue to sign in<\/a>/.exec(html)?.[1] ?? '';
        const link = new URL(
          href.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
          startUrl,
        );
        const elsewhere = await fetch(link, { redirect: 'manual' });
        seen.push({ status: elsewhere.status, cookie: elsewhere.headers.get('set-cookie') });
        await elsewhere.text();
        return browseSignIn(startUrl, { login: 'mallory' });
      });
      await using client = await connect('v1', wire, bridge, offer);
      const result = await client.callTool('listMyItems');
      expect(text(result)).toContain('"owner":"mallory"');
      expect(seen.map((page) => page.status)).toEqual([200, 403]);
      expect(seen[0]?.cookie).toMatch(/HttpOnly/);
    });

    it('shows whoever opens it first which upstream and which caller it is for, in a page no site can frame', async () => {
      let shown: Response | undefined;
      let body = '';
      const { offer } = passing(async (startUrl) => {
        shown = await fetch(startUrl);
        body = await shown.text();
        return undefined;
      });
      await using client = await connect('v1', wire, bridge, offer);
      await client.callTool('listMyItems', {}, { timeout: 1_000 }).catch(() => {});
      expect(shown?.status).toBe(200);
      expect(body).toContain('security scheme');
      expect(body).toMatch(
        /for (the assistant running the bridge on this computer|an MCP session without authentication)/,
      );
      expect(body).toContain('if someone sent you this link, close this page');
      expect(shown?.headers.get('x-frame-options')).toBe('DENY');
      expect(shown?.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(shown?.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    });
  },
);

describe('upstream sign-in with BRIDGE_OAUTH_REDIRECT_URI', () => {
  it('sends that redirect URI and receives the redirect there', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const fixed = `http://127.0.0.1:${port}/oauth/callback`;
    const erin = user('erin');
    const command = { ...bridge, env: { ...bridge.env, BRIDGE_OAUTH_REDIRECT_URI: fixed } };
    await using client = await connect('v1', 'stdio', command, erin);
    expect(text(await client.callTool('listMyItems'))).toContain('"owner":"erin"');
    expect(String(erin.asked[0]?.url)).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/oauth/start\\?flow=`),
    );
    expect((await erin.pages[0])?.url).toMatch(new RegExp(`^${fixed}\\?`));
  });

  it('refuses to start when it is not a URL', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [bridge.script, ...bridge.args], {
      env: { ...process.env, ...bridge.env, BRIDGE_OAUTH_REDIRECT_URI: 'not a url' },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('BRIDGE_OAUTH_REDIRECT_URI is not a URL');
  });
});

describe('upstream sign-in, anonymous 2026-07-28 requests over HTTP', () => {
  it('are refused: a token kept for one anonymous request would serve every other', async () => {
    const mallory = user('mallory');
    await using client = await connect('v2', 'http', bridge, mallory);
    const before = api.requests.length;
    const result = await client.callTool('listMyItems');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('this request carries no identity');
    expect(text(result)).toContain('--auth');
    expect(mallory.asked).toHaveLength(0);
    expect(api.requests.length).toBe(before);
  });
});

describe('upstream sign-in, a client that cannot open URLs', () => {
  it('is told what to set instead, and nothing runs upstream', async () => {
    await using client = await connect('v1', 'stdio', bridge, {
      capabilities: { elicitation: { form: {} } },
    });
    const before = api.requests.length;
    const result = await client.callTool('listMyItems');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('needs a client that can open a URL');
    expect(text(result)).toContain('Set BRIDGE_ITEMS_AUTH_TOKEN');
    expect(api.requests.length).toBe(before);
  });
});

describe('upstream sign-in, two callers of one HTTP bridge', () => {
  it('makes each caller sign in for itself, and never lends one caller’s token to another', async () => {
    const { startHttpBridge } = await import('../helpers/start-bridge.js');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    await using server = await startHttpBridge(bridge);
    const session = async (offer: ReturnType<typeof user>) => {
      const client = new Client({ name: 'caller', version: '1.0.0' }, { capabilities: offer.capabilities });
      client.setRequestHandler(
        ElicitRequestSchema,
        async (request) =>
          (await offer.answer?.('elicitation/create', request.params, new AbortController().signal)) as never,
      );
      await client.connect(new StreamableHTTPClientTransport(server.url));
      return client;
    };
    const alice = user('alice');
    const bob = user('bob');
    const a = await session(alice);
    const b = await session(bob);
    try {
      const call = async (client: typeof a) =>
        text((await client.callTool({ name: 'listMyItems', arguments: {} })) as never);
      expect(await call(a)).toContain('"owner":"alice"');
      expect(await call(b)).toContain('"owner":"bob"');
      expect(await call(a)).toContain('"owner":"alice"');
      expect(await call(b)).toContain('"owner":"bob"');
      expect(alice.asked).toHaveLength(1);
      expect(bob.asked).toHaveLength(1);
      expect(alice.asked[0]?.url).not.toBe(bob.asked[0]?.url);
      // The server's log never shows a token.
      const tokens = api.requests.map((r) => r.token).filter(Boolean) as string[];
      for (const token of tokens) expect(server.stderr()).not.toContain(token);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('upstream sign-in for a GraphQL source', () => {
  it('signs the user in with the same settings, and refreshes a refused token', async () => {
    const sdl = join(dir, 'schema.graphql');
    writeFileSync(sdl, 'type Query { me: User }\ntype User { login: String }\n');
    const graphql = {
      script: BRIDGE_BIN,
      args: [
        'graphql',
        `${api.url}/graphql`,
        '--schema',
        sdl,
        '--oauth-authorization-url',
        `${authorization.issuer}/auth`,
        '--oauth-token-url',
        `${authorization.issuer}/token`,
        '--oauth-scope',
        'openid',
      ],
      env: {
        BRIDGE_GRAPHQL_CLIENT_ID: authorization.client.id,
        BRIDGE_GRAPHQL_CLIENT_SECRET: authorization.client.secret,
      },
    };
    const dana = user('dana');
    await using client = await connect('v1', 'stdio', graphql, dana);
    const name = (await client.listTools()).tools.find((tool) => tool.name.includes('me'))?.name as string;
    const before = api.requests.length;
    expect(text(await client.callTool(name))).toContain('"login":"dana"');
    expect(dana.asked).toHaveLength(1);
    api.refuse(api.requests[before]?.token as string);
    expect(text(await client.callTool(name))).toContain('"login":"dana"');
    expect(dana.asked).toHaveLength(1);
    expect(api.requests.slice(before).map((r) => r.status)).toEqual([200, 401, 200]);
  });
});

describe('upstream sign-in behind --auth, 2026-07-28 clients over HTTP', () => {
  it('keeps each authenticated subject’s token apart, and serves the callback without a bearer token', async () => {
    const { startHttpBridge } = await import('../helpers/start-bridge.js');
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    await using server = await startHttpBridge({
      ...bridge,
      args: [...bridge.args, '--auth-tokens-env', 'BRIDGE_TEST_TOKENS'],
      env: { ...bridge.env, BRIDGE_TEST_TOKENS: 'token-of-alice alice;token-of-bob bob' },
    });
    const caller = async (offer: ReturnType<typeof user>, bearer: string) => {
      const client = new Client(
        { name: 'caller', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: offer.capabilities },
      );
      client.setRequestHandler('elicitation/create', (async (request: { params?: unknown }) =>
        offer.answer?.(
          'elicitation/create',
          (request.params ?? {}) as Record<string, unknown>,
          new AbortController().signal,
        )) as never);
      await client.connect(
        new StreamableHTTPClientTransport(server.url, {
          requestInit: { headers: { authorization: `Bearer ${bearer}` } },
        }),
      );
      return client;
    };
    const alice = user('alice-upstream');
    const bob = user('bob-upstream');
    const a = await caller(alice, 'token-of-alice');
    const b = await caller(bob, 'token-of-bob');
    try {
      const call = async (client: typeof a) =>
        text((await client.callTool({ name: 'listMyItems', arguments: {} })) as never);
      expect(await call(a)).toContain('"owner":"alice-upstream"');
      expect(await call(b)).toContain('"owner":"bob-upstream"');
      expect(await call(a)).toContain('"owner":"alice-upstream"');
      expect(alice.asked).toHaveLength(1);
      expect(bob.asked).toHaveLength(1);
      // The browser reached /oauth/callback with no bearer token, and was answered.
      expect((await alice.pages[0])?.status).toBe(200);
      expect(new URL(String((await alice.pages[0])?.url)).pathname).toBe('/oauth/callback');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('upstream sign-in from a task, v1 client over stdio', () => {
  it('asks on tasks/result, waits for the redirect, and completes the task', async () => {
    const config = join(dir, 'bridge.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        sources: [
          {
            kind: 'openapi',
            options: { spec: join(dir, 'items.json') },
            tools: { listMyItems: { taskSupport: 'optional' } },
          },
        ],
      }),
    );
    const frank = user('frank');
    await using client = await connect(
      'v1',
      'stdio',
      { ...bridge, args: ['serve', config, '--no-watch'] },
      frank,
    );
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const messages: Array<Record<string, unknown>> = [];
    const stream = (client.raw as InstanceType<typeof Client>).experimental.tasks.callToolStream(
      { name: 'listMyItems', arguments: {} },
      undefined,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) messages.push(message as never);
    expect(messages[0]?.type).toBe('taskCreated');
    expect(messages.at(-1)).toMatchObject({ type: 'result' });
    const result = messages.at(-1)?.result as { content: Array<Record<string, unknown>> };
    expect(text(result)).toContain('"owner":"frank"');
    expect(frank.asked).toHaveLength(1);
    expect(frank.asked[0]?.mode).toBe('url');
  });
});

describe('upstream sign-in, concurrent calls of one caller', () => {
  it('share one sign-in: when the user declines it in one call, the other stops waiting too', async () => {
    const asked: Array<Record<string, unknown>> = [];
    let release = () => {};
    const bothAsked = new Promise<void>((resolve) => {
      release = resolve;
    });
    await using client = await connect('v1', 'stdio', bridge, {
      capabilities: { elicitation: { form: {}, url: {} } },
      async answer(_method, params) {
        asked.push(params);
        if (asked.length === 2) release();
        const mine = asked.length;
        await bothAsked;
        // The first question is declined; the second is accepted but nobody opens the page.
        return { action: mine === 1 ? 'decline' : 'accept' };
      },
    });
    const before = api.requests.length;
    const results = await Promise.all([client.callTool('listMyItems'), client.callTool('listMyItems')]);
    expect(asked.map((question) => question.url)).toEqual([asked[0]?.url, asked[0]?.url]);
    const texts = results.map(text).sort();
    expect(results.every((result) => result.isError)).toBe(true);
    expect(texts.some((t) => t.includes('The user declined signing in'))).toBe(true);
    expect(texts.some((t) => t.includes('failed: the user declined it'))).toBe(true);
    expect(api.requests.length).toBe(before);
  });
});

describe('a reload (the spec edited while serving)', () => {
  it('keeps the caller signed in: the rebuilt source finds its token', async () => {
    const spec = join(dir, 'reloaded.json');
    const document = JSON.parse(protectedApiSpec(api, authorization));
    writeFileSync(spec, JSON.stringify(document));
    const alice = user('alice');
    await using client = await connect('v1', 'stdio', { ...bridge, args: ['openapi', spec] }, alice);
    expect(text(await client.callTool('listMyItems'))).toContain('"owner":"alice"');
    expect(alice.asked).toHaveLength(1);

    document.paths['/me/items'].get.summary = 'Lists your items (edited)';
    writeFileSync(spec, JSON.stringify(document));
    for (let attempt = 0; ; attempt++) {
      const { tools } = await client.listTools();
      if (String(tools.find((tool) => tool.name === 'listMyItems')?.description).includes('edited')) break;
      if (attempt > 100) throw new Error(`the bridge did not reload: ${client.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const before = api.requests.length;
    const after = await client.callTool('listMyItems');
    expect(text(after)).toContain('"owner":"alice"');
    expect(alice.asked).toHaveLength(1);
    expect(api.requests.slice(before).map((request) => request.status)).toEqual([200]);
  });
});
