import { InitializeRequestSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { plainInitializeRequest } from '../../src/server/plain-initialize.js';

// Which initialize requests the stdio lane answers itself: exactly those the SDK's schema accepts
// and gives on unchanged (or, for an empty `elicitation`, reshaped as the schema reshapes it). The
// server is then initialized with what the SDK would have given it: compared with the schema here.

const request = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'initialize',
  params,
  ...extra,
});
const clientInfo = { name: 'client', version: '1.0.0' };

describe('a plain initialize request', () => {
  it.each([
    ['no capabilities', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo }],
    ['an unknown protocol version', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo }],
    ['roots', { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } }, clientInfo }],
    [
      'empty roots and sampling',
      { protocolVersion: '2025-03-26', capabilities: { roots: {}, sampling: {} }, clientInfo },
    ],
    ['empty elicitation', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo }],
    [
      'elicitation modes',
      { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} } }, clientInfo },
    ],
    [
      'a described client',
      {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: {
          ...clientInfo,
          title: 'Client',
          websiteUrl: 'https://example.com',
          description: 'A client.',
        },
      },
    ],
  ])('with %s: taken, with the params the SDK schema gives', (_, params) => {
    const taken = plainInitializeRequest(request(params));
    const parsed = InitializeRequestSchema.parse(request(params));
    expect(taken).toEqual({ id: 7, params: parsed.params });
  });

  it.each([
    ['a _meta', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo, _meta: {} }],
    ['icons', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { ...clientInfo, icons: [] } }],
    ['task capabilities', { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo }],
    [
      'experimental capabilities',
      { protocolVersion: '2025-11-25', capabilities: { experimental: {} }, clientInfo },
    ],
    ['an unknown capability', { protocolVersion: '2025-11-25', capabilities: { other: {} }, clientInfo }],
    [
      'sampling options',
      { protocolVersion: '2025-11-25', capabilities: { sampling: { tools: {} } }, clientInfo },
    ],
    [
      'roots of the wrong type',
      { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: 1 } }, clientInfo },
    ],
    [
      'an elicitation option',
      { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: { x: 1 } } }, clientInfo },
    ],
    ['no client version', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c' } }],
    ['a numeric protocol version', { protocolVersion: 20251125, capabilities: {}, clientInfo }],
    ['no capabilities member', { protocolVersion: '2025-11-25', clientInfo }],
  ])('with %s: left to the SDK', (_, params) => {
    expect(plainInitializeRequest(request(params))).toBeUndefined();
  });

  it('is a whole JSON-RPC request with an id', () => {
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo };
    expect(plainInitializeRequest(request(params, { id: null }))).toBeUndefined();
    expect(plainInitializeRequest(request(params, { extra: 1 }))).toBeUndefined();
    expect(plainInitializeRequest(request(params, { jsonrpc: '1.0' }))).toBeUndefined();
    expect(plainInitializeRequest({ ...request(params), method: 'ping' })).toBeUndefined();
    expect(plainInitializeRequest(request(params, { id: 'a' }))?.id).toBe('a');
  });
});
