import { isAbsolute, resolve } from 'node:path';
import {
  BridgeError,
  countOf,
  cutSchemasWarning,
  describeError,
  displayUrl,
  emptyCredentialWarnings,
  type LoadContext,
  type Logger,
  normalizeHeaders,
  type Source,
  type ToolDefinition,
} from '../../src/index.js';
import { applyOverrides } from './apply-overrides.js';
import { Authenticator, grantedSchemes, ungrantedWarnings } from './authenticate.js';
import { isFetched, otherOrigins } from './base-url.js';
import {
  type CachedConversion,
  type CachedFile,
  cacheFile,
  hashFile,
  readCache,
  statFile,
  writeCache,
} from './cache-tools.js';
import { AUTO_DYNAMIC_THRESHOLD, dynamicTools } from './dynamic-tools.js';
import { filterOperations } from './filter-operations.js';
import { listOperations } from './list-operations.js';
import { loadDocument } from './load-document.js';
import {
  buildAll,
  type CallSettings,
  type OperationTool,
  operationsToTools,
  operationTool,
  serverFields,
  type ToolData,
} from './operations-to-tools.js';
import type { OpenApiOptions } from './options.js';
import { isObject, type Json } from './resolve-ref.js';
import { HttpSender } from './send-request.js';
import { withSteadyYoungGeneration } from './steady-young-generation.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;

/**
 * How long after start-up the cache is written (dynamic mode: its background conversion begins).
 * A client sends initialize and tools/list as soon as it spawns the bridge, and on one thread
 * encoding GitHub's 3.7 MB cache (~50 ms) would run before both.
 */
const AFTER_START_UP_MS = 1_000;

/** What `load` found: the operation tools and what the dynamic tools and the cache need. */
interface Converted {
  tools: OperationTool[];
  title: string;
  files: string[];
  /** The operations whose own server is on another origin than the API's, with that origin. */
  elsewhere: [name: string, origin: string][];
  /** A spec fetched by URL: the addresses its fetch connected to (see `LoadedDocument`). */
  fetchedFrom?: string[];
  /** Writes the conversion cache (converting what is not yet); undefined when not cacheable. */
  save?: () => void;
  /**
   * Warns once of the tools whose input schemas were cut (see `boundSchema`), converting what is
   * not yet; the warning is cached with the others. Undefined for a start from the cache.
   */
  warnCut?: () => void;
}

/**
 * The OpenAPI source: load the document → list and filter the operations → one tool each (or the
 * dynamic meta-tools) → calls through one keep-alive HTTP pool. A local spec goes through the
 * conversion cache (`cache-tools.ts`): a repeat start reads the converted tools instead of the spec.
 *
 * `network.isPublicAddress` says which addresses are on the internet (tests let a loopback address
 * stand for one; see `guardFetchedSpec`).
 *
 * @example createOpenApiSource({ spec: 'petstore.yaml', baseUrl: 'http://localhost:8080' }, process.cwd())
 */
