import type { AdapterCommand } from '../../src/index.js';
import { createOpenApiSource, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from './create-source.js';
import { AUTO_DYNAMIC_THRESHOLD } from './dynamic-tools.js';
import { flagNames, flagOptions, type OpenApiOptions, openApiOptionsSchema, parseFlags } from './options.js';

export { createOpenApiSource } from './create-source.js';
export type { OpenApiOptions } from './options.js';

/** `bridge openapi SPEC`: every operation of an OpenAPI (or Swagger 2.0) spec as an MCP tool. */
export const openapiCommand: AdapterCommand<OpenApiOptions> = {
  name: 'openapi',
  summary: 'serve the operations of an OpenAPI 3.0/3.1 or Swagger 2.0 spec as tools',
  usage: `Usage: bridge openapi SPEC [flags]

SPEC is a file path or http(s) URL of an OpenAPI 3.0/3.1 or Swagger 2.0 document, JSON or YAML.
Each operation becomes a tool named after its operationId.

Flags:
  --base-url URL           call this base URL instead of the spec's servers / host
  --header 'Name: value'   send this header on every call (repeatable); \${VAR} in the value is
                           read from the environment
  --validate               validate the spec strictly first (many real specs fail and still work)
  --allow-remote-refs      follow $refs to http(s) URLs (off: only local files are read)
  --refs-within DIR        local $refs may read files within DIR (default: the spec's directory)
  --tools all|dynamic|auto one tool per operation (all), four meta-tools to search, describe and
                           call operations (dynamic), or dynamic above ${AUTO_DYNAMIC_THRESHOLD} operations (auto, default)
  --include FILTER         serve only matching operations (repeatable): tag:NAME, method:GET,
                           path:/glob (* within a segment, ** across), or an operationId (* allowed)
  --exclude FILTER         leave out matching operations (repeatable), same forms
  --timeout MS             per-call upstream time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS})
  --retries N              retries of idempotent calls on 429/502/503/504 and connection errors,
                           with backoff and Retry-After (default ${DEFAULT_RETRIES})
  --relax-output           declare no outputSchema and never check responses against the spec
                           (for APIs whose answers drift from their spec)
  --forward-auth           pass the MCP client's Authorization header upstream (HTTP transport;
                           off by default: the client's credentials never leave the bridge)
  --auth-scheme NAME       give security scheme NAME its BRIDGE_<NAME>_* variables (repeatable);
                           default: every scheme of a local spec, none of a spec fetched by URL
  --no-cache               convert the spec again instead of reading the conversion cache
                           (cache: $BRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/bridge, else ~/.cache/bridge)

Credentials come from environment variables named after the spec's security schemes, with
SCHEME = the scheme name upper-cased, other characters as _:
  apiKey (header, query, cookie)  BRIDGE_<SCHEME>_API_KEY
  http bearer                     BRIDGE_<SCHEME>_TOKEN
  http basic                      BRIDGE_<SCHEME>_USERNAME, BRIDGE_<SCHEME>_PASSWORD
  oauth2 client credentials       BRIDGE_<SCHEME>_CLIENT_ID, BRIDGE_<SCHEME>_CLIENT_SECRET (optional
                                  BRIDGE_<SCHEME>_SCOPES, BRIDGE_<SCHEME>_TOKEN_URL), or a ready
                                  BRIDGE_<SCHEME>_TOKEN
  oauth2 authorization code       each caller signs in: BRIDGE_<SCHEME>_CLIENT_ID (optional
                                  BRIDGE_<SCHEME>_CLIENT_SECRET, _SCOPES, _TOKEN_URL,
                                  _AUTHORIZATION_URL), or a ready BRIDGE_<SCHEME>_TOKEN
  other oauth2, openIdConnect     BRIDGE_<SCHEME>_TOKEN
A spec fetched by URL chose its schemes' names: its schemes read them only when named with
--auth-scheme.`,
  options: flagOptions,
  parseFlags,
  flagNames,
  configSchema: openApiOptionsSchema,
  createSource: createOpenApiSource,
};
