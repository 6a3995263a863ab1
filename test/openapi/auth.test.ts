import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerFlags } from '../../src/index.js';
import { echoOf, firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// Every security scheme of the fixture, with credentials from BRIDGE_<SCHEME>_* variables.
let upstream: Upstream;
let api: LoadedTools;
const saved = { ...process.env };

beforeAll(async () => {
  Object.assign(process.env, {
    BRIDGE_KEYHEADER_API_KEY: 'key-h',
    BRIDGE_KEYQUERY_API_KEY: 'key q&',
    BRIDGE_KEYCOOKIE_API_KEY: 'key-c',
    BRIDGE_BASIC_USERNAME: 'ann',
    BRIDGE_BASIC_PASSWORD: 'p:w',
    BRIDGE_CLIENTCREDS_CLIENT_ID: 'client-1',
    BRIDGE_CLIENTCREDS_CLIENT_SECRET: 'shh',
    TEST_STATIC_HEADER: 'from-env',
  });
  delete process.env.BRIDGE_BEARER_TOKEN;
  upstream = await startUpstream();
  api = await loadTools({
    spec: 'api-3.0.yaml',
    baseUrl: upstream.url,
    tools: 'all',
    // As `--header` flags give them: ${VAR} read once, when the flag is parsed.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    headers: headerFlags({ header: ['X-Static: ${TEST_STATIC_HEADER}', 'X-Plain: plain'] }),
  });
});
afterAll(async () => {
  await api?.close();
  await upstream?.close();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
});

describe('authentication from security schemes', () => {
  it('sends an API key in a header, the query or a cookie', async () => {
    expect(echoOf(await api.call('authKeyHeader')).headers['x-api-key']).toBe('key-h');
    expect(echoOf(await api.call('authKeyQuery')).url).toBe('/v1/auth/key-query?api_key=key%20q%26');
    expect(echoOf(await api.call('authKeyCookie')).headers.cookie).toBe('token=key-c');
  });

  it('sends HTTP basic credentials', async () => {
    const seen = echoOf(await api.call('authBasic'));
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from('ann:p:w').toString('base64')}`);
  });

  it('uses the first satisfiable alternative and names the variables when none is', async () => {
    expect(echoOf(await api.call('authEither')).headers['x-api-key']).toBe('key-h');
    const before = upstream.requests.length;
    await api.call('authBearer');
    const seen = upstream.requests[before];
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('gets an OAuth2 client-credentials token, caches it, and refreshes it when revoked', async () => {
    const first = echoOf(await api.call('authOauth'));
    expect(first.headers.authorization).toBe('Bearer token-1-items.read');
    await api.call('authOauth');
    expect(upstream.tokens).toHaveLength(1);
    // Another client of the token endpoint makes our token stale: the upstream answers 401.
    upstream.tokens.push('token-elsewhere');
    const refreshed = await api.call('authOauth');
    expect(refreshed.isError).toBeFalsy();
    expect(echoOf(refreshed).headers.authorization).toBe('Bearer token-3-items.read');
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names the adapter's ${VAR} syntax
  it('sends static headers, with ${VAR} read from the environment', async () => {
    const seen = echoOf(await api.call('authKeyHeader'));
    expect(seen.headers['x-static']).toBe('from-env');
    expect(seen.headers['x-plain']).toBe('plain');
  });
});

describe("the MCP client's Authorization header", () => {
  it('is never sent upstream by default', async () => {
    const seen = echoOf(await api.call('getItem', { itemId: '1' }, undefined, 'Bearer client-token'));
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('is forwarded with forwardAuth', async () => {
    await using forwarding = await disposable(
      loadTools({ spec: 'api-3.0.yaml', baseUrl: upstream.url, tools: 'all', forwardAuth: true }),
    );
    const seen = echoOf(await forwarding.call('getItem', { itemId: '1' }, undefined, 'Bearer client-token'));
    expect(seen.headers.authorization).toBe('Bearer client-token');
  });
});

async function disposable(promise: Promise<LoadedTools>) {
  const tools = await promise;
  return Object.assign(tools, { [Symbol.asyncDispose]: () => tools.close() });
}

describe('missing credentials', () => {
  it('says which variable to set when the upstream answers 401', async () => {
    await using bare = await loadWithoutOauth();
    const result = await bare.call('authOauth');
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('BRIDGE_CLIENTCREDS_CLIENT_ID');
  });
});

async function loadWithoutOauth() {
  const id = process.env.BRIDGE_CLIENTCREDS_CLIENT_ID;
  delete process.env.BRIDGE_CLIENTCREDS_CLIENT_ID;
  const tools = await loadTools({ spec: 'api-3.0.yaml', baseUrl: upstream.url, tools: 'all' });
  return Object.assign(tools, {
    [Symbol.asyncDispose]: async () => {
      process.env.BRIDGE_CLIENTCREDS_CLIENT_ID = id;
      await tools.close();
    },
  });
}
