import { BridgeError } from '../../src/index.js';
import type { OperationPlan, ParamPlan } from './plan-operation.js';
import { isObject } from './resolve-ref.js';

// Path arguments are percent-encoded, but encoding alone does not keep them inside the operation's
// path: RFC 3986 §2.3 makes `%2E` the same as `.`, and a proxy such as nginx decodes `%2E`, `%2F`
// (and `%5C` on some servers) before it removes dot-segments (§5.2.4) and picks a route. So
// `..%2F..%2Finternal` climbs out of the spec's base path behind it, with the user's credentials.
// What could climb or land elsewhere is refused instead, naming the argument: a value holding a `.`
// or `..` segment (split on `/` and `\`, decoded), an empty value, and a segment that the template
// and its values build into `.`, `..` or nothing (`{name}.{ext}` with empty values is `.`).
// A `/` inside a value stays allowed, as `%2F`: GitHub's file paths and branch names hold it, and an
// upstream that decodes it sees more segments under the operation's path, never fewer.

/** The operation's path with `args` filled into its template; throws `invalid_arguments` for a value that would leave it. */
export function fillPath(plan: OperationPlan, args: Record<string, unknown>): string {
  const values = new Map<string, { arg: string; text: string; matrix: boolean }>();
  for (const param of plan.params) {
    if (param.in !== 'path') continue;
    const value = Object.hasOwn(args, param.arg) ? args[param.arg] : undefined;
    if (value === undefined || value === null) {
      throw new BridgeError('invalid_arguments', `the path parameter "${param.arg}" is required`);
    }
    if (value === '') throw refusal(param.arg, 'is empty', plan.path);
    values.set(param.name, {
      arg: param.arg,
      text: serializePath(param, value, plan.path),
      matrix: param.style === 'matrix',
    });
  }
  if (values.size === 0) return plan.path;
  // Segment by segment, so that each one a value went into is checked as the server will read it.
  const segments = plan.path.split('/').map((segment) => {
    if (!segment.includes('{')) return segment;
    const filled: string[] = [];
    let matrix = false;
    const built = segment.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const value = values.get(name);
      if (value === undefined) return whole;
      filled.push(value.arg);
      matrix ||= value.matrix;
      return value.text;
    });
    const problem =
      filled.length > 0 ? segmentProblem(built, filled.length > 1 ? 'make' : 'makes', matrix) : undefined;
    if (problem) throw refusal(filled, problem, plan.path);
    return built;
  });
  return segments.join('/');
}