export function createOpenApiSource(
  options: OpenApiOptions,
  baseDir: string,
  network: { isPublicAddress?: (address: string) => boolean } = {},
): Source {
  const sender = new HttpSender();
  const remote = /^https?:\/\//i.test(options.spec);
  const specPath = remote
    ? options.spec
    : isAbsolute(options.spec)
      ? options.spec
      : resolve(baseDir, options.spec);
  let files: string[] = remote ? [] : [specPath];
  // Remote specs and remote $refs cannot be checked for changes without fetching them: not cached.
  const cache =
    !remote && options.cache !== false && !options.allowRemoteRefs
      ? cacheFile(specPath, [
          options.include,
          options.exclude,
          options.overrides,
          options.validate,
          // A conversion that read references outside the spec's directory is not served without it.
          ...(options.refsWithin ? [resolve(baseDir, options.refsWithin)] : []),
        ])
      : undefined;
  // The cache write still to come in --tools all, run early if the source closes first.
  let pendingSave: (() => void) | undefined;
  const source: Omit<Source, 'load'> & {
    load(context: LoadContext, steady: () => void): Promise<ToolDefinition[]>;
  } = {
    // Shown in logs and messages: a credential in a spec URL's query or user info is left out.
    label: `openapi ${displayUrl(options.spec)}`,
    async load(context: LoadContext, steady: () => void): Promise<ToolDefinition[]> {
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const settings = (servers: CallSettings['servers'], schemes: unknown): CallSettings => ({
        servers,
        sender,
        auth: authenticator(
          isObject(schemes) ? schemes : {},
          options,
          remote,
          timeoutMs,
          sender,
          context.log,
        ),
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        // Already expanded: by the config's loading or by --header's parsing, never twice.
        headers: withCredentialCheck(normalizeHeaders(options.headers ?? {}), context.log),
        timeoutMs,
        retries: options.retries ?? DEFAULT_RETRIES,
        relaxOutput: options.relaxOutput ?? false,
        forwardAuth: options.forwardAuth ?? false,
        ...(options.allowRemoteRefs ? { remoteRefs: true } : {}),
      });
      const cached = cache ? readCache(cache, specPath, context.log) : undefined;
      if (cached) steady();
      const converted = cached
        ? fromCache(cached, settings, context.log)
        : await convert(options, baseDir, specPath, cache, settings, context, steady);
      files = converted.files;
      // A spec from the internet does not choose addresses inside the user's network for its calls.
      if (converted.fetchedFrom && !options.baseUrl) {
        const { guardFetchedSpec } = await import('./guard-addresses.js');
        const guard = guardFetchedSpec(options.spec, converted.fetchedFrom, network.isPublicAddress);
        if (guard) sender.guardAddresses(guard);
      }
      // With --base-url every call goes to the one origin the user named.
      if (!options.baseUrl)
        warnElsewhere(converted.elsewhere, specPath, context.log, options.allowRemoteRefs === true);
      const mode = options.tools ?? 'auto';
      const { tools } = converted;
      const dynamic = mode === 'dynamic' || (mode === 'auto' && tools.length > AUTO_DYNAMIC_THRESHOLD);
      if (!dynamic) {
        const all = buildAll(tools, context.log);
        converted.warnCut?.();
        if (converted.save) pendingSave = afterStartUp(converted.save, context.log);
        return all;
      }
      // Dynamic mode converts on demand; the cache is filled in the background, a slice at a time.
      if (converted.save) convertInBackground(tools, converted.save);
      context.log.info(
        `${countOf(tools.length, 'operation')} served through 4 dynamic meta-tools (--tools all to list each)`,
      );
      return dynamicTools(tools, converted.title, context.policy);
    },
    watchedFiles: () => files,
    close: () => {
      pendingSave?.();
      return sender.close();
    },
  };
  // The young generation held while a spec is read and converted (see steady-young-generation.ts).
  return {
    ...source,
    load: (context) => withSteadyYoungGeneration((steady) => source.load(context, steady)),
  };
}

// Runs `save` once: after start-up, or when the source closes sooner (a short session). Never
// throws: a cache that cannot be written must not stop the bridge from closing.
function afterStartUp(save: () => void, log: Logger): () => void {
  let saved = false;
  const once = () => {
    if (saved) return;
    saved = true;
    try {
      save();
    } catch (error) {
      log.debug(`openapi: conversion cache not written: ${describeError(error)}`);
    }
  };
  setTimeout(once, AFTER_START_UP_MS).unref();
  return once;
}

// Headers as sent, after a warning for each credential left empty (see `emptyCredentialWarnings`).
function withCredentialCheck(headers: Record<string, string>, log: Logger): Record<string, string> {
  for (const warning of emptyCredentialWarnings(headers)) log.warn(warning);
  return headers;
}

