import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { BridgeError, inside, quote, realOrSelf } from '../../src/index.js';
import type { CommandSpec, OptionSpec } from './cli-spec.js';
import { percentDecoded } from './percent-decoded.js';

/** What a source refuses, decided once at start-up from the flags and the overlay. */
export interface Policy {
  allow: string[] | undefined;
  deny: string[];
  /** Offered only when `allow` names them. */
  hidden: string[];
  /** Long option names (no dashes) or `-x` spellings. */
  dangerousOptions: string[];
  /** Dangerous options the user allowed with `--allow-option`. */
  allowedOptions: string[];
  /** Values refused in every argument, each with what a refusal says (the overlay's reason). */
  dangerousValues: DangerousValue[];
  /** Real paths of the directories `cwd` may point into. */
  roots: string[];
}

/** Whether `pattern` (`config`, `config view`, `config/view`) names `path` or one of its parents. */
function names(pattern: string, path: readonly string[]): boolean {
  const words = pattern.trim().split(/[\s/]+/);
  return words.length <= path.length && words.every((word, index) => word === path[index]);
}

/** A pattern of values refused everywhere, and why, in words a user or a model can act on. */
export interface DangerousValue {
  regex: RegExp;
  /** What is refused and why (`ext:: URLs are refused: the ext transport runs a command`). */
  reason: string;
}

/** An overlay's `dangerousValues` as the policy holds them; a bare pattern is named by its place. */
export function dangerousValuesOf(
  entries: ReadonlyArray<string | { pattern: string; reason: string }>,
): DangerousValue[] {
  return entries.map((entry, index) =>
    typeof entry === 'string'
      ? {
          regex: new RegExp(entry, 'i'),
          reason: `this program's overlay refuses such values (its dangerousValues entry ${index + 1})`,
        }
      : { regex: new RegExp(entry.pattern, 'i'), reason: entry.reason },
  );
}

/** Whether a subcommand is offered: named by `--allow` when given, not hidden otherwise, never denied. */
export function isCommandOffered(path: readonly string[], policy: Policy): boolean {
  if (path.some((word) => word.includes('--'))) return false; // git's internal helpers (add--interactive)
  if (policy.deny.some((pattern) => names(pattern, path))) return false;
  if (policy.allow) return policy.allow.some((pattern) => names(pattern, path));
  return !policy.hidden.some((pattern) => names(pattern, path));
}

/**
 * Whether an option is dangerous: its long name or short spelling is listed, or, `spelled` out in
 * a value, it is an abbreviation getopt or git would expand to a listed name (`--out` for
 * `--output`, `--upload` for `--upload-pack`). An option the program lists is itself, never an
 * abbreviation: tar's `--checkpoint` is not `--checkpoint-action`.
 */
export function isDangerousOption(
  option: Pick<OptionSpec, 'name' | 'flag'>,
  policy: Policy,
  spelled = false,
): boolean {
  const spellings = [option.name, option.flag.replace(/^-+/, ''), option.flag];
  const hit = policy.dangerousOptions.find((dangerous) => matchesDangerous(spellings, dangerous, spelled));
  if (!hit) return false;
  return !policy.allowedOptions.some((allowed) =>
    matchesDangerous(spellings, allowed.replace(/^--/, ''), spelled),
  );
}

function matchesDangerous(spellings: string[], dangerous: string, abbreviated: boolean): boolean {
  if (dangerous.startsWith('-') && !dangerous.startsWith('--')) return spellings.includes(dangerous);
  const long = dangerous.replace(/^--/, '');
  return spellings.some(
    (spelling) =>
      !spelling.startsWith('-') &&
      (spelling === long || (abbreviated && spelling.length >= 3 && long.startsWith(spelling))),
  );
}

/**
 * Checks one argument value. Operands may not start with `-` (they would be read as options);
 * no value may be a dangerous option spelled out (`--upload-pack=…`, `--out=…`, `-c x=y`) or match
 * a dangerous pattern (git: `ext::` URLs). Returns why it is refused, or undefined.
 */
export function refuseValue(
  value: string,
  where: string,
  kind: 'operand' | 'option',
  policy: Policy,
): string | undefined {
  if (value.includes('\0')) return `${where} contains a NUL byte`;
  if (kind === 'operand' && value.startsWith('-')) {
    return `${where} is ${quote(value)}, which starts with "-" and would be read as an option; pass options through their own typed arguments`;
  }
  const trimmed = value.trimStart();
  if (trimmed.startsWith('-')) {
    const spelled = /^(-{1,2}[^=\s]+)/.exec(trimmed)?.[1] ?? trimmed;
    const asOption = { name: spelled.replace(/^-+/, ''), flag: spelled };
    if (
      spelled.startsWith('--')
        ? isDangerousOption(asOption, policy, true)
        : policy.dangerousOptions.includes(spelled)
    ) {
      return `${where} spells out the dangerous option "${spelled}", which is not allowed`;
    }
  }
  // Programs decode what they parse as URLs (`ssh://%2DoProxyCommand=…`): matched both ways.
  const decoded = percentDecoded(value);
  const hit = policy.dangerousValues.find(
    ({ regex }) => regex.test(value) || (decoded !== value && regex.test(decoded)),
  );
  if (hit) return `${where} is ${quote(value)}: ${hit.reason}`;
  return undefined;
}

/**
 * Resolves the `cwd` argument and checks it stays inside one of the allowed roots, after following
 * symbolic links (a link inside a root pointing outside it is refused). When the client offers MCP
 * roots, `cwd` must also be inside one of them, and it defaults to the first client root that lies
 * inside the allowed roots; otherwise it defaults to the first allowed root.
 */
export function resolveCwd(cwd: string | undefined, policy: Policy, clientRoots?: readonly string[]): string {
  const client = clientRoots && clientRoots.length > 0 ? clientRoots.map(realOrSelf) : undefined;
  const base = client
    ? client.find((root) => policy.roots.some((allowed) => inside(root, allowed)))
    : policy.roots[0];
  if (base === undefined) {
    throw new BridgeError(
      'invalid_arguments',
      `none of the client's roots (${client?.join(', ')}) is inside the allowed roots: ${policy.roots.join(', ')} (set with --root)`,
    );
  }
  if (cwd === undefined || cwd === '') return base;
  const wanted = isAbsolute(cwd) ? cwd : resolve(base, cwd);
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    throw new BridgeError(
      'invalid_arguments',
      `cwd ${quote(cwd)} does not exist (resolved to ${quote(wanted)})`,
    );
  }
  if (!policy.roots.some((root) => inside(real, root))) {
    throw new BridgeError(
      'invalid_arguments',
      `cwd ${quote(cwd)} is outside the allowed roots; allowed: ${policy.roots.join(', ')} (set with --root)`,
    );
  }
  if (client && !client.some((root) => inside(real, root))) {
    throw new BridgeError(
      'invalid_arguments',
      `cwd ${quote(cwd)} is outside the client's roots; allowed: ${client.join(', ')}`,
    );
  }
  return real;
}

/** The options of a command minus the dangerous ones, with the names of those removed. */
export function safeOptions(
  command: CommandSpec,
  policy: Policy,
): { options: OptionSpec[]; removed: string[] } {
  const options: OptionSpec[] = [];
  const removed: string[] = [];
  for (const option of command.options) {
    if (isDangerousOption(option, policy)) removed.push(option.flag);
    else options.push(option);
  }
  return { options, removed };
}
