import type { ToolAnnotations } from '../../src/index.js';
import type { HttpMethod, OperationInfo } from './list-operations.js';
import { isObject } from './resolve-ref.js';

/**
 * What the HTTP method promises (RFC 9110 §9.2): safe methods only read, PUT and DELETE are
 * idempotent, PUT/PATCH/DELETE may overwrite or remove data, POST promises nothing.
 */
const BY_METHOD: Record<HttpMethod, Omit<ToolAnnotations, 'openWorldHint'>> = {
  get: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  head: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  options: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  trace: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  put: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  post: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
};

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * All four annotations of an operation: inferred from its method, then overridden by its
 * `x-mcp: { annotations: { readOnlyHint: true, … } }` extension (e.g. a POST search endpoint that
 * only reads).
 */
export function inferAnnotations(operation: OperationInfo): ToolAnnotations {
  const annotations: ToolAnnotations = { ...BY_METHOD[operation.method], openWorldHint: true };
  const extension = operation.operation['x-mcp'];
  const overrides = isObject(extension) && isObject(extension.annotations) ? extension.annotations : {};
  for (const hint of HINTS) {
    const value = overrides[hint];
    if (typeof value === 'boolean') annotations[hint] = value;
  }
  return annotations;
}
