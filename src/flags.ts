import type { FlagValues } from './command.js';
import { BridgeError } from './errors.js';
import { expandHeaders } from './expand-headers.js';

/*
 * The flag helpers every adapter's `parseFlags` uses. They only read a flag into the option field
 * it maps to (a string, a list, an integer, headers); what values are allowed (ranges, enums, URLs)
 * is the adapter's `configSchema`'s to say, so a flag and a config file accept exactly the same.
 */

/** A string flag's value, or `undefined` when it is absent. */
export function stringFlag(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A repeatable flag's values, or `undefined` when it is absent. With `commas`, each value may list
 * several items (`--allow log,show`); blank items are dropped.
 */
export function listFlag(
  values: FlagValues,
  name: string,
  options: { commas?: boolean } = {},
): string[] | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  let items = (Array.isArray(value) ? value : [value]).map(String);
  if (options.commas) items = items.flatMap((item) => item.split(',')).map((item) => item.trim());
  items = items.filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

/** `true` when a boolean flag is given, `undefined` otherwise (so the option stays unset). */
export function booleanFlag(values: FlagValues, name: string): true | undefined {
  return values[name] === true ? true : undefined;
}

/**
 * An integer flag's value, or `undefined` when it is absent. Throws `invalid_input` naming the flag
 * when it is not an integer; its range is checked by the config schema.
 */
export function integerFlag(values: FlagValues, name: string): number | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isSafeInteger(value)) {
    throw new BridgeError('invalid_input', `--${name} expects an integer, got "${raw}"`);
  }
  return value;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Repeatable `--header 'Name: value'` flags as a header object, or `undefined` when none is given.
 * `${VAR}` in a value is read from the environment here, once (see `expandHeaders`): the options
 * then hold the values to send, as a config file's do once loaded. Throws `invalid_input` naming
 * the flag when one has no valid name before its colon, or the variable when one is not set.
 */
export function headerFlags(values: FlagValues, name = 'header'): Record<string, string> | undefined {
  const list = listFlag(values, name);
  if (!list) return undefined;
  const headers: Record<string, string> = {};
  for (const raw of list) {
    const colon = raw.indexOf(':');
    const header = colon > 0 ? raw.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(header)) {
      throw new BridgeError('invalid_input', `--${name} expects 'Name: value', got "${raw}"`);
    }
    headers[header] = raw.slice(colon + 1).trim();
  }
  return expandHeaders(headers);
}

/** Copies the defined entries of `fields` onto `options`: flags that were not given stay unset. */
export function withFlags<T extends object>(options: T, fields: { [K in keyof T]?: T[K] | undefined }): T {
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  }
  return options;
}
