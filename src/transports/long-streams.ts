import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';

/**
 * The streams that have no end of their own: a 2026-07-28 `subscriptions/listen` (one per listen
 * request of the body) and an initialize-era GET (a session's stream of server messages, or the
 * replay of one). They are what a caller could hold open forever, so they are counted per caller
 * and closed after a lifetime (see `HttpLimits.streamLifetimeMs`); clients open them again.
 */
export function longStreamsOf(
  method: string | undefined,
  requests: ReadonlyArray<{ id: string | number; method: string }>,
): { count: number; listenIds: Array<string | number> } {
  if (method === 'GET') return { count: 1, listenIds: [] };
  const listenIds = requests
    .filter((request) => request.method === 'subscriptions/listen')
    .map((request) => request.id);
  return { count: listenIds.length, listenIds };
}

/**
 * The last event of a listen stream the server ends: the listen request's result, the spec's
 * graceful close (the SDK's listen router ends its streams the same way), so the client knows it
 * was not cut off and may listen again.
 */
export function listenEnded(id: string | number): string {
  const result = { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id } };
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
}
