import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';

/**
 * The streams of a request that a caller could hold open for long, counted per caller (see
 * `HttpLimits.maxStreamsPerCaller`): a 2026-07-28 `subscriptions/listen` (one per listen request
 * of the body) and an initialize-era GET (a session's stream of server messages, or the replay of
 * one), which have no end of their own and so are also closed after a lifetime
 * (`HttpLimits.streamLifetimeMs`; clients open them again); and an initialize-era `tasks/result`,
 * which waits for its task's end (within the task's time to live).
 */
export function longStreamsOf(
  method: string | undefined,
  requests: ReadonlyArray<{ id: string | number; method: string }>,
): { count: number; endless: boolean; listenIds: Array<string | number> } {
  if (method === 'GET') return { count: 1, endless: true, listenIds: [] };
  const listenIds = requests
    .filter((request) => request.method === 'subscriptions/listen')
    .map((request) => request.id);
  const waits = requests.filter((request) => request.method === 'tasks/result').length;
  return { count: listenIds.length + waits, endless: listenIds.length > 0, listenIds };
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
