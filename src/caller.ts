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
  if (ctx.sessionId) return `session:${ctx.sessionId}`;
  // An HTTP request without identity or session: each request stands for itself.
  if (ctx.http?.req) return ANONYMOUS_CALLER;
  return 'local';
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
