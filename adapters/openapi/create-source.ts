import { isAbsolute, resolve } from 'node:path';
import {
  BridgeError,
  emptyCredentialWarnings,
  expandHeaders,
  type LoadContext,
  type Logger,
  type Source,
  type ToolDefinition,
} from '../../src/index.js';
import { applyOverrides } from './apply-overrides.js';
import { Authenticator } from './authenticate.js';
import { AUTO_DYNAMIC_THRESHOLD, dynamicTools } from './dynamic-tools.js';
import { filterOperations } from './filter-operations.js';
import { listOperations } from './list-operations.js';
import { loadDocument } from './load-document.js';
import { buildAll, operationsToTools, serverFields } from './operations-to-tools.js';
import type { OpenApiOptions } from './options.js';
import { isObject } from './resolve-ref.js';
import { HttpSender } from './send-request.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;

/**
 * The OpenAPI source: load the document → list and filter the operations → one tool each (or the
 * dynamic meta-tools) → calls through one keep-alive HTTP pool.
 *
 * @example createOpenApiSource({ spec: 'petstore.yaml', baseUrl: 'http://localhost:8080' }, process.cwd())
 */
export function createOpenApiSource(options: OpenApiOptions, baseDir: string): Source {
  const sender = new HttpSender();
  const remote = /^https?:\/\//i.test(options.spec);
  let files: string[] = remote
    ? []
    : [isAbsolute(options.spec) ? options.spec : resolve(baseDir, options.spec)];
  return {
    label: `openapi ${options.spec}`,
    async load(context: LoadContext): Promise<ToolDefinition[]> {
      const loaded = await loadDocument(options.spec, baseDir, {
        ...(options.validate ? { validate: true } : {}),
        ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
        signal: context.signal,
      });
      files = loaded.files;
      const { document, version } = loaded;
      const components = isObject(document.components) ? document.components : {};
      const schemes = version === 'swagger2' ? document.securityDefinitions : components.securitySchemes;
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const listed = applyOverrides(listOperations(document, version), options.overrides, context.log);
      const operations = filterOperations(listed, options.include, options.exclude);
      if (operations.length === 0) {
        throw new BridgeError(
          'load_failed',
          `${loaded.location} has no operations${options.include?.length || options.exclude?.length ? ' left after --include/--exclude' : ''}.`,
        );
      }
      const tools = operationsToTools(operations, {
        loaded,
        servers: serverFields(loaded),
        sender,
        auth: new Authenticator(isObject(schemes) ? schemes : {}, process.env, timeoutMs),
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        headers: withCredentialCheck(expandHeaders(options.headers ?? {}), context.log),
        timeoutMs,
        retries: options.retries ?? DEFAULT_RETRIES,
        relaxOutput: options.relaxOutput ?? false,
        forwardAuth: options.forwardAuth ?? false,
      });
      const mode = options.tools ?? 'auto';
      const dynamic = mode === 'dynamic' || (mode === 'auto' && tools.length > AUTO_DYNAMIC_THRESHOLD);
      if (!dynamic) return buildAll(tools, context.log);
      const info = isObject(document.info) ? document.info : {};
      const title = typeof info.title === 'string' ? info.title : options.spec;
      context.log.info(
        `${tools.length} operations served through 4 dynamic meta-tools (--tools all to list each)`,
      );
      return dynamicTools(tools, title);
    },
    watchedFiles: () => files,
    close: () => sender.close(),
  };
}

// Headers as sent, after a warning for each credential left empty (see `emptyCredentialWarnings`).
function withCredentialCheck(headers: Record<string, string>, log: Logger): Record<string, string> {
  for (const warning of emptyCredentialWarnings(headers)) log.warn(warning);
  return headers;
}