// What the servers on the way may make of `text`, decoding it as many times as they like (a proxy
// such as nginx, then the application): every `%XX` as bytes (lenient UTF-8, so that the overlong
// `%C0%AE` is `.`), IIS's `%uXXXX`, and NFKC (a fullwidth `／` or `．` is `/` or `.` to a server
// that normalizes), round after round until nothing changes. Past a few rounds, one last pass
// decodes an escape behind any number of `%25` at once (`%252E` is `.` after two decodes): a
// round per level would cost a value of n `25`s n passes over it.
function asServersRead(text: string): string {
  let current = text;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const next = decodeOnce(current).normalize('NFKC');
    if (next === current) return current;
    current = next;
  }
  return current
    .replace(/%(?:25)*([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .normalize('NFKC');
}

const DECODE_ROUNDS = 8;

function decodeOnce(text: string): string {
  return text
    .replace(/%u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/(?:%[0-9a-f]{2})+/gi, (run) => lenientUtf8(Buffer.from(run.replaceAll('%', ''), 'hex')));
}

// UTF-8 as a lenient decoder reads it: an overlong form of a character (`C0 AE`, `E0 80 AE`,
// `F0 80 80 AE`, and the 5- and 6-byte forms of the original UTF-8, `F8 80 80 80 AE`) is that
// character; anything else invalid is U+FFFD.
function lenientUtf8(bytes: Buffer): string {
  let text = '';
  let start = 0;
  for (let at = 0; at < bytes.length; at++) {
    const overlong = overlongAt(bytes, at);
    if (overlong === undefined) continue;
    text += bytes.subarray(start, at).toString('utf8') + String.fromCharCode(overlong.code);
    at += overlong.length - 1;
    start = at + 1;
  }
  return text + bytes.subarray(start).toString('utf8');
}

/** The lead byte's mask for its payload, by sequence length (2 to 6 bytes). */
const LEADS = [
  { length: 2, lead: 0xc0, mask: 0x1f },
  { length: 3, lead: 0xe0, mask: 0x0f },
  { length: 4, lead: 0xf0, mask: 0x07 },
  { length: 5, lead: 0xf8, mask: 0x03 },
  { length: 6, lead: 0xfc, mask: 0x01 },
];
/** The smallest code each length may encode: below it the form is overlong. */
const SMALLEST = [0, 0, 0x80, 0x800, 0x10000, 0x200000, 0x4000000];

// An overlong sequence starting at `at` that encodes a character of the Basic Multilingual Plane
// (every one a path check cares about), with its length.
function overlongAt(bytes: Buffer, at: number): { code: number; length: number } | undefined {
  const byte = bytes[at] as number;
  if (byte < 0xc0) return undefined;
  const form = LEADS.find(({ lead, mask }) => (byte & ~mask & 0xff) === lead);
  if (!form) return undefined;
  let code = byte & form.mask;
  for (let next = 1; next < form.length; next++) {
    const continuation = bytes[at + next];
    if (!isContinuation(continuation)) return undefined;
    code = code * 64 + ((continuation as number) & 0x3f);
  }
  return code < (SMALLEST[form.length] as number) && code <= 0xffff
    ? { code, length: form.length }
    : undefined;
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Control characters: a URL parser drops tab, CR and LF (`.\t.` is `..`), a C server ends at NUL. */
const CONTROL = /\p{Cc}/u;

// A `.` or `..` segment, with its `;parameters` (RFC 3986 §3.3) taken off as Tomcat and Spring
// take them off before they normalize: `..;` is `..` to them.
function isDotSegment(part: string): boolean {
  const bare = part.split(';', 1)[0];
  return bare === '.' || bare === '..';
}

// Why a segment as built (encoded) cannot be sent, or undefined when it can. A matrix-style value
// builds `;name=value` by design; any other segment empty but for `;parameters` is empty to Tomcat
// and Spring, which take them off (`;` for an id reaches the collection).
function segmentProblem(segment: string, verb: string, matrix: boolean): string | undefined {
  const parts = asServersRead(segment).split(/[/\\]/);
  if (parts.some(isDotSegment)) {
    return `${verb} the path segment "${clip(segment)}", which a server reads as "." or ".."`;
  }
  if (parts.every((part) => (matrix ? part : part.split(';', 1)[0]) === '')) {
    if (segment === '') return `${verb} an empty path segment`;
    return parts.every((part) => part === '')
      ? `${verb} the path segment "${clip(segment)}", empty once decoded`
      : `${verb} the path segment "${clip(segment)}", nothing but ";parameters" once decoded, which Tomcat and Spring take off`;
  }
  return undefined;
}

function refusal(args: string | string[], problem: string, template: string): BridgeError {
  const names = [args].flat().map((arg) => `"${arg}"`);
  const who =
    names.length === 1 ? `the path parameter ${names[0]}` : `the path parameters ${names.join(' and ')}`;
  return new BridgeError(
    'invalid_arguments',
    `${who} ${problem} in ${template}: a "." or ".." segment, or an empty one, would send the call ` +
      'to another path than the operation\'s, so it is refused; give the value itself (a name, an id, a path without "." or ".." parts)',
  );
}

const UNRESERVED = /^[A-Za-z0-9._~-]+$/;

/** The longest path value sent, in characters: 8 KiB is the request line most servers take. */
const MAX_PATH_VALUE = 8_192;

// One value of a path parameter: refused when it holds a dot-segment, else everything outside the
// unreserved set percent-encoded.
function pathValue(text: string, param: ParamPlan, template: string): string {
  // Reading a value as the servers may costs rounds over all of it (4 MiB of `%25` held the event
  // loop 2.5 s), and no server takes a request line that long anyway.
  if (text.length > MAX_PATH_VALUE) {
    throw new BridgeError(
      'invalid_arguments',
      `the path parameter "${param.arg}" is ${text.length.toLocaleString('en-US')} characters long, more than the ${MAX_PATH_VALUE.toLocaleString('en-US')} a path value may be in ${template} (servers refuse request lines that long)`,
    );
  }
  // Only unreserved characters (no `%`, `/` or `\`): only `.` and `..` themselves are dot-segments.
  if (UNRESERVED.test(text) && text !== '.' && text !== '..') return text;
  const read = asServersRead(text);
  if (CONTROL.test(read)) {
    throw new BridgeError(
      'invalid_arguments',
      `the path parameter "${param.arg}" holds a control character (${clip(JSON.stringify(text))}), encoded or not, in ${template}: a URL parser drops tabs and line ends (".\\t." is ".."), a server may end the path at a NUL; give the value without it`,
    );
  }
  const dots = read.split(/[/\\]/).find(isDotSegment);
  if (dots !== undefined) {
    throw refusal(
      param.arg,
      dots === text
        ? `holds the path segment "${clip(dots)}"`
        : `holds the path segment "${clip(dots)}" (${clip(JSON.stringify(text))})`,
      template,
    );
  }
  // A lone surrogate has no UTF-8 form: encodeURIComponent would throw a bare URIError.
  if (/\p{Cs}/u.test(text)) {
    throw new BridgeError(
      'invalid_arguments',
      `the path parameter "${param.arg}" holds a lone UTF-16 surrogate, which is not text a URL can carry`,
    );
  }
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A value as the text a URL, header or form carries: strings as they are, other scalars as text, the rest as JSON. */
export function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function serializePath(param: ParamPlan, value: unknown, template: string): string {
  const e = (text: string) => pathValue(text, param, template);
  if (param.json) return e(JSON.stringify(value));
  const name = param.name;
  if (Array.isArray(value)) {
    const items = value.map((item) => e(scalar(item)));
    if (param.style === 'label') return `.${items.join(param.explode ? '.' : ',')}`;
    if (param.style === 'matrix') {
      return param.explode ? items.map((item) => `;${name}=${item}`).join('') : `;${name}=${items.join(',')}`;
    }
    return items.join(',');
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [e(k), e(scalar(v))] as const);
    const pairs = param.explode ? entries.map(([k, v]) => `${k}=${v}`) : entries.flat();
    if (param.style === 'label') return `.${pairs.join(param.explode ? '.' : ',')}`;
    if (param.style === 'matrix') {
      return param.explode ? pairs.map((pair) => `;${pair}`).join('') : `;${name}=${pairs.join(',')}`;
    }
    return pairs.join(',');
  }
  const text = e(scalar(value));
  if (param.style === 'label') return `.${text}`;
  if (param.style === 'matrix') return `;${name}=${text}`;
  return text;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
