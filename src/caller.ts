import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';

/**
 * Who made a request, for binding stored pages, tasks and sessions to their owner.
 *
 * - `auth:<subject>`: an authenticated subject (bearer token, JWT `sub`, or the identity header of
 *   a trusted reverse proxy). Everything it creates is listed back to it on any connection.
 * - `session:<id>`: an initialize-era HTTP session without authentication.
 * - `local`: the one client of a stdio process.
 * - `anonymous`: a 2026-07-28 HTTP request without any identity. Such requests are not one shared
 *   caller: nothing is ever listed to them ({@link mayList}), so what one request created is
 *   reachable only by presenting its unguessable id (a page URI, a task id).
 */
export type Caller = string;

/** The caller of a 2026-07-28 HTTP request that carries no identity (see {@link Caller}). */
export const ANONYMOUS_CALLER = 'anonymous';

/** Who is calling behind `ctx`: the authenticated subject, the session, stdio, or anonymous HTTP. */
export function callerOf(ctx: ServerContext): Caller {
  const auth = ctx.http?.authInfo;
  if (auth) return callerOfAuth(auth);
  if (ctx.sessionId) return sessionCaller(ctx.sessionId);
  // An HTTP request without identity or session: each request stands for itself.
  if (ctx.http?.req) return ANONYMOUS_CALLER;
  return 'local';
}

/** The caller of an initialize-era session without authentication: what it creates is its own. */
export function sessionCaller(sessionId: string): Caller {
  return `session:${sessionId}`;
}

/** The caller of an HTTP request without a session: its authenticated subject, or anonymous. */
export function callerOfAuth(auth: AuthInfo | undefined): Caller {
  return auth ? `auth:${String(auth.extra?.subject ?? auth.clientId)}` : ANONYMOUS_CALLER;
}

/**
 * Whether `caller` may list what it owns (`resources/list`, `tasks/list`). Anonymous HTTP requests
 * may not: they cannot tell each other apart, so a listing would show one user another's outputs.
 */
export function mayList(caller: Caller): boolean {
  return caller !== ANONYMOUS_CALLER;
}

// Set by the HTTP layer before a request reaches the server; the SDK hands handlers the `Request`
// (`ctx.http.req`) but nothing of the connection it came on, so the peer's key travels beside it.
const quotaKeys = new WeakMap<Request, string>();

/** Records whose quotas `request` counts against (the HTTP layer's `Admission.quotaKey`). */
export function bindQuotaKey(request: Request, quotaKey: string): void {
  quotaKeys.set(request, quotaKey);
}

/**
 * Whose quotas the request behind `ctx` counts against: tasks running and kept, bytes of paged
 * output. Owning (`callerOf`: who may read, list, cancel) and counting differ for anonymous HTTP:
 * an initialize-era session owns what it creates, but counts against its peer address (an IPv6
 * address by its /64), as the calls cap does, so that opening more sessions buys no more room; an
 * anonymous 2026-07-28 request counts against its address too, not against one quota that every
 * anonymous client would share. An authenticated caller counts against itself, stdio is `local`.
 */
export function quotaKeyOf(ctx: ServerContext): string {
  const request = ctx.http?.req;
  return (request && quotaKeys.get(request)) ?? callerOf(ctx);
}
