import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoOf, firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { PNG, startUpstream, type Upstream } from './helpers/upstream.js';

// Which calls the bridge repeats, when, and what it sends again, against a real upstream on
// 127.0.0.1 that fails a keyed route a set number of times. Time is asserted only as lower bounds
// (a retry must not come before the server allowed it), never as upper bounds.
let upstream: Upstream;
let api: LoadedTools;

beforeAll(async () => {
  upstream = await startUpstream();
  api = await loadTools({ spec: 'retries.yaml', baseUrl: upstream.url, tools: 'all', retries: 2 });
});
afterAll(async () => {
  await api?.close();
  await upstream?.close();
});

/** What the upstream received for `key`, in order. */
function seen(key: string) {
  return upstream.requests.filter((r) => new URL(r.url, 'http://x').searchParams.get('key') === key);
}

/** Milliseconds between consecutive hits of `key`. */
function gaps(key: string): number[] {
  const times = upstream.arrivals.get(key) ?? [];
  return times.slice(1).map((time, i) => time - (times[i] as number));
}

describe('which calls are retried', () => {
  it.each(['getFlaky', 'headFlaky', 'optionsFlaky', 'putFlaky', 'deleteFlaky'])(
    'retries %s (an idempotent method) on 503 until it succeeds',
    async (tool) => {
      const key = `method-${tool}`;
      const result = await api.call(tool, { key, failures: 2 });
      expect(result.isError).toBeFalsy();
      expect(upstream.hits.get(key)).toBe(3);
    },
  );

  it.each(['postFlaky', 'patchFlaky'])('never retries %s, even on 503 with Retry-After: 0', async (tool) => {
    const key = `method-${tool}`;
    const result = await api.call(tool, { key, failures: 1, body: { note: 'once' } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('HTTP 503');
    expect(upstream.hits.get(key)).toBe(1);
  });

  it.each([429, 502, 503, 504])('retries on HTTP %i', async (status) => {
    const key = `status-${status}`;
    const result = await api.call('getFlaky', { key, failures: 2, status });
    expect(result.isError).toBeFalsy();
    expect(upstream.hits.get(key)).toBe(3);
  });

  it.each([400, 404, 500, 501])(
    'does not retry HTTP %i: repeating it would get the same answer',
    async (status) => {
      const key = `status-${status}`;
      const result = await api.call('getFlaky', { key, failures: 1, status });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain(`HTTP ${status}`);
      expect(upstream.hits.get(key)).toBe(1);
    },
  );

  it('retries a GET whose connection is reset without an answer, then succeeds', async () => {
    const result = await api.call('getFlaky', { key: 'reset-get', failures: 2, fail: 'reset' });
    expect(result.isError).toBeFalsy();
    expect(upstream.hits.get('reset-get')).toBe(3);
  });

  it('does not retry a POST whose connection is reset: the upstream may have acted on it', async () => {
    const result = await api.call('postFlaky', { key: 'reset-post', failures: 1, fail: 'reset', body: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/connection to http:\/\/127\.0\.0\.1:\d+ failed/);
    expect(upstream.hits.get('reset-post')).toBe(1);
  });
});

describe('when a retry is sent', () => {
  it('waits the Retry-After seconds the server asked for', async () => {
    const result = await api.call('getFlaky', { key: 'after-seconds', failures: 1, retryAfter: '1' });
    expect(result.isError).toBeFalsy();
    expect(gaps('after-seconds')[0]).toBeGreaterThanOrEqual(950);
  });

  it('waits until a Retry-After HTTP date', async () => {
    // The date has whole seconds: two seconds ahead is at least one second away.
    const result = await api.call('getFlaky', { key: 'after-date', failures: 1, retryAfter: 'date:2' });
    expect(result.isError).toBeFalsy();
    expect(upstream.hits.get('after-date')).toBe(2);
    expect(gaps('after-date')[0]).toBeGreaterThanOrEqual(950);
  });

  it('does not retry early when the server asks for more than the 30 s cap: its answer goes back', async () => {
    const result = await api.call('getFlaky', { key: 'after-hour', failures: 1, retryAfter: '3600' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/HTTP 503.*retry later \(Retry-After: 3600\)/s);
    expect(upstream.hits.get('after-hour')).toBe(1);
  });

  it('backs off exponentially without Retry-After', async () => {
    const tools = await loadTools({ spec: 'retries.yaml', baseUrl: upstream.url, tools: 'all', retries: 3 });
    try {
      const result = await tools.call('getFlaky', { key: 'backoff', failures: 3, retryAfter: 'none' });
      expect(result.isError).toBeFalsy();
      expect(upstream.hits.get('backoff')).toBe(4);
      // 200 ms doubling, jittered by ±25 %: each wait is at least 3/4 of 200, 400, 800 ms.
      const [first, second, third] = gaps('backoff') as [number, number, number];
      expect(first).toBeGreaterThanOrEqual(145);
      expect(second).toBeGreaterThanOrEqual(295);
      expect(third).toBeGreaterThanOrEqual(595);
    } finally {
      await tools.close();
    }
  });
});

describe('what ends the retries', () => {
  it('stops waiting for a retry as soon as the client cancels, without another attempt', async () => {
    const controller = new AbortController();
    const pending = api.call(
      'getFlaky',
      { key: 'cancel-wait', failures: 1, retryAfter: '20' },
      controller.signal,
    );
    await until(() => upstream.hits.get('cancel-wait') === 1);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('cancelled');
    expect(upstream.hits.get('cancel-wait')).toBe(1);
  });

  it('stops backing off after a connection reset as soon as the client cancels', async () => {
    // Ten retries back off for minutes in all: the call can only end early by honouring the cancel.
    const tools = await loadTools({ spec: 'retries.yaml', baseUrl: upstream.url, tools: 'all', retries: 10 });
    try {
      const controller = new AbortController();
      const args = { key: 'cancel-backoff', failures: 20, fail: 'reset' };
      const pending = tools.call('getFlaky', args, controller.signal);
      await until(() => upstream.hits.get('cancel-backoff') === 1);
      controller.abort();
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('cancelled');
      expect(upstream.hits.get('cancel-backoff')).toBeLessThan(11);
    } finally {
      await tools.close();
    }
  });

  it('counts the waits against the call time limit and reports the attempts actually made', async () => {
    const tools = await loadTools({
      spec: 'retries.yaml',
      baseUrl: upstream.url,
      tools: 'all',
      retries: 2,
      timeoutMs: 400,
    });
    try {
      const result = await tools.call('getFlaky', { key: 'deadline-wait', failures: 1, retryAfter: '20' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/did not answer within 400 ms; retrying may help/);
      expect(upstream.hits.get('deadline-wait')).toBe(1);
    } finally {
      await tools.close();
    }
  });
});

describe('what a retry sends', () => {
  it('sends the same JSON body on every attempt of a PUT', async () => {
    const result = await api.call('putFlaky', { key: 'replay-json', failures: 2, body: { note: 'same' } });
    expect(echoOf(result).body).toBe('{"note":"same"}');
    const bodies = seen('replay-json').map((r) => r.body.toString());
    expect(bodies).toEqual(['{"note":"same"}', '{"note":"same"}', '{"note":"same"}']);
  });

  it('sends the same multipart bytes, boundary included, on every attempt', async () => {
    const result = await api.call('putFlakyForm', {
      key: 'replay-form',
      failures: 2,
      body: { file: PNG.toString('base64'), caption: 'tiny' },
    });
    expect(result.isError).toBeFalsy();
    const attempts = seen('replay-form');
    expect(attempts).toHaveLength(3);
    const [first, ...rest] = attempts;
    expect(first?.body.includes(PNG)).toBe(true);
    for (const again of rest) {
      expect(again.headers['content-type']).toBe(first?.headers['content-type']);
      expect(again.body.equals(first?.body as Buffer)).toBe(true);
    }
  });
});

/** Resolves once `condition` holds, checking every 10 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
