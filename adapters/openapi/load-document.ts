import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  BridgeError,
  type BridgeErrorCode,
  describeError,
  displayUrl,
  type InputBytes,
  isHtmlPage,
  mebibytes,
  readInputFile,
} from '../../src/index.js';
import { recordingConnector } from './checked-lookup.js';
import type { RemoteRefSettings } from './fetch-remote-ref.js';
import { jsonText, jsonTextInPlace } from './json-text.js';

/** The OpenAPI generation a document is written in; decides the schema dialect and the layout. */
export type SpecVersion = 'swagger2' | 'openapi30' | 'openapi31';

/** A loaded document: one JSON tree in which every `$ref` is internal (`#/...`). */
export interface LoadedDocument {
  /** The whole document, external references already bundled in. */
  document: Record<string, unknown>;
  version: SpecVersion;
  /** Where it came from: an absolute file path or a URL. */
  location: string;
  /** Local files it was built from (the spec and the files it references), for hot reload. */
  files: string[];
  /** SHA-256 of a local spec's bytes as read and parsed, when `hash` was asked for. */
  sha256?: string;
  /**
   * A spec fetched by URL: the addresses its fetch connected to (a redirect's included), as the
   * connections saw them. Whether the spec came from the internet is decided from these, never
   * from a lookup of its own, which a name could answer differently (see `guardFetchedSpec`).
   */
  fetchedFrom?: string[];
}

export interface LoadOptions {
  /** Run the strict OpenAPI validation (many real specs fail it and still work). */
  validate?: boolean;
  /** Follow `$ref`s to http(s) URLs. */
  allowRemoteRefs?: boolean;
  /**
   * The directory local `$ref`s may read files within (relative to `baseDir`); by default the
   * directory of a spec file, or `baseDir` for a spec read from a pipe.
   */
  refsWithin?: string;
  /** Hash a local spec's bytes as they are read (the conversion cache's key), instead of reading it twice. */
  hash?: boolean;
  /** Which addresses and URLs remote references may be fetched from (tests widen the default). */
  remoteRefPolicy?: Pick<RemoteRefSettings, 'allowAddress' | 'allowUrl'>;
  /** Called when the spec's text has been read, before it is parsed. */
  beforeParse?: () => void;
  signal?: AbortSignal;
}

/**
 * Reads a spec from a file path or URL (JSON or YAML) and returns it with every reference internal.
 * The common case, one self-contained file, is read and parsed directly: swagger-parser (slow to
 * import, and it walks the whole tree) is loaded only to bundle external references or to validate.
 */
export async function loadDocument(
  spec: string,
  baseDir: string,
  options: LoadOptions = {},
): Promise<LoadedDocument> {
  const remote = /^https?:\/\//i.test(spec);
  const location = remote || isAbsolute(spec) ? spec : resolve(baseDir, spec);
  // The text is never held in a local of this async function, so it can be collected while the
  // tools are built (13 MB for GitHub's spec, twice that as a two-byte string).
  // A local file the user named that is not a spec is their input to fix (exit 2); a URL that
  // answers with something else is a failure at run time (exit 1).
  const code = remote ? 'load_failed' : 'invalid_input';
  let sha256: string | undefined;
  const hashed = options.hash
    ? (bytes: Buffer) => {
        sha256 = createHash('sha256').update(bytes).digest('hex');
      }
    : undefined;
  // How messages name the spec: a URL without the credentials its query or user info may hold.
  const shown = displayUrl(location);
  const fetchedFrom: string[] = [];
  const parsed = await parseSource(
    remote ? fetchText(location, fetchedFrom, options.signal) : readText(location, hashed, options.signal),
    shown,
    code,
    options.beforeParse,
  );
  let document = parsed.document;
  const version = detectVersion(document, shown, code);
  const files = remote ? [] : [location];

  if (parsed.external) {
    if (remote && !options.allowRemoteRefs) {
      throw new BridgeError(
        'load_failed',
        `${shown}: the spec references other documents by URL; pass --allow-remote-refs to follow them.`,
      );
    }
    if (options.allowRemoteRefs) refuseReferencedOrigin(document, shown, code);
    document = await bundle(location, baseDir, document, options, files);
  }
  if (options.validate) await validate(shown, document);
  return {
    document,
    version,
    location,
    files,
    ...(sha256 ? { sha256 } : {}),
    ...(remote ? { fetchedFrom } : {}),
  };
}

