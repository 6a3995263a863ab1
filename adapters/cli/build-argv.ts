import { BridgeError, quote } from '../../src/index.js';
import { propertyOf } from './build-input-schema.js';
import { type Policy, refuseValue } from './check-policy.js';
import type { CliSpec, CommandSpec, OptionSpec } from './cli-spec.js';

/**
 * Turns validated tool arguments into an argv array:
 * `[globalArgs…, subcommand…, options…, <end of options>, operands…, '--', paths…]`.
 * Valued long options are one element (`--format=%h`), so a value can never become an option of
 * its own (a CLI that reads no `=`, `longValues: 'next'`, takes the next element as the value
 * whatever it is); operands starting with `-` and dangerous values are refused with the reason.
 */
export function buildArgv(
  cli: Pick<CliSpec, 'endOfOptions' | 'longValues'>,
  command: CommandSpec,
  options: OptionSpec[],
  args: Record<string, unknown>,
  policy: Policy,
  globalArgs: readonly string[] = [],
): string[] {
  const spec = { endOfOptions: command.endOfOptions !== undefined ? command.endOfOptions : cli.endOfOptions };
  const argv = [...globalArgs, ...(command.run ?? command.path)];
  for (const option of options) {
    const property = propertyOf(option);
    // Own members only: a left-out `--constructor` is left out, not `Object` written as its value.
    const value = Object.hasOwn(args, property) ? args[property] : undefined;
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) && !(option.valueCount === 2 && !option.repeatable) ? value : [value];
    for (const item of values) argv.push(...optionArgs(option, item, property, policy, cli.longValues));
  }
  const operands: string[] = [];
  const paths: string[] = [];
  for (const positional of command.positionals) {
    const value = Object.hasOwn(args, positional.name) ? args[positional.name] : undefined;
    if (!Array.isArray(value)) continue;
    value.forEach((item, index) => {
      const text = String(item);
      const reason = refuseValue(text, `${positional.name}[${index}]`, 'operand', policy);
      if (reason) throw refused(reason);
      (positional.placement === 'path' ? paths : operands).push(text);
    });
  }
  if (spec.endOfOptions === '--') {
    // One `--` ends the options for getopt and Cobra CLIs; everything after it is an operand.
    if (operands.length + paths.length > 0) argv.push('--', ...operands, ...paths);
    return argv;
  }
  if (operands.length > 0) {
    if (spec.endOfOptions) argv.push(spec.endOfOptions);
    argv.push(...operands);
  }
  if (paths.length > 0) argv.push('--', ...paths);
  return argv;
}

function optionArgs(
  option: OptionSpec,
  value: unknown,
  property: string,
  policy: Policy,
  longValues?: CliSpec['longValues'],
): string[] {
  if (option.kind === 'boolean') {
    if (value === true) return [option.flag];
    if (value !== false) return [];
    if (option.offFlag) return [option.offFlag];
    return option.negatable ? [`--no-${option.name}`] : [];
  }
  if (option.valueCount === 2 && Array.isArray(value)) {
    // `--arg NAME VALUE`: two elements after the flag, each checked like any value.
    const pair = value.map(String);
    for (const [index, text] of pair.entries()) {
      const reason = refuseValue(text, `${property}[${index}]`, 'option', policy);
      if (reason) throw refused(reason);
    }
    return [option.flag, ...pair];
  }
  const text = String(value);
  const reason = refuseValue(text, property, 'option', policy);
  if (reason) throw refused(reason);
  // A suffix a program adds to the names it writes (split's --additional-suffix, csplit's
  // --suffix-format, cp's --suffix): a `/` makes it a path, `%02d/../../x` wrote above the root.
  if (SUFFIX_OPTION.test(option.name) && text.includes('/')) {
    throw refused(
      `${property} is ${quote(text)}: a suffix added to the names of files written may not hold "/", which would make it a path`,
    );
  }
  if (option.optionalValue && text === '') return [option.flag];
  if (option.flag.startsWith('--'))
    return longValues === 'next' ? [option.flag, text] : [`${option.flag}=${text}`];
  // A long name after one dash (`-out`, `-chdir=DIR`): `=` where the help writes it or the value is
  // optional, else the next element, as its parsers (OpenSSL's, Go's `flag`) read both.
  if (option.flag.length > 2) {
    return option.joined || option.optionalValue ? [`${option.flag}=${text}`] : [option.flag, text];
  }
  // Short options take their value as the next element: getopt reads it as the value whatever it is.
  return option.optionalValue ? [`${option.flag}${text}`] : [option.flag, text];
}

/** Options naming a suffix the program adds to file names it writes. */
const SUFFIX_OPTION = /(^|[-_])suffix(-format)?$/i;

function refused(reason: string): BridgeError {
  return new BridgeError('invalid_arguments', `refused: ${reason}`);
}
