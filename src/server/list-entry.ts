import type { Tool } from '@modelcontextprotocol/server';
import type { RegisteredTool } from '../registry.js';

/**
 * A tool as `tools/list` carries it: the one builder, shared by the server and `bridge inspect`
 * (whose token estimate must count exactly what clients receive). The title goes once, at the top
 * level: since 2025-06-18 clients display `title` before `annotations.title` (the SDKs'
 * `getDisplayName`: title → annotations.title → name), so a copy in the annotations only cost bytes
 * (~60 kB over GitHub's 1,223 tools). Clients of a revision before 2025-06-18, which know only
 * `annotations.title`, get the title there instead (`titleIn: 'annotations'`). The annotations keep
 * all four hints. A change to what this takes from a definition bumps `LISTED_JSON_FORMAT`.
 */
export function listEntry(tool: RegisteredTool, titleIn: 'top' | 'annotations' = 'top'): Tool {
  const { definition } = tool;
  const entry: Tool = {
    name: tool.name,
    description: definition.description,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    annotations:
      titleIn === 'annotations' && definition.title
        ? { ...definition.annotations, title: definition.title }
        : definition.annotations,
  };
  if (definition.title && titleIn === 'top') entry.title = definition.title;
  if (definition.outputSchema) entry.outputSchema = definition.outputSchema as Tool['outputSchema'];
  if (definition.taskSupport && definition.taskSupport !== 'forbidden') {
    entry.execution = { taskSupport: definition.taskSupport };
  }
  return entry;
}
