import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../adapters/openapi/authenticate.js';
import { listOperations } from '../../adapters/openapi/list-operations.js';
import { loadDocument } from '../../adapters/openapi/load-document.js';
import {
  type OperationTool,
  operationsToTools,
  serverFields,
} from '../../adapters/openapi/operations-to-tools.js';
import { HttpSender } from '../../adapters/openapi/send-request.js';
import { FIXTURES } from './helpers/in-process.js';

// A server in dynamic mode keeps its operation tools for its whole life: once every operation is
// converted (in the background, for the conversion cache), they must not keep the parsed spec alive.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef is held until the current job ends: let it end, then collect.
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  return ref.deref() === undefined;
}

// Loads the spec in a frame of its own, so that only the tools (and the WeakRef) remain.
async function load(sender: HttpSender): Promise<{ tools: OperationTool[]; spec: WeakRef<object> }> {
  const loaded = await loadDocument(join(FIXTURES, 'api-3.0.yaml'), FIXTURES);
  const tools = operationsToTools(listOperations(loaded.document, loaded.version), {
    loaded,
    servers: serverFields(loaded),
    sender,
    auth: new Authenticator({}, {}, 1_000),
    headers: {},
    timeoutMs: 1_000,
    retries: 0,
    relaxOutput: false,
    forwardAuth: false,
  });
  return { tools, spec: new WeakRef(loaded.document) };
}

describe('the parsed spec', () => {
  it('is held while an operation is unconverted, and released after the last one', async () => {
    const sender = new HttpSender();
    const { tools, spec } = await load(sender);
    expect(tools.length).toBeGreaterThan(3);
    const [last, ...rest] = tools.reverse() as [OperationTool, ...OperationTool[]];
    for (const tool of rest) tool.data();
    expect(await collected(spec)).toBe(false);
    expect('data' in last.data()).toBe(true);
    expect(await collected(spec)).toBe(true);
    // Converted tools still build and describe themselves without it.
    for (const tool of tools) expect(tool.definition().inputSchema).toBeDefined();
    await sender.close();
  });
});
