import { BridgeError } from '../../src/index.js';
import type { OperationInfo } from './list-operations.js';
import { isObject } from './resolve-ref.js';

/**
 * A filter as written on the command line or in the config file:
 * `tag:NAME`, `method:GET`, `path:/repos/**` (or any pattern starting with `/`), or an operationId
 * (`*` allowed). Path globs: `*` matches within one segment, `**` across segments.
 */
type OperationFilter = string;

type Matcher = (operation: OperationInfo) => boolean;

/** Parses one filter; throws `invalid_input` naming it when it is malformed. */
function parseFilter(filter: OperationFilter, flag = '--include'): Matcher {
  const colon = filter.indexOf(':');
  const kind = colon > 0 ? filter.slice(0, colon).toLowerCase() : '';
  const value = colon > 0 ? filter.slice(colon + 1) : filter;
  if (value === '') throw new BridgeError('invalid_input', `${flag} "${filter}": the pattern is empty`);
  switch (kind) {
    case 'tag': {
      const tag = value.toLowerCase();
      return (operation) => operation.tags.some((t) => t.toLowerCase() === tag);
    }
    case 'method': {
      const method = value.toLowerCase();
      return (operation) => operation.method === method;
    }
    case 'path':
      return pathMatcher(value);
    case 'operationid':
    case 'operation':
      return idMatcher(value);
    case '':
      return value.startsWith('/') ? pathMatcher(value) : idMatcher(value);
    default:
      throw new BridgeError(
        'invalid_input',
        `${flag} "${filter}": unknown kind "${kind}"; use tag:NAME, method:GET, path:/glob or an operationId`,
      );
  }
}

/**
 * Keeps the operations that match an include (all, when there is none) and no exclude, and are not
 * hidden by their `x-mcp: { exclude: true }` extension.
 */
export function filterOperations(
  operations: OperationInfo[],
  include: readonly OperationFilter[] = [],
  exclude: readonly OperationFilter[] = [],
): OperationInfo[] {
  const includes = include.map((f) => parseFilter(f, '--include'));
  const excludes = exclude.map((f) => parseFilter(f, '--exclude'));
  return operations.filter((operation) => {
    const extension = operation.operation['x-mcp'];
    if (isObject(extension) && extension.exclude === true) return false;
    if (includes.length > 0 && !includes.some((match) => match(operation))) return false;
    return !excludes.some((match) => match(operation));
  });
}

function pathMatcher(glob: string): Matcher {
  const pattern = globToRegExp(glob, '[^/]*');
  return (operation) => pattern.test(operation.path);
}

function idMatcher(glob: string): Matcher {
  const pattern = globToRegExp(glob, '.*');
  return (operation) => operation.operationId !== undefined && pattern.test(operation.operationId);
}

function globToRegExp(glob: string, star: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += star;
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
