import { uniqueToolNames } from '../../src/index.js';
import type { OperationInfo } from './list-operations.js';
import { isObject } from './resolve-ref.js';

/**
 * The name an operation asks for: its `x-mcp.name`, else its operationId, else method and path
 * (`GET /pets/{petId}` → `get_pets_petId`). Words are never abbreviated; a name over 64 characters
 * keeps its leading whole words plus a short hash (see the core's `sanitizeToolName`).
 */
function rawToolName(operation: OperationInfo): string {
  const extension = operation.operation['x-mcp'];
  if (isObject(extension) && typeof extension.name === 'string' && extension.name.trim() !== '') {
    return extension.name.trim();
  }
  if (operation.operationId) return operation.operationId;
  const path = operation.path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/[{}]/g, ''))
    .join('_');
  return path === '' ? operation.method : `${operation.method}_${path}`;
}

/**
 * Valid, unique names for `operations`, in their order. Operations arrive sorted by path and
 * method, so a duplicate operationId gets the same `_2` suffix however the spec is ordered.
 */
export function nameTools(operations: readonly OperationInfo[]): string[] {
  return uniqueToolNames(operations.map(rawToolName));
}
