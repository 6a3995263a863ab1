import {
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type ResourceTemplateType,
  type Server,
  type ServerContext,
  UriTemplate,
} from '@modelcontextprotocol/server';
import { callerOf, mayList } from '../caller.js';
import type { CatalogContext, ResourceDefinition, ResourceTemplateDefinition } from '../catalog.js';
import { PAGE_URI_TEMPLATE } from '../page-output.js';
import { clip } from '../quote-input.js';
import { MAX_URI_CHARS } from '../request-bounds.js';
import { RESOURCE_URI_PREFIX, type ResourceStore } from '../resource-store.js';
import { listPage, prefixVersions } from './paginate.js';

/** What the resource handlers serve: the fixed resources and templates, then the caller's stored outputs. */
export interface ResourceSources {
  store: ResourceStore;
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
  /** Aborted at shutdown. */
  shutdown: AbortSignal;
}

// Always listed: the pages of long tool outputs live in the store under this template.
const OUTPUT_PAGE_TEMPLATE: ResourceTemplateType = {
  uriTemplate: PAGE_URI_TEMPLATE,
  name: 'output-page',
  title: 'Page of a long tool output',
  description:
    'A later page of a tool output that was too long to return at once; tool results link to them.',
  mimeType: 'text/plain',
};

/** The context a catalog callback gets for the request behind `ctx`. */
export function catalogContext(ctx: ServerContext, shutdown: AbortSignal): CatalogContext {
  return { signal: AbortSignal.any([ctx.mcpReq.signal, shutdown]), caller: callerOf(ctx) };
}

/** The resource handlers of a server factory, prepared once. */
export interface ResourceHandlers {
  /** Registers `resources/list`, `resources/templates/list` and `resources/read` on a new server. */
  register(server: Server): void;
  /** Whether `uri` names a resource the caller behind `ctx` can read (for subscriptions). */
  exists(uri: string, ctx: ServerContext): Promise<boolean>;
}

/**
 * Prepares the `resources/list`, `resources/templates/list` and `resources/read` handlers once.
 * Fixed resources come first, then the caller's stored outputs; a read tries the fixed URIs,
 * then the store, then each template in order. An unknown URI is `ResourceNotFoundError`, which
 * the SDK sends as -32602 in every era (the 2026-07-28 rule; clients accept -32002 or -32602).
 */
export function resourceHandlers(sources: ResourceSources): ResourceHandlers {
  const fixed = new Map((sources.resources ?? []).map((resource) => [resource.uri, resource]));
  const templates = (sources.resourceTemplates ?? []).map((template) => ({
    template,
    matcher: new UriTemplate(template.uriTemplate),
  }));
  const listedFixed: Resource[] = [...fixed.values()].map(({ read: _read, ...listed }) => listed);
  const listedTemplates: ResourceTemplateType[] = [
    ...templates.map(({ template: { read: _read, complete: _complete, ...listed } }) => listed),
    OUTPUT_PAGE_TEMPLATE,
  ];

  const exists = async (uri: string, ctx: ServerContext) =>
    fixed.has(uri) ||
    templates.some(({ matcher }) => match(matcher, uri) !== null) ||
    (await sources.store.has(uri, callerOf(ctx)));

  const register = (server: Server) => {
    server.setRequestHandler('resources/list', async (request, ctx) => {
      const caller = callerOf(ctx);
      // Anonymous HTTP requests see no stored outputs: theirs are reachable only by their URI.
      const own = mayList(caller) ? await sources.store.list(caller) : [];
      const all: Resource[] = [...listedFixed, ...own];
      // The caller's outputs come and go (written by calls, expired): the versions are of this list.
      return listPage(
        'resources',
        all,
        request.params?.cursor,
        prefixVersions(() => all.map((resource) => resource.uri)),
      );
    });

    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: listedTemplates }));

    server.setRequestHandler('resources/read', async (request, ctx): Promise<ReadResourceResult> => {
      const { uri } = request.params;
      const resource = fixed.get(uri);
      if (resource) return { contents: await resource.read(catalogContext(ctx, sources.shutdown)) };
      const stored = await sources.store.read(uri, callerOf(ctx));
      if (stored) return { contents: [stored] };
      for (const { template, matcher } of templates) {
        const variables = match(matcher, uri);
        if (!variables) continue;
        const flat = Object.fromEntries(
          Object.entries(variables).map(([name, value]) => [
            name,
            Array.isArray(value) ? value.join(',') : value,
          ]),
        );
        return { contents: await template.read(uri, flat, catalogContext(ctx, sources.shutdown)) };
      }
      throw notFound(uri, sources.store.ttlMs);
    });
  };
  return { register, exists };
}

// The SDK's matcher throws for a URI over a million characters, which became an internal error
// (-32603): no template names a URI that long, so it matches none.
function match(matcher: UriTemplate, uri: string): ReturnType<UriTemplate['match']> {
  return uri.length <= MAX_MATCHED_URI_CHARS ? matcher.match(uri) : null;
}

const MAX_MATCHED_URI_CHARS = 1_000_000;

/**
 * The -32602 for a URI that names no resource the caller can read (see `resourceHandlers`), with
 * `detail` after its first sentence. The message quotes the URI's start, as every message quotes
 * a value from a request (see quote-input.ts); `data.uri` names it whole up to `MAX_URI_CHARS`.
 */
export function resourceNotFound(uri: string, detail = ''): ResourceNotFoundError {
  return new ResourceNotFoundError(clip(uri, MAX_URI_CHARS), `Resource not found: ${clip(uri)}${detail}`);
}

// A page another session made (or one that expired) looks like any unknown URI to the store; say
// why pages go missing, so a model or user retries the call instead of retrying the read.
function notFound(uri: string, ttlMs: number | undefined): ResourceNotFoundError {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return resourceNotFound(uri);
  return resourceNotFound(
    uri,
    `. Pages of a long output belong to the session that created them (with authentication, to its user) and expire ${ttlMs === undefined ? 'some time' : duration(ttlMs)} after they were written (or earlier when memory runs short); call the tool again in this session for fresh pages.`,
  );
}

// "30 minutes", "90 seconds", "2 hours": the store's lifetime as a person would say it.
function duration(ms: number): string {
  const [amount, unit] =
    ms % 3_600_000 === 0
      ? [ms / 3_600_000, 'hour']
      : ms % 60_000 === 0
        ? [ms / 60_000, 'minute']
        : [Math.round(ms / 1000), 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}
