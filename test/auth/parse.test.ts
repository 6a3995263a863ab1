import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authConfigSchema, authFlagsFromConfig } from '../../src/auth/auth-config.js';
import { challengeResponse } from '../../src/auth/challenge.js';
import { resourceMetadataUrl } from '../../src/auth/resource-metadata.js';
import { parseToolScopes } from '../../src/auth/scopes.js';
import { parseStaticTokens, staticTokenVerifier } from '../../src/auth/static-tokens.js';
import { bearerToken } from '../../src/auth/token-verifier.js';

describe('static token lists', () => {
  it('reads TOKEN [SUBJECT [SCOPES]] entries, comments and ";" separators', () => {
    const tokens = parseStaticTokens(
      '# ops\nabc123 alice read,write  # admin\n\nxyz789; q1w2e3 ci *',
      'test',
    );
    const digest = createHash('sha256').update('xyz789').digest('hex').slice(0, 8);
    expect(tokens).toEqual([
      { token: 'abc123', subject: 'alice', scopes: ['read', 'write'] },
      { token: 'xyz789', subject: `token-${digest}` },
      { token: 'q1w2e3', subject: 'ci' },
    ]);
  });

  it('refuses duplicates, extra fields and characters a bearer header cannot carry, without quoting the token', () => {
    expect(() => parseStaticTokens('same1\nsame1', 'file t')).toThrow(
      'file t, entry 2: the same token is listed twice',
    );
    expect(() => parseStaticTokens('tok a b c', 'file t')).toThrow('found 4 fields');
    const bad = () => parseStaticTokens('se"cret', 'file t');
    expect(bad).toThrow('a token may contain only');
    expect(bad).not.toThrow('se"cret');
  });

  it('grants every scope to a token listed without scopes', async () => {
    const verifier = staticTokenVerifier(parseStaticTokens('abc123 alice', 't'), () => [
      'read',
      'write',
      'admin',
    ]);
    expect(await verifier.verify('abc123', 'https://h/mcp')).toMatchObject({
      ok: true,
      authInfo: { clientId: 'alice', scopes: ['read', 'write', 'admin'], extra: { subject: 'alice' } },
    });
    expect(await verifier.verify('abc124', 'https://h/mcp')).toMatchObject({ ok: false });
  });
});

describe('headers and URLs', () => {
  it('extracts a bearer token case-insensitively and rejects malformed ones', () => {
    expect(bearerToken('Bearer abc.def-ghi_~+/==')).toEqual({ token: 'abc.def-ghi_~+/==' });
    expect(bearerToken('bearer   abc')).toEqual({ token: 'abc' });
    expect(bearerToken(null)).toEqual({});
    expect(bearerToken('Bearer a b').malformed).toBeTruthy();
    expect(bearerToken('Bearer "abc"').malformed).toBeTruthy();
  });

  it('places the metadata document before the resource path (RFC 9728 §3.1)', () => {
    expect(resourceMetadataUrl('https://h.example/mcp')).toBe(
      'https://h.example/.well-known/oauth-protected-resource/mcp',
    );
    expect(resourceMetadataUrl('https://h.example/')).toBe(
      'https://h.example/.well-known/oauth-protected-resource',
    );
    expect(resourceMetadataUrl('https://h.example:8443/a/b/')).toBe(
      'https://h.example:8443/.well-known/oauth-protected-resource/a/b',
    );
  });

  it('escapes quotes in challenge parameters and omits the error code when no token was sent', async () => {
    const refused = challengeResponse(
      { status: 403, error: 'insufficient_scope', description: 'needs "write"', scopes: ['write', 'admin'] },
      'https://h/.well-known/oauth-protected-resource/mcp',
    );
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", error_description="needs \\"write\\"", scope="write admin", ' +
        'resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"',
    );
    const anonymous = challengeResponse({ status: 401, description: 'no token' }, 'https://h/m');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://h/m"');
  });

  it('parses --tool-scope values', () => {
    expect(parseToolScopes(['purge=admin,write', 'open='])).toEqual({ purge: ['admin', 'write'], open: [] });
    expect(() => parseToolScopes(['=admin'])).toThrow('--tool-scope expects TOOL=SCOPE');
  });
});

describe('the server.auth config section', () => {
  it('maps onto the flags, command-line flags winning, a relative token file resolved', () => {
    const config = authConfigSchema().parse({
      mode: 'token',
      tokensFile: 'tokens.txt',
      scopes: { read: '', tools: { purge: ['admin', 'write'] } },
      authorizationServers: ['https://as.example'],
    });
    expect(authFlagsFromConfig(config, { 'scope-read': 'r' }, '/srv/bridge')).toEqual({
      auth: 'token',
      'auth-tokens-file': '/srv/bridge/tokens.txt',
      'authorization-server': ['https://as.example'],
      'scope-read': 'r',
      'tool-scope': ['purge=admin,write'],
    });
    expect(() => authConfigSchema().parse({ tokens: ['inline-secret'] })).toThrow();
  });
});