// Reads and parses in a frame of its own: once it returns, nothing holds the text. A local JSON
// file comes as bytes with room after them, decoded by `jsonTextInPlace`; its errors are reported
// from the exact UTF-8 text.
async function parseSource(
  pending: Promise<string | InputBytes>,
  location: string,
  code: BridgeErrorCode,
  beforeParse?: () => void,
): Promise<{ document: Record<string, unknown>; external: boolean }> {
  const source = await pending;
  beforeParse?.();
  if (typeof source !== 'string') {
    const decoded = jsonTextInPlace(source.bytes, source.spare) ?? {
      text: jsonText(source.bytes),
      original: () => source.bytes,
    };
    const external = hasExternalRefs(decoded.text);
    try {
      return { external, document: parseText(decoded.text, location, code) };
    } catch {
      return parseSource(Promise.resolve(decoded.original().toString('utf8')), location, code);
    }
  }
  if (!source.trimStart().startsWith('{')) await preloadYaml();
  return { external: hasExternalRefs(source), document: parseText(source, location, code) };
}

async function readText(
  path: string,
  hashed?: (bytes: Buffer) => void,
  signal?: AbortSignal,
): Promise<string | InputBytes> {
  // Bytes first, decoded once: with an encoding, fs/promises decodes each 512 KiB slice through a
  // StringDecoder and joins them into a rope that the parse must then flatten, all alive together
  // (GitHub's 13 MB spec: ~6-13 MB more peak RSS). JSON stays bytes, for `jsonTextInPlace`. Opened
  // and measured synchronously, so that the read is under way when the caller's first `await`
  // returns: the server's modules are evaluated meanwhile (see serve.ts).
  const { bytes, spare } = await readInputFile(path, {
    what: 'the OpenAPI spec',
    maxBytes: MAX_SPEC_BYTES,
    spare: SPARE_BYTES,
    ...(signal ? { signal } : {}),
  });
  hashed?.(bytes);
  const json = jsonBytes(bytes);
  return json ? { bytes: json, spare } : bytes.toString('utf8');
}

/** Room left after a file's bytes for the escapes of `jsonTextInPlace` (GitHub's spec needs ~500 bytes). */
const SPARE_BYTES = 64 * 1024;

/** A JSON document's bytes without a byte-order mark; undefined when `bytes` do not start as JSON. */
function jsonBytes(bytes: Buffer): Buffer | undefined {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (start < bytes.length && JSON_SPACE.has(bytes[start] as number)) start++;
  return bytes[start] === 0x7b ? bytes.subarray(start) : undefined;
}
// Space, tab, line feed, carriage return.
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

// A bound on what a URL may answer, far above the largest real specs (GitHub's is 13 MB, Microsoft
// Graph's under 100 MB): an endless or enormous body fails instead of exhausting memory.
const MAX_SPEC_BYTES = 256 * 2 ** 20;
/** The whole fetch of one referenced document, redirects and body included. */
const REMOTE_REF_TIMEOUT_MS = 20_000;
/** Every referenced document of one spec together. */
const REMOTE_REFS_TOTAL_MS = 120_000;