/** Reads, lists, filters and names the operations of the spec (conversion itself is lazy). */
async function convert(
  options: OpenApiOptions,
  baseDir: string,
  specPath: string,
  cache: string | undefined,
  settings: (servers: CallSettings['servers'], schemes: unknown) => CallSettings,
  context: LoadContext,
  steady: () => void,
): Promise<Converted> {
  // Stat before reading, hash of the very bytes parsed (read once): an edit made while converting
  // makes the next start convert again.
  const specStat = cache ? statFile(specPath) : undefined;
  const loaded = await loadDocument(options.spec, baseDir, {
    beforeParse: steady,
    ...(options.validate ? { validate: true } : {}),
    ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
    ...(options.refsWithin ? { refsWithin: options.refsWithin } : {}),
    ...(specStat ? { hash: true } : {}),
    signal: context.signal,
  });
  const specHash = specStat && loaded.sha256 ? { sha256: loaded.sha256, stat: specStat } : undefined;
  // The files it references are hashed now, not when the cache is written (in dynamic mode, after
  // the background conversion): an edit in between must not be recorded as already converted.
  const hashes: CachedFile[] | undefined = specHash ? [] : undefined;
  for (const file of loaded.files) {
    const hash = file === specPath ? specHash : hashFile(file);
    if (hash) hashes?.push([file, hash.sha256, hash.stat]);
  }
  const { document, version } = loaded;
  const components = isObject(document.components) ? document.components : {};
  const schemes = version === 'swagger2' ? document.securityDefinitions : components.securitySchemes;
  const warnings: string[] = [];
  const log: Logger = {
    ...context.log,
    warn: (message, data) => {
      warnings.push(message);
      context.log.warn(message, data);
    },
  };
  const listed = applyOverrides(listOperations(document, version), options.overrides, log);
  const operations = servedOperations(
    filterOperations(listed, options.include, options.exclude),
    displayUrl(loaded.location),
    log,
  );
  if (operations.length === 0) {
    throw new BridgeError(
      'load_failed',
      `${displayUrl(loaded.location)} has no operations${options.include?.length || options.exclude?.length ? ' left after --include/--exclude' : ''}.`,
    );
  }
  const servers = serverFields(loaded);
  const tools = operationsToTools(operations, { loaded, ...settings(servers, schemes) });
  const info = isObject(document.info) ? document.info : {};
  const title = typeof info.title === 'string' ? info.title : options.spec;
  const elsewhere = otherOrigins(
    servers,
    tools.map(({ name, operation }) => ({
      name,
      ...(operation.servers ? { servers: operation.servers } : {}),
    })),
  );
  let cutWarned = false;
  const converted: Converted = {
    tools,
    title,
    files: loaded.files,
    elsewhere,
    ...(loaded.fetchedFrom ? { fetchedFrom: loaded.fetchedFrom } : {}),
    warnCut: () => {
      if (cutWarned) return;
      cutWarned = true;
      const cut = tools.flatMap((tool) => {
        const converted = tool.data();
        return 'data' in converted && converted.data.cut ? [tool.name] : [];
      });
      const warning = cutSchemasWarning('tool', cut);
      if (warning) log.warn(warning);
    },
  };
  // Not cached when a file could not be hashed: its changes could not be seen.
  if (cache && hashes?.length === loaded.files.length) {
    converted.save = () => {
      converted.warnCut?.();
      const entry: CachedConversion['tools'] = tools.map((tool) => ({
        name: tool.name,
        operation: tool.operation,
        readOnly: tool.readOnly,
        ...tool.data(),
      }));
      const schemesJson = isObject(schemes) ? schemes : {};
      const conversion = {
        files: hashes,
        servers,
        schemes: schemesJson,
        title,
        warnings,
        elsewhere,
      };
      writeCache(cache, { ...conversion, tools: entry }, context.log);
    };
  }
  return converted;
}

// The source's credentials: the variables of the schemes it is granted (see `grantedSchemes`),
// with a warning for set variables it is not, read at every load (the environment may change).
function authenticator(
  schemes: Json,
  options: OpenApiOptions,
  fetched: boolean,
  timeoutMs: number,
  sender: HttpSender,
  log: Logger,
): Authenticator {
  const granted = grantedSchemes(options.authSchemes, fetched);
  for (const warning of ungrantedWarnings(
    schemes,
    options.authSchemes,
    granted,
    process.env,
    displayUrl(options.spec),
  )) {
    log.warn(warning);
  }
  return new Authenticator(schemes, process.env, timeoutMs, () => sender.dispatcher(), granted);
}

