import { BridgeError } from '../errors.js';
import type { ToolAnnotations } from '../tool.js';

/** What the scope policy needs to know of a tool. */
export interface ScopedTool {
  name: string;
  annotations: Pick<ToolAnnotations, 'readOnlyHint'>;
}

export interface ScopePolicyOptions {
  /** Scope that read-only tools need; `''` lets any authenticated caller run them. Default `read`. */
  read?: string;
  /** Scope that every other tool needs; it also satisfies `read`. Default `write`. */
  write?: string;
  /** Per-tool overrides: tool name → the scopes it needs (all of them; empty = none). */
  tools?: Record<string, string[]>;
}

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Which OAuth scopes a `tools/call` needs. Defaults come from the annotations: a read-only tool
 * needs the read scope, anything else the write scope; per-tool overrides replace the default.
 * The write scope implies the read scope: the MCP authorization spec asks servers to honour scope
 * hierarchies, and a token that may change things should not be refused a lookup.
 */
export class ScopePolicy {
  readonly read: string;
  readonly write: string;
  readonly #tools: ReadonlyMap<string, readonly string[]>;

  constructor(options: ScopePolicyOptions = {}) {
    this.read = checkScope(options.read ?? 'read', '--scope-read', true);
    this.write = checkScope(options.write ?? 'write', '--scope-write', false);
    this.#tools = new Map(
      Object.entries(options.tools ?? {}).map(([tool, scopes]) => [
        tool,
        scopes.map((scope) => checkScope(scope, `--tool-scope ${tool}`, false)),
      ]),
    );
  }

  /** The scopes calling `tool` needs (empty: none). */
  required(tool: ScopedTool): readonly string[] {
    const override = this.#tools.get(tool.name);
    if (override) return override;
    if (tool.annotations.readOnlyHint) return this.read ? [this.read] : [];
    return [this.write];
  }

  /** The required scopes that `granted` does not cover, honouring write ⊇ read. */
  missing(required: readonly string[], granted: readonly string[]): string[] {
    const have = new Set(granted);
    if (have.has(this.write) && this.read) have.add(this.read);
    return required.filter((scope) => !have.has(scope));
  }

  /** Every scope the server understands, for `scopes_supported` and "all scopes" tokens. */
  supported(): string[] {
    const all = new Set<string>();
    if (this.read) all.add(this.read);
    all.add(this.write);
    for (const scopes of this.#tools.values()) for (const scope of scopes) all.add(scope);
    return [...all];
  }

  /** The scope to suggest in a `401` challenge: the least a client needs to do anything useful. */
  baseline(): string[] {
    return this.read ? [this.read] : [];
  }
}

/** Parses `--tool-scope NAME=SCOPE[,SCOPE…]` values into the `tools` option. */
export function parseToolScopes(values: readonly string[]): Record<string, string[]> {
  const tools: Record<string, string[]> = {};
  for (const value of values) {
    const equals = value.indexOf('=');
    const name = value.slice(0, equals).trim();
    if (equals <= 0 || !name) {
      throw new BridgeError(
        'invalid_input',
        `--tool-scope expects TOOL=SCOPE[,SCOPE…] (e.g. delete_repo=admin), got "${value}"`,
      );
    }
    tools[name] = value
      .slice(equals + 1)
      .split(/[,\s]+/)
      .filter(Boolean);
  }
  return tools;
}

function checkScope(scope: string, flag: string, mayBeEmpty: boolean): string {
  if (scope === '' && mayBeEmpty) return scope;
  if (!SCOPE_TOKEN.test(scope)) {
    throw new BridgeError(
      'invalid_input',
      `${flag} expects an OAuth scope name (printable ASCII, no spaces, quotes or backslashes), got "${scope}"`,
    );
  }
  return scope;
}
