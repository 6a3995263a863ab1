import { describe, expect, it } from 'vitest';
import { withConfirmation } from '../../src/ask/confirm-call.js';
import { copyDefinition, keepListedJson, listedJsonOf } from '../../src/listed-json.js';
import { type ToolDefinition, textResult } from '../../src/tool.js';

// A copy made to rename or wrap a tool must neither read a lazily parsed definition (the OpenAPI
// conversion cache parses a tool's members on first read) nor list stale text for changed members.

function lazyTool(): { tool: ToolDefinition; reads: () => number } {
  let reads = 0;
  const members = {
    title: 'T',
    description: 'D',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
  const read = () => {
    reads++;
    return members;
  };
  const tool = {
    name: 'lazy',
    get title() {
      return read().title;
    },
    get description() {
      return read().description;
    },
    get inputSchema() {
      return read().inputSchema;
    },
    get annotations() {
      return read().annotations;
    },
    invoke: async () => textResult('ran'),
  } as ToolDefinition;
  keepListedJson(tool, Buffer.from(JSON.stringify(members)));
  return { tool, reads: () => reads };
}

describe('copyDefinition', () => {
  it('renames without reading the members, and keeps the listed text', () => {
    const { tool, reads } = lazyTool();
    const copy = copyDefinition(tool, { name: 'ns_lazy' });
    expect(reads()).toBe(0);
    expect(copy.name).toBe('ns_lazy');
    expect(listedJsonOf(copy)).toBe(listedJsonOf(tool));
    expect(copy.description).toBe('D');
    expect(tool.name).toBe('lazy');
  });

  it('drops the listed text when a listed member changes', () => {
    const { tool } = lazyTool();
    expect(listedJsonOf(copyDefinition(tool, { description: 'new' }))).toBeUndefined();
    expect(listedJsonOf(copyDefinition(tool, { title: 'new' }))).toBeUndefined();
    expect(listedJsonOf(copyDefinition(tool, { annotations: { ...tool.annotations } }))).toBeUndefined();
    expect(listedJsonOf(copyDefinition(tool, { taskSupport: 'optional' }))).toBeDefined();
  });

  it('a confirmation wrapper reads nothing when it is off, and keeps the text when it is on', async () => {
    const { tool, reads } = lazyTool();
    expect(withConfirmation(tool, 'never', 'refuse')).toBe(tool);
    expect(reads()).toBe(0);
    const wrapped = withConfirmation(tool, 'always', 'refuse');
    expect(wrapped).not.toBe(tool);
    expect(listedJsonOf(wrapped)).toBe(listedJsonOf(tool));
    expect(wrapped.invoke).not.toBe(tool.invoke);
  });
});
