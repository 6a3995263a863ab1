import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type ServerCommand, startHttpBridge, type Wire } from './start-bridge.js';

/** The SDK client generations the bridge must serve: v1 (initialize era), v2 pinned to 2026-07-28. */
export type ClientKind = 'v1' | 'v2';

/** What the tests need of a client, the same for both SDK generations. */
export interface TestClient extends AsyncDisposable {
  kind: ClientKind;
  wire: Wire;
  listTools(): Promise<{ tools: Array<Record<string, unknown> & { name: string }> }>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: { onprogress?: (progress: unknown) => void; signal?: AbortSignal; timeout?: number },
  ): Promise<Record<string, unknown> & { content: Array<Record<string, unknown>>; isError?: boolean }>;
  readResource(uri: string): Promise<{ contents: Array<Record<string, unknown>> }>;
  /** The underlying SDK client, for anything else. */
  raw: ClientV1 | ClientV2;
  /** What the server wrote to stderr so far (its log), on either wire. */
  stderr(): string;
}

/** Every client × wire combination, for `describe.each`. */
export const MATRIX: Array<{ kind: ClientKind; wire: Wire }> = [
  { kind: 'v1', wire: 'stdio' },
  { kind: 'v1', wire: 'http' },
  { kind: 'v2', wire: 'stdio' },
  { kind: 'v2', wire: 'http' },
];

/**
 * What the client offers the server: capabilities, and one era-neutral answerer for the server's
 * questions (`elicitation/create`, `sampling/createMessage`, `roots/list`). The v1 client answers
 * them as server→client requests; the v2 client pinned to 2026-07-28 answers the same questions
 * when they arrive as `input_required` rounds.
 */
export interface ClientOffer {
  capabilities: Record<string, unknown>;
  answer?: (
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<Record<string, unknown>>;
}

/** A client that answers every confirmation (form elicitation) with `answer`, keeping the messages it was shown. */
export function confirming(answer: Record<string, unknown>): ClientOffer & { shown: string[] } {
  const shown: string[] = [];
  return {
    shown,
    capabilities: { elicitation: { form: {} } },
    async answer(method, params) {
      if (method !== 'elicitation/create') throw new Error(`unexpected ${method}`);
      shown.push(String(params.message));
      return answer;
    },
  };
}

/** Starts the server `command` and connects a `kind` client to it over `wire`. */
export async function connect(
  kind: ClientKind,
  wire: Wire,
  command: ServerCommand,
  offer?: ClientOffer,
): Promise<TestClient> {
  const env = { ...(process.env as Record<string, string>), ...command.env };
  const http = wire === 'http' ? await startHttpBridge(command) : undefined;
  let client: ClientV1 | ClientV2;
  // Over stdio the server's log is the child's stderr, kept here for `stderr()`.
  let stdioStderr = '';
  const capture = (stream: import('node:stream').Stream | null | undefined) =>
    stream?.on('data', (chunk: Buffer) => {
      stdioStderr += chunk.toString();
    });
  if (kind === 'v1') {
    const v1 = new ClientV1(
      { name: 'bridge-test-v1', version: '1.0.0' },
      offer ? { capabilities: offer.capabilities } : undefined,
    );
    if (offer?.answer) answerV1(v1, offer);
    const transport = http
      ? new HttpV1(http.url)
      : new StdioV1({
          command: process.execPath,
          args: [command.script, ...command.args],
          env,
          ...cwd(command),
          stderr: 'pipe',
        });
    if (transport instanceof StdioV1) capture(transport.stderr);
    await v1.connect(transport);
    client = v1;
  } else {
    const v2 = new ClientV2(
      { name: 'bridge-test-v2', version: '2.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        ...(offer ? { capabilities: offer.capabilities } : {}),
      },
    );
    if (offer?.answer) answerV2(v2, offer);
    const transport = http
      ? new HttpV2(http.url)
      : new StdioV2({
          command: process.execPath,
          args: [command.script, ...command.args],
          env,
          ...cwd(command),
          stderr: 'pipe',
        });
    if (transport instanceof StdioV2) capture(transport.stderr);
    await v2.connect(transport);
    client = v2;
  }
  const any = client as unknown as {
    listTools(
      params?: unknown,
    ): Promise<{ tools: Array<Record<string, unknown> & { name: string }>; nextCursor?: string }>;
    callTool(params: unknown, a?: unknown, b?: unknown): Promise<never>;
    readResource(params: unknown): Promise<never>;
    close(): Promise<void>;
  };
  return {
    kind,
    wire,
    raw: client,
    stderr: () => http?.stderr() ?? stdioStderr,
    async listTools() {
      const tools: Array<Record<string, unknown> & { name: string }> = [];
      let cursor: string | undefined;
      do {
        const page = await any.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return { tools };
    },
    callTool(name, args = {}, options = {}) {
      const params = { name, arguments: args };
      // v1: callTool(params, resultSchema?, options); v2: callTool(params, options).
      return kind === 'v1' ? any.callTool(params, undefined, options) : any.callTool(params, options);
    },
    readResource: (uri) => any.readResource({ uri }),
    async [Symbol.asyncDispose]() {
      await any.close().catch(() => {});
      await http?.[Symbol.asyncDispose]();
    },
  };
}

function cwd(command: ServerCommand) {
  return command.cwd ? { cwd: command.cwd } : {};
}

type Answer = NonNullable<ClientOffer['answer']>;
const ASKED = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;
// The SDK clients refuse a handler for a capability they did not declare.
const DECLARED = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;

function answerV1(client: ClientV1, offer: ClientOffer): void {
  const answer = offer.answer as Answer;
  const schemas = {
    'elicitation/create': ElicitRequestSchema,
    'sampling/createMessage': CreateMessageRequestSchema,
    'roots/list': ListRootsRequestSchema,
  };
  for (const method of ASKED) {
    if (!offer.capabilities[DECLARED[method]]) continue;
    client.setRequestHandler(
      schemas[method] as typeof ElicitRequestSchema,
      ((request: { params?: unknown }, extra: { signal: AbortSignal }) =>
        answer(method, (request.params ?? {}) as Record<string, unknown>, extra.signal)) as never,
    );
  }
}

function answerV2(client: ClientV2, offer: ClientOffer): void {
  const answer = offer.answer as Answer;
  for (const method of ASKED) {
    if (!offer.capabilities[DECLARED[method]]) continue;
    client.setRequestHandler(method, ((
      request: { params?: unknown },
      ctx: { mcpReq: { signal: AbortSignal } },
    ) => answer(method, (request.params ?? {}) as Record<string, unknown>, ctx.mcpReq.signal)) as never);
  }
}
