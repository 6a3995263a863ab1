import type { Logger } from '../../src/index.js';
import type { OperationInfo } from './list-operations.js';
import { isObject, type Json } from './resolve-ref.js';

/** What a config file may say about one operation: the same fields as the `x-mcp` extension. */
export interface OperationOverride {
  name?: string;
  title?: string;
  description?: string;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  timeoutMs?: number;
  exclude?: boolean;
}

/**
 * Merges config-file overrides into the operations' `x-mcp` extensions (the config wins), keyed by
 * operationId or by `METHOD /path`. The spec itself is left untouched: an overridden operation gets
 * a shallow copy. An override that matches nothing is reported, since it is most likely a typo.
 */
export function applyOverrides(
  operations: OperationInfo[],
  overrides: Record<string, OperationOverride> | undefined,
  log: Logger,
): OperationInfo[] {
  if (!overrides || Object.keys(overrides).length === 0) return operations;
  const used = new Set<string>();
  const result = operations.map((info) => {
    const keys = [info.operationId, `${info.method.toUpperCase()} ${info.path}`].filter(
      (key): key is string => key !== undefined && Object.hasOwn(overrides, key),
    );
    if (keys.length === 0) return info;
    let extension: Json = isObject(info.operation['x-mcp']) ? { ...info.operation['x-mcp'] } : {};
    for (const key of keys) {
      used.add(key);
      const override = overrides[key] as OperationOverride;
      const annotations = {
        ...(isObject(extension.annotations) ? extension.annotations : {}),
        ...override.annotations,
      };
      extension = { ...extension, ...override, annotations };
    }
    return { ...info, operation: { ...info.operation, 'x-mcp': extension } };
  });
  for (const key of Object.keys(overrides)) {
    if (!used.has(key))
      log.warn(`override "${key}" matches no operation (use an operationId or "GET /path")`);
  }
  return result;
}