/** The text at `url`, pushing to `connectedTo` the address of every connection the fetch made. */
async function fetchText(url: string, connectedTo: string[], signal?: AbortSignal): Promise<string> {
  const { Agent, buildConnector, interceptors, request } = await import('undici');
  // undici 7 follows redirects only through its interceptor (`maxRedirections` on a request throws).
  const agent = new Agent({
    connect: recordingConnector(buildConnector, (address) => connectedTo.push(address ?? '')),
  });
  const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }));
  try {
    const { target, authorization } = withoutUserInfo(url);
    const response = await request(target, {
      dispatcher,
      headers: {
        accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
        // undici sends no user info of its own; a redirect to another origin drops the header.
        ...(authorization ? { authorization } : {}),
      },
      ...(signal ? { signal } : {}),
    });
    if (response.statusCode >= 400) {
      await response.body.dump();
      throw new Error(`the server answered HTTP ${response.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_SPEC_BYTES) {
        response.body.destroy();
        throw new Error(`the body is larger than ${mebibytes(MAX_SPEC_BYTES)}`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw new BridgeError(
      'load_failed',
      `cannot fetch the OpenAPI spec ${displayUrl(url)}: ${describeError(error)}.`,
      {
        cause: error,
      },
    );
  } finally {
    void agent.close();
  }
}

/** JSON when it looks like JSON (fast path for the 13 MB specs), YAML otherwise. */
function parseText(text: string, location: string, code: BridgeErrorCode): Record<string, unknown> {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (isHtmlPage(trimmed)) {
    // A documentation page (Swagger UI, Redoc) instead of the document it renders.
    throw new BridgeError(
      code,
      `${location} is an HTML page, not an OpenAPI document: give the URL or path of the JSON or YAML spec itself (Swagger UI pages name it, often …/openapi.json)`,
    );
  }
  let parsed: unknown;
  if (trimmed.startsWith('{')) {
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new BridgeError(code, `${location} is not valid JSON: ${describeError(error)}.`, {
        cause: error,
      });
    }
  } else {
    parsed = parseYaml(trimmed, location, code);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BridgeError(code, `${location} is not an OpenAPI document: its top level is not an object.`);
  }
  return parsed as Record<string, unknown>;
}

let yamlModule: typeof import('yaml') | undefined;
function parseYaml(text: string, location: string, code: BridgeErrorCode): unknown {
  // `yaml` is imported only for YAML specs (see `preloadYaml`): JSON specs never pay for it.
  if (!yamlModule) throw new BridgeError('internal', 'the YAML parser was not loaded');
  try {
    return yamlModule.parse(text, { maxAliasCount: 10_000, merge: true });
  } catch (error) {
    // The parser's message quotes the line it stopped at: of a binary file (an archive, an image),
    // bytes that would garble the terminal.
    const why = NOT_TEXT.test(text)
      ? 'it holds bytes that are not text (a binary file?)'
      : describeError(error);
    throw new BridgeError(code, `${location} is neither valid JSON nor valid YAML: ${why}.`, {
      cause: error,
    });
  }
}

// A NUL, another C0 control but tab and line ends, or what UTF-8 decoding put for invalid bytes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]/;

/** Loads the YAML parser; called before `parseText` is given YAML. */
async function preloadYaml(): Promise<void> {
  yamlModule ??= await import('yaml');
}

function detectVersion(
  document: Record<string, unknown>,
  location: string,
  code: BridgeErrorCode,
): SpecVersion {
  if (typeof document.swagger === 'string') {
    if (document.swagger.startsWith('2.')) return 'swagger2';
    throw new BridgeError(
      code,
      `${location}: Swagger version ${document.swagger} is not supported (2.0 is).`,
    );
  }
  if (typeof document.openapi === 'string') {
    if (document.openapi.startsWith('3.0')) return 'openapi30';
    if (document.openapi.startsWith('3.1')) return 'openapi31';
    throw new BridgeError(
      code,
      `${location}: OpenAPI version ${document.openapi} is not supported (2.0, 3.0 and 3.1 are).`,
    );
  }
  throw new BridgeError(
    code,
    `${location} is not an OpenAPI document: it has neither an "openapi" nor a "swagger" version field.`,
  );
}

// A `$ref` whose value does not start with `#` points into another document. Tried only where a
// `$ref` stands (found by `indexOf`): one regex over the whole text tried every position of
// GitHub's 13 MB (~15-20 ms), for the ~40,000 references it holds.
const EXTERNAL_REF = /\$ref["']?\s*:\s*["']?(?!#)[^\s"'#]/y;

function hasExternalRefs(text: string): boolean {
  for (let at = text.indexOf('$ref'); at >= 0; at = text.indexOf('$ref', at + 4)) {
    EXTERNAL_REF.lastIndex = at;
    if (EXTERNAL_REF.test(text)) return true;
  }
  return false;
}

// Loaded on demand: importing swagger-parser costs more than reading most specs.
async function swaggerParser() {
  const module = await import('@apidevtools/swagger-parser');
  return module.default;
}

async function bundle(
  location: string,
  baseDir: string,
  document: Record<string, unknown>,
  options: LoadOptions,
  files: string[],
): Promise<Record<string, unknown>> {
  const SwaggerParser = await swaggerParser();
  const parser = new SwaggerParser();
  // What every referenced document read together may take, local files and fetches alike.
  const bytes = { bytesLeft: MAX_SPEC_BYTES };
  // Local files are read by our resolver, never the parser's (see read-local-ref.ts): only regular
  // files, and only for references from local documents, never from a document fetched by URL
  // (a `file:///…` ref there would copy the user's files into the tools).
  const local = (await import('./read-local-ref.js')).localRefResolver(bytes, {
    dir: options.refsWithin ? resolve(baseDir, options.refsWithin) : await specDir(location, baseDir),
    flag: '--refs-within DIR, or refsWithin in a config file,',
  });
  // URLs are fetched by our resolver, never the parser's (see fetch-remote-ref.ts), loaded only
  // here: it brings the ref parser and a YAML parser with it (~1.5 ms of every start otherwise).
  const fetcher = options.allowRemoteRefs
    ? await (await import('./fetch-remote-ref.js')).remoteRefResolver({
        timeoutMs: REMOTE_REF_TIMEOUT_MS,
        totalMs: REMOTE_REFS_TOTAL_MS,
        bytes,
        ...options.remoteRefPolicy,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    : undefined;
  try {
    const bundled = await parser.bundle(
      location,
      structuredClone(document) as never,
      {
        resolve: {
          external: true,
          http: false,
          file: local.resolver,
          ...(fetcher ? { remote: fetcher.resolver } : {}),
        },
      } as never,
    );
    // The files actually read, as paths (a `file:` URL reference included): what a reload watches.
    for (const path of local.files) if (!files.includes(path)) files.push(path);
    return bundled as unknown as Record<string, unknown>;
  } catch (error) {
    // The parser's errors name the document they failed on: a local file's has nothing to do with URLs.
    const source = String((error as { source?: unknown } | undefined)?.source ?? '');
    const hint =
      options.allowRemoteRefs || /^(\/|file:)/i.test(source)
        ? ''
        : ' (references to http(s) URLs are followed only with --allow-remote-refs)';
    throw new BridgeError(
      'load_failed',
      `${displayUrl(location)}: cannot resolve an external $ref${hint}: ${describeError(error)}.`,
      {
        cause: error,
      },
    );
  } finally {
    void fetcher?.close();
  }
}

/**
 * The top-level members that choose where calls go, and so where the user's credentials go; and
 * those that choose which credentials they are (security schemes name the user's variables and
 * the token URL a client's secret is sent to).
 */
const TRUSTED_MEMBERS = ['servers', 'host', 'basePath', 'schemes', 'securityDefinitions', 'security'];

// With references followed to URLs, a document someone else serves could choose the origin the
// spec's calls, and the user's credentials, go to (169.254.169.254, a service on this machine), or
// which credentials those are (a scheme named after another source's, a token URL of its own):
// those members must be written in the spec itself. OpenAPI allows no `$ref` there anyway.
function refuseReferencedOrigin(
  document: Record<string, unknown>,
  shown: string,
  code: BridgeErrorCode,
): void {
  // A `$ref` at the root brings in whatever members the document it names has, servers included.
  if (Object.hasOwn(document, '$ref')) {
    throw new BridgeError(
      code,
      `${shown}: its root is a $ref, and references are followed to URLs (--allow-remote-refs): the document it names could choose the origin calls go to, with your credentials; write the spec's own members in it, referring only from below them.`,
    );
  }
  const refused = (member: string) =>
    new BridgeError(
      code,
      `${shown}: its ${member} come through a $ref, and references are followed to URLs (--allow-remote-refs): where calls go and which of your credentials they carry must be written in the spec itself.`,
    );
  for (const member of TRUSTED_MEMBERS) {
    if (Object.hasOwn(document, member) && holdsRef(document[member], 0))
      throw refused(`top-level ${member}`);
  }
  const components = document.components;
  if (components !== null && typeof components === 'object' && !Array.isArray(components)) {
    if (Object.hasOwn(components, '$ref')) throw refused('components');
    const schemes = (components as Record<string, unknown>).securitySchemes;
    if (Object.hasOwn(components, 'securitySchemes') && holdsRef(schemes, 0)) {
      throw refused('components.securitySchemes');
    }
  }
}

function holdsRef(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object' || depth > 16) return depth > 16;
  if (!Array.isArray(value) && Object.hasOwn(value, '$ref')) return true;
  return Object.values(value).some((inner) => holdsRef(inner, depth + 1));
}

// Where a spec's local references are read by default: beside a spec file, or for a spec read from
// a pipe (`<(curl …)`, whose directory is /dev/fd) the directory the bridge was started in.
async function specDir(location: string, baseDir: string): Promise<string> {
  if (/^https?:\/\//i.test(location)) return baseDir;
  const file = await stat(location).then(
    (info) => info.isFile(),
    () => false,
  );
  return file ? dirname(location) : baseDir;
}

async function validate(location: string, document: Record<string, unknown>): Promise<void> {
  const SwaggerParser = await swaggerParser();
  try {
    await SwaggerParser.validate(
      structuredClone(document) as never,
      {
        resolve: { external: false },
        dereference: { circular: 'ignore' },
      } as never,
    );
  } catch (error) {
    throw new BridgeError(
      'load_failed',
      `${location} fails OpenAPI validation (--validate): ${describeError(error)}. Drop --validate to serve it anyway.`,
      { cause: error },
    );
  }
}

/** `url` without its user info, and that user info as HTTP Basic credentials (`user:pass@host`). */
function withoutUserInfo(url: string): { target: string; authorization?: string } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { target: url };
  const pair = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { target: parsed.href, authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}
