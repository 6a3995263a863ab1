import { isUnsafeUrl, ResolverError } from '@apidevtools/json-schema-ref-parser';
import type { Dispatcher } from 'undici';
import { describeError } from '../../src/index.js';
import { checkedConnector, refusedAddress } from './checked-lookup.js';
import { isPublicAddress } from './public-address.js';
import type { ByteBudget } from './read-local-ref.js';

// The documents a spec's `$ref`s point to by URL (`--allow-remote-refs`), fetched for the parser in
// place of its own HTTP resolver, which checks only the URL's text: a host name is not resolved
// before the check, so a name that resolves to this host or the local network was followed, and a
// body had neither a size bound nor a deadline once its headers had come.

/** What a reference fetch may do. */
export interface RemoteRefSettings {
  /** One fetch, redirects and body included. */
  timeoutMs: number;
  /** Every fetch of this load together: a spec with many references cannot keep a start waiting. */
  totalMs: number;
  /**
   * The bytes every fetch of this load may still read, shared with the local files it reads (see
   * read-local-ref.ts): many references cannot exhaust memory.
   */
  bytes: ByteBudget;
  /** Ends every fetch of this load (the bridge shutting down). */
  signal?: AbortSignal;
  /** Which connected address is allowed: public unicast addresses (the default; tests widen it). */
  allowAddress?: (address: string) => boolean;
  /** Which URL is fetched at all: the parser's own check by default (local names, internal ports). */
  allowUrl?: (url: string) => boolean;
}

/** The most redirects one reference follows, as the parser's own resolver. */
const MAX_REDIRECTS = 5;

/** A resolver for the parser's `resolve` options, and the close of its connections. */
export interface RemoteRefResolver {
  resolver: {
    order: number;
    canRead: (file: { url: string }) => boolean;
    read: (file: { url: string }) => Promise<Buffer>;
  };
  close(): Promise<void>;
}

/**
 * The parser's resolver for `http(s)` references. Each URL of a fetch, redirects included, must pass
 * the parser's own URL check (local names, internal ports) and connect only to allowed addresses:
 * the check is made on the addresses the name resolves to, as the connection is made to them, so a
 * name cannot resolve one way for the check and another for the connection.
 */
export async function remoteRefResolver(settings: RemoteRefSettings): Promise<RemoteRefResolver> {
  const { Agent, buildConnector, request } = await import('undici');
  const allow = settings.allowAddress ?? isPublicAddress;
  const allowUrl = settings.allowUrl ?? ((url: string) => !isUnsafeUrl(url));
  const agent = new Agent({ connect: checkedConnector(buildConnector, allow, refusal) });
  const budget = { bytes: settings.bytes, ends: AbortSignal.timeout(settings.totalMs) };
  const fetchOnce = async (url: string, signal: AbortSignal) => {
    refuseUnsafe(url, allow, allowUrl);
    return request(url, { dispatcher: agent, method: 'GET', headers: { accept: ACCEPT }, signal });
  };
  return {
    resolver: {
      order: 200,
      canRead: (file) => /^https?:\/\//i.test(file.url),
      read: (file) => fetchRef(file.url, settings, budget, fetchOnce),
    },
    close: () => agent.close(),
  };
}

const ACCEPT = 'application/json, application/yaml;q=0.9, */*;q=0.5';

/** What is left to the fetches of one load: bytes to read, and the signal of its deadline. */
interface LoadBudget {
  bytes: ByteBudget;
  ends: AbortSignal;
}

async function fetchRef(
  first: string,
  settings: RemoteRefSettings,
  budget: LoadBudget,
  fetchOnce: (url: string, signal: AbortSignal) => Promise<Dispatcher.ResponseData>,
): Promise<Buffer> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const signal = AbortSignal.any([deadline, budget.ends, ...(settings.signal ? [settings.signal] : [])]);
  let url = first;
  try {
    for (let hops = 0; ; hops++) {
      const response = await fetchOnce(url, signal);
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400 && headers.location !== undefined) {
        await body.dump();
        if (hops === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
        url = new URL(String(headers.location), url).href;
        continue;
      }
      if (statusCode >= 300) {
        await body.dump();
        throw new Error(`the server answered HTTP ${statusCode}`);
      }
      return await readBounded(body, budget);
    }
  } catch (error) {
    const why = deadline.aborted
      ? `no whole answer within ${settings.timeoutMs / 1000} s`
      : budget.ends.aborted
        ? `the references took more than ${settings.totalMs / 1000} s together`
        : describeError(error);
    const via = url === first ? '' : ` (redirected to ${url})`;
    // The parser keeps the message only of its own error type ("Error reading file" otherwise).
    throw new ResolverError(new Error(`cannot fetch ${first}${via}: ${why}`, { cause: error }), first);
  }
}

// The body, counted against what the load has left to read.
async function readBounded(body: Dispatcher.ResponseData['body'], budget: LoadBudget): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    budget.bytes.bytesLeft -= (chunk as Buffer).length;
    if (budget.bytes.bytesLeft < 0) {
      body.destroy();
      throw new Error('the referenced documents are larger than the bridge reads for one spec');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Throws for a URL that is not http(s), is written with a refused address (named first, being the
 * clearer reason; the connection checks it too, see `checkedConnector`), or fails the URL check.
 */
function refuseUnsafe(
  url: string,
  allow: (address: string) => boolean,
  allowUrl: (url: string) => boolean,
): void {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${protocol} URLs are not followed`);
  const refused = refusedAddress(hostname, allow, refusal);
  if (refused) throw refused;
  if (!allowUrl(url)) throw new Error('the URL names a local host or an internal service port');
}

const refusal = (address: string, name?: string) =>
  new Error(
    `${name ? `${name} resolves to ${address}, ` : `${address} is `}not a public address (references are followed to public addresses only: bundle an internal spec's references into one file)`,
  );
