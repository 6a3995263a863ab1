import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { dropEncodingAdvice, SENT_ENCODED } from '../../adapters/openapi/drop-boilerplate.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream } from './helpers/upstream.js';

// GitHub's `environment_name` says "The name must be URL encoded. For example, any slashes in the
// name must be replaced with `%2F`." The bridge encodes path values itself, so a model that did as
// told would send `staging%2Feu`, encoded again to `staging%252Feu`: another environment. The
// advice goes, and the value as given reaches the API encoded once.

const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

describe('advice to URL-encode a value the bridge encodes', () => {
  it('is replaced by "give it as it is", sentence by sentence', () => {
    expect(
      dropEncodingAdvice(
        'The name of the environment. The name must be URL encoded. For example, any slashes in the name must be replaced with `%2F`.',
      ),
    ).toBe(`The name of the environment. ${SENT_ENCODED}`);
    expect(dropEncodingAdvice('A path, percent-encoded.')).toBe(SENT_ENCODED);
    expect(dropEncodingAdvice('The value must be URI-encoded.\n\nMax 100 characters.')).toBe(
      `Max 100 characters. ${SENT_ENCODED}`,
    );
    // Nothing about encoding for the caller to do: unchanged.
    expect(dropEncodingAdvice('The SHA-256 of the address, hex-encoded.')).toBe(
      'The SHA-256 of the address, hex-encoded.',
    );
  });

  it("GitHub's environment tools: no advice listed, and `staging/eu` reaches the API as staging%2Feu", async () => {
    await using upstream = await startUpstream();
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: [
        'openapi',
        GITHUB,
        '--tools',
        'all',
        '--include',
        'repos/get-environment',
        '--include',
        'actions/get-environment-secret',
        '--base-url',
        upstream.url,
        '--no-cache',
      ],
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'actions_get-environment-secret',
      'repos_get-environment',
    ]);
    for (const tool of tools) {
      const property = (tool.inputSchema as { properties: Record<string, { description?: string }> })
        .properties.environment_name;
      expect(property?.description).toBe(`The name of the environment. ${SENT_ENCODED}`);
    }
    const result = await client.callTool('repos_get-environment', {
      owner: 'octo',
      repo: 'app',
      environment_name: 'staging/eu',
    });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((request) => request.url)).toEqual([
      '/v1/repos/octo/app/environments/staging%2Feu',
    ]);
  });
});