function fromCache(
  cached: CachedConversion,
  settings: (servers: CallSettings['servers'], schemes: unknown) => CallSettings,
  log: Logger,
): Converted {
  for (const warning of cached.warnings) log.warn(warning);
  const setup = settings(cached.servers, cached.schemes);
  // The cached parts are parsed when first read (see cache-layout.ts): nothing here reads them yet.
  const tools = cached.tools.map((tool) => {
    const converted: ReturnType<OperationTool['data']> =
      tool.error === undefined
        ? {
            get data() {
              return tool.data as ToolData;
            },
          }
        : { error: tool.error };
    return operationTool(
      tool.name,
      () => tool.operation,
      tool.readOnly,
      setup,
      () => converted,
      tool.listed,
    );
  });
  return {
    tools,
    title: cached.title,
    files: cached.files.map(([file]) => file),
    elsewhere: cached.elsewhere,
  };
}

/** The most operations a warning names. */
const NAMED_OPERATIONS = 10;

// Says at start-up which operations are not called with the user's credentials, or not at all
// (see `callTarget`), rather than at their first 401.
function warnElsewhere(elsewhere: [string, string][], spec: string, log: Logger, remoteRefs: boolean): void {
  if (elsewhere.length === 0) return;
  const named = elsewhere.slice(0, NAMED_OPERATIONS).map(([name, origin]) => `${name} (${origin})`);
  if (elsewhere.length > NAMED_OPERATIONS) named.push(`${elsewhere.length - NAMED_OPERATIONS} more`);
  const [count, they] =
    elsewhere.length === 1
      ? ['1 operation has', 'it is']
      : [`${elsewhere.length} operations have`, 'they are'];
  const what = isFetched(spec)
    ? `a spec fetched by URL is called on that origin only, so ${they} not called (serve a downloaded copy to call them without your credentials, or pass --base-url)`
    : remoteRefs
      ? `the spec's references are followed to URLs (--allow-remote-refs), whose documents could have chosen those servers, so ${they} not called (bundle the referenced documents into the spec to call them without your credentials, or pass --base-url)`
      : `your --header values and credentials go to that origin only, so ${they} called without them (pass --base-url to send every call, with them, to one origin)`;
  log.warn(
    `${displayUrl(spec)}: ${count} a server of its own on another origin than the spec's top-level server; ${what}: ${named.join(', ')}`,
  );
}

// Converts every operation in slices between other work, then writes the cache.
function convertInBackground(tools: OperationTool[], save: () => void): void {
  let next = 0;
  const slice = () => {
    const end = Math.min(tools.length, next + 50);
    for (; next < end; next++) tools[next]?.data();
    if (next < tools.length) setTimeout(slice, 0).unref();
    else save();
  };
  setTimeout(slice, AFTER_START_UP_MS).unref();
}

/**
 * The most operations one spec serves. The largest real APIs have tens of thousands (Microsoft
 * Graph's ~17,000); each costs a few kB as a dynamic entry and ~5 kB as a tool, and a spec of
 * 256 MiB can hold millions of small ones: the start would run out of memory instead of serving.
 */
export const MAX_OPERATIONS = 100_000;

// The first `MAX_OPERATIONS` of `operations` (listed by path), with a warning when that leaves some
// out.
function servedOperations<T>(operations: T[], location: string, log: Logger): T[] {
  if (operations.length <= MAX_OPERATIONS) return operations;
  log.warn(
    `${location} has ${operations.length.toLocaleString('en-US')} operations, more than the ${MAX_OPERATIONS.toLocaleString('en-US')} the bridge serves from one spec: the first ${MAX_OPERATIONS.toLocaleString('en-US')} by path are served; choose the ones you need with --include`,
  );
  return operations.slice(0, MAX_OPERATIONS);
}
