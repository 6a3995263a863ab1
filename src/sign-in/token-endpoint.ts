import { createHash, randomBytes } from 'node:crypto';
import { clipText } from '../clip-text.js';
import { mebibytes } from '../count-of.js';
import { MAX_AUTH_RESPONSE_BYTES, readResponseText } from '../read-response-body.js';

/** Tokens of one signed-in caller. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** When to stop using the access token: 30 s before the server said it expires. */
  expiresAt: number;
}

/** A client of an authorization server, as the user registered the bridge there. */
export interface OAuthClient {
  tokenUrl: string;
  clientId: string;
  /** Confidential clients authenticate with `client_secret_basic`; public ones send `client_id`. */
  clientSecret?: string;
  timeoutMs: number;
  /** How token requests are sent (an adapter's, with its address checks); the global `fetch` by default. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Exchanges an authorization code (RFC 6749 §4.1.3, with the PKCE verifier). */
export function exchangeCode(
  client: OAuthClient,
  code: string,
  redirectUri: string,
  verifier: string,
  signal?: AbortSignal,
): Promise<TokenSet> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  return tokenRequest(client, form, undefined, signal);
}

/** Uses a refresh token (RFC 6749 §6); keeps the old refresh token when no new one is issued. */
export function refreshTokens(
  client: OAuthClient,
  refreshToken: string,
  signal?: AbortSignal,
): Promise<TokenSet> {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
  return tokenRequest(client, form, refreshToken, signal);
}

/** Characters quoted of a token endpoint's refusal. */
const REASON_CHARS = 300;

async function tokenRequest(
  client: OAuthClient,
  form: URLSearchParams,
  previousRefresh: string | undefined,
  signal: AbortSignal | undefined,
): Promise<TokenSet> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.clientSecret !== undefined) {
    const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
  }
  const timeout = AbortSignal.timeout(client.timeoutMs);
  const response = await (client.fetch ?? fetch)(client.tokenUrl, {
    method: 'POST',
    headers,
    body: form.toString(),
    redirect: 'error',
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const text = await readResponseText(
    response,
    MAX_AUTH_RESPONSE_BYTES,
    () =>
      new Error(
        `the token endpoint ${client.tokenUrl} answered with more than ${mebibytes(MAX_AUTH_RESPONSE_BYTES)}`,
      ),
  );
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    // `null`, a number or a list is no token answer either: reported below as text.
    if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>;
  } catch {
    // Reported below with the status and the start of the body.
  }
  if (!response.ok || typeof json.access_token !== 'string') {
    // Its start: the reason goes into a tool's result and the sign-in page, and an OAuth error's
    // fields are as long as the server made them.
    const reason =
      typeof json.error === 'string'
        ? `${json.error}${typeof json.error_description === 'string' ? `: ${json.error_description}` : ''}`
        : text;
    throw new Error(
      `the token endpoint ${client.tokenUrl} answered HTTP ${response.status}: ${clipText(reason, REASON_CHARS)}`,
    );
  }
  const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 3600;
  const refresh = typeof json.refresh_token === 'string' ? json.refresh_token : previousRefresh;
  return {
    accessToken: json.access_token,
    ...(refresh ? { refreshToken: refresh } : {}),
    expiresAt: Date.now() + Math.max(0, lifetime - 30) * 1000,
  };
}
