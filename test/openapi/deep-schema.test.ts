import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { excessiveDepth } from '../../src/index.js';
import { tempDir } from '../config/helpers.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

// A spec's schemas, defaults and examples nest as deep as its author likes. A tool listed deeper
// than 128 levels would fail a client's parser (Python's json stops near 1,000) on the whole
// tools/list: such an operation is not served, and the others are, in a list within the limit.
const LEVELS = 1_200;

function nestedSchema(levels: number): object {
  let schema: object = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

function operation(id: string, extra: object): object {
  return { operationId: id, responses: { '200': { description: 'ok' } }, ...extra };
}

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'deep', version: '1' },
  servers: [{ url: 'http://127.0.0.1:9' }],
  paths: {
    '/shallow': { get: operation('shallow', {}) },
    '/deep-default': {
      get: operation('deepDefault', {
        parameters: [
          {
            name: 'x',
            in: 'query',
            schema: { type: 'array', default: JSON.parse(`${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`) },
          },
        ],
      }),
    },
    '/deep-body': {
      post: operation('deepBody', {
        requestBody: { content: { 'application/json': { schema: nestedSchema(LEVELS / 2) } } },
      }),
    },
  },
};

describe('a spec nested deeper than the bridge lists', () => {
  it('serves its other operations in a tools/list within 128 levels, and says which it left out', async () => {
    await using dir = await tempDir();
    await writeFile(dir.file('deep.json'), JSON.stringify(SPEC));
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['openapi', dir.file('deep.json'), '--tools', 'all', '--no-cache'],
    });
    const list = await modernRequest(bridge.url, 'tools/list', {});
    expect(excessiveDepth(list.text)).toBeUndefined();
    const names = ((list.json?.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toEqual(['shallow']);
    for (const id of ['deepDefault', 'deepBody']) {
      expect(bridge.stderr()).toContain(
        `(${id}) cannot be served: its input schema nests arrays and objects deeper than 128 levels`,
      );
    }
  });
});
