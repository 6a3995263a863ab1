import type { HttpRequest } from './build-request.js';
import type { ParamPlan } from './plan-parameters.js';
import { setOwn } from './resolve-ref.js';

// What a successful answer says in its headers that a model needs and the result does not carry
// otherwise: where the next page of a list is, and where a created resource lives.

/** Longest note: a cursor or a URL is tens of characters; a longer one is not worth the context. */
const MAX_NOTE = 2_000;

/**
 * The notes a successful answer's headers call for, each a text block for the end of the result:
 * the next page (see `nextPageNote`) and a created resource's `Location`.
 */
export function headerNotes(
  headers: Record<string, string>,
  request: HttpRequest,
  params: readonly ParamPlan[],
  toolName: string,
): string[] {
  const notes: string[] = [];
  const next = nextPageNote(headers.link, request, params, toolName);
  if (next) notes.push(next);
  const location = locationNote(headers.location, request);
  if (location) notes.push(location);
  return notes;
}

/**
 * Where a successful answer says its resource lives (a 201's new resource, a 202's accepted work),
 * as an absolute URL: an API that answers a POST with an empty body and a `Location` leaves a model
 * without the new resource's id otherwise. Undefined without one, or when it is not an http(s) URL.
 * The credentials the query carried (`request.credentialQuery`) are never shown: a relative
 * `Location` is resolved against the URL without them, and one naming them (or holding a key's
 * value elsewhere) has them taken out, or gives no note.
 */
export function locationNote(location: string | undefined, request: HttpRequest): string | undefined {
  if (!location || location.length > MAX_NOTE) return undefined;
  const hidden = request.credentialQuery;
  try {
    const sent = hidden ? withoutParameters(request.path, hidden) : request.path;
    const url = new URL(location, `${request.origin}${sent}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (!hidden) return `Location: ${url.href}`;
    url.search = withoutParameters(url.search, hidden);
    const secrets = parameterValues(request.path, hidden);
    return secrets.some((secret) => url.href.includes(secret)) ? undefined : `Location: ${url.href}`;
  } catch {
    return undefined;
  }
}

// `path` (or a `?…` search) without the query parameters named in `names` (any case).
function withoutParameters(path: string, names: readonly string[]): string {
  const start = path.indexOf('?');
  if (start < 0) return path;
  const kept = path
    .slice(start + 1)
    .split('&')
    .filter((pair) => !isNamed(pair, names));
  return `${path.slice(0, start)}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

// The values, as sent (encoded) and decoded, of the query parameters of `path` named in `names`.
function parameterValues(path: string, names: readonly string[]): string[] {
  const query = path.slice(path.indexOf('?') + 1);
  return query
    .split('&')
    .filter((pair) => pair.includes('=') && isNamed(pair, names))
    .flatMap((pair) => {
      const value = pair.slice(pair.indexOf('=') + 1);
      return [value, decodePart(value)].filter((text) => text.length > 0);
    });
}

function isNamed(pair: string, names: readonly string[]): boolean {
  const name = decodePart(pair.split('=', 1)[0] ?? '').toLowerCase();
  return names.some((one) => one.toLowerCase() === name);
}

function decodePart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

// Pagination that lives in a response's `Link` header (RFC 8288), which the tool result does not
// otherwise carry: GitHub pages its lists so, and its cursor parameters say "A cursor, as given in
// the Link header" (`before`/`after` in 33 operations). Without the header a model can read the
// first page of those lists and no other. The note gives the arguments to change instead of the
// URL, which a model cannot call.

/**
 * A note on how to get the next page (and which is the last) when `link` has a `rel="next"`: the
 * query arguments whose values the next page's URL changes. Undefined when there is no next page,
 * or it changes a query parameter the tool has no argument for.
 */
export function nextPageNote(
  link: string | undefined,
  request: HttpRequest,
  params: readonly ParamPlan[],
  toolName: string,
): string | undefined {
  if (!link) return undefined;
  const targets = relations(link);
  const next = targets.get('next');
  if (next === undefined) return undefined;
  const sent = new URL(`${request.origin}${request.path}`);
  const hidden = request.credentialQuery ?? [];
  const nextArgs = changedArguments(next, sent, params, hidden);
  if (!nextArgs) return undefined;
  const last = targets.get('last');
  const lastArgs = last === undefined ? undefined : changedArguments(last, sent, params, hidden);
  const note =
    `More results: call ${toolName} again with the same arguments and ${JSON.stringify(nextArgs)}.` +
    (lastArgs ? ` The last page: ${JSON.stringify(lastArgs)}.` : '');
  return note.length <= MAX_NOTE ? note : undefined;
}

/** The target of each relation in a `Link` header, the first of each. */
function relations(link: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of link.matchAll(LINK_VALUE)) {
    const [, target = '', parameters = ''] = match;
    const rel = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(parameters);
    for (const name of (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)) {
      if (name && !found.has(name)) found.set(name, target);
    }
  }
  return found;
}
// `<target>` and the parameters after it, up to the next link value's `<`.
const LINK_VALUE = /<([^>]*)>([^<]*)/g;

/**
 * The query arguments that take the request from what was sent to `target`: each query parameter
 * of `target` whose value differs, by the tool argument that carries it. Undefined when `target`
 * cannot be read, adds or changes a parameter no argument carries, or changes nothing.
 */
function changedArguments(
  target: string,
  sent: URL,
  params: readonly ParamPlan[],
  hidden: readonly string[],
): Record<string, string> | undefined {
  let url: URL;
  try {
    url = new URL(target, sent);
  } catch {
    return undefined;
  }
  const changed: Record<string, string> = {};
  let any = false;
  for (const name of new Set(url.searchParams.keys())) {
    // The bridge sends the credentials itself: never an argument to pass, nor text to show.
    if (hidden.some((one) => one.toLowerCase() === name.toLowerCase())) continue;
    const values = url.searchParams.getAll(name);
    const before = sent.searchParams.getAll(name);
    if (values.length === before.length && values.every((value, index) => value === before[index])) continue;
    const param = params.find((one) => one.in === 'query' && one.name === name);
    // Arrays, objects and JSON parameters do not map back from one query value.
    if (!param || param.json || values.length !== 1) return undefined;
    // An argument may be named `__proto__`: an own member like any other.
    setOwn(changed, param.arg, values[0]);
    any = true;
  }
  return any ? changed : undefined;
}
