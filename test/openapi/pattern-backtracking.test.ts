import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream } from './helpers/upstream.js';

// A spec's parameter with a common "words" pattern that backtracks exponentially: 30 characters
// that do not match took the bridge 26 s, with every other call of every client waiting on it.
describe('a spec pattern that backtracks without end', () => {
  it('refuses the argument within a bound, sends nothing, and serves the next calls', async () => {
    await using upstream = await startUpstream();
    await using dir = await tempDir();
    const spec = dir.file('spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'words', version: '1' },
        paths: {
          '/users': {
            get: {
              operationId: 'findUsers',
              parameters: [
                { name: 'name', in: 'query', schema: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
              ],
              responses: { '200': { description: 'ok' } },
            },
          },
          '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } },
        },
      }),
    );
    await using client = await connect('v2', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--base-url', upstream.url, '--no-cache'],
    });
    const [refused, ping] = await Promise.all([
      client.callTool('findUsers', { name: `${'a'.repeat(40)}!` }),
      client.callTool('ping', {}),
    ]);
    expect(refused.isError).toBe(true);
    expect(String(refused.content[0]?.text)).toContain(
      'could not be checked against the pattern "^(\\w+\\s?)*$" within 250 ms',
    );
    expect(ping.isError).toBeFalsy();
    expect(upstream.requests.map((request) => request.url)).toEqual(['/v1/ping']);
    // A value the pattern decides quickly is still checked and sent.
    const found = await client.callTool('findUsers', { name: 'ok' });
    expect(found.isError).toBeFalsy();
    expect(upstream.requests.at(-1)?.url).toBe('/v1/users?name=ok');
  });
});
