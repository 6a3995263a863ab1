import type { SpecVersion } from './load-document.js';
import { deref, isObject, type Json } from './resolve-ref.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof METHODS)[number];

/** One operation of the spec, with what was inherited from its path item. */
export interface OperationInfo {
  method: HttpMethod;
  path: string;
  operationId?: string;
  tags: string[];
  summary?: string;
  description?: string;
  deprecated: boolean;
  /** The operation object as written. */
  operation: Json;
  /** Path-level parameters (the operation's own override them by name + location). */
  pathParameters: unknown[];
  /** `servers` of the operation or its path item (OpenAPI 3), when given. */
  servers?: unknown[];
}

/**
 * Lists every operation in a stable order (path, then method as OpenAPI lists them), so that
 * naming and collision suffixes do not depend on how the spec happens to be ordered.
 */
export function listOperations(document: Json, _version: SpecVersion): OperationInfo[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: OperationInfo[] = [];
  for (const path of Object.keys(paths).sort()) {
    let item: Json;
    try {
      item = deref(document, paths[path]);
    } catch {
      continue;
    }
    if (!isObject(item)) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const info: OperationInfo = {
        method,
        path,
        tags: Array.isArray(operation.tags)
          ? operation.tags.filter((t): t is string => typeof t === 'string')
          : [],
        deprecated: operation.deprecated === true,
        operation,
        pathParameters,
      };
      if (typeof operation.operationId === 'string' && operation.operationId.trim() !== '') {
        info.operationId = operation.operationId.trim();
      }
      const summary = operation.summary ?? item.summary;
      if (typeof summary === 'string' && summary.trim() !== '') info.summary = summary.trim();
      const description = operation.description ?? item.description;
      if (typeof description === 'string' && description.trim() !== '') info.description = description.trim();
      const servers = Array.isArray(operation.servers) ? operation.servers : item.servers;
      if (Array.isArray(servers) && servers.length > 0) info.servers = servers;
      operations.push(info);
    }
  }
  return operations;
}
