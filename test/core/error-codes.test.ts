// One error vocabulary: the task layer's refusals are BridgeErrors with a code, and one table says
// which JSON-RPC error each code becomes on the wire.
import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { BridgeError, JSON_RPC_ERROR_CODES } from '../../src/index.js';
import { wireError } from '../../src/tasks/task-call.js';
import { TaskAlreadyFinishedError, TaskTtlError } from '../../src/tasks/task-runner.js';
import { InvalidCursorError, TaskStoreFullError } from '../../src/tasks/task-store.js';

describe('BridgeError codes on the wire', () => {
  it('turns each task refusal into the JSON-RPC error its code names', () => {
    const cases: Array<[BridgeError, string, number]> = [
      [new TaskTtlError('Invalid task ttl'), 'invalid_params', -32602],
      [new TaskAlreadyFinishedError('already completed'), 'invalid_params', -32602],
      [new InvalidCursorError('Invalid cursor'), 'invalid_params', -32602],
      [new TaskStoreFullError('too many running tasks'), 'capacity', -32603],
    ];
    for (const [error, code, wire] of cases) {
      expect(error).toBeInstanceOf(BridgeError);
      expect(error.code).toBe(code);
      const sent = wireError(error);
      expect(sent).toBeInstanceOf(ProtocolError);
      expect(sent).toMatchObject({ code: wire, message: expect.stringContaining(error.message) });
    }
  });

  it('leaves anything that is not a BridgeError to the SDK', () => {
    const plain = new Error('boom');
    expect(wireError(plain)).toBe(plain);
  });

  it('gives every code an entry: invalid requests -32602, failures -32603', () => {
    expect(JSON_RPC_ERROR_CODES).toEqual({
      invalid_input: -32602,
      invalid_arguments: -32602,
      invalid_params: -32602,
      load_failed: -32603,
      upstream_failed: -32603,
      aborted: -32603,
      timeout: -32603,
      capacity: -32603,
      declined: -32603,
      unavailable: -32603,
      internal: -32603,
    });
  });
});
