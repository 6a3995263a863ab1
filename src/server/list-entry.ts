import type { Tool } from '@modelcontextprotocol/server';
import type { RegisteredTool } from '../registry.js';

/**
 * A tool as `tools/list` carries it: the one builder, shared by the server and `bridge inspect`
 * (whose token estimate must count exactly what clients receive). The title goes both at the top
 * level (2025-06-18 and later) and in the annotations (where 2025-03-26 clients read it).
 */
export function listEntry(tool: RegisteredTool): Tool {
  const { definition } = tool;
  const entry: Tool = {
    name: tool.name,
    description: definition.description,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    annotations: { ...definition.annotations, ...(definition.title ? { title: definition.title } : {}) },
  };
  if (definition.title) entry.title = definition.title;
  if (definition.outputSchema) entry.outputSchema = definition.outputSchema as Tool['outputSchema'];
  if (definition.taskSupport && definition.taskSupport !== 'forbidden') {
    entry.execution = { taskSupport: definition.taskSupport };
  }
  return entry;
}
