import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { distPath } from '../helpers/start-bridge.js';

/** The real command line serving the `notes` tools (echo, whoami, long, wait, write_note). */
export const AUTH_SERVER = distPath('test/servers/auth-server.js');

/** What the security tests do with a client, the same for both SDK generations. */
export interface HeaderClient extends AsyncDisposable {
  callTool(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ content: Array<{ type: string; text?: string; uri?: string }> }>;
  listResources(): Promise<string[]>;
  readResource(uri: string): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
  /** The initialize-era session id (v1 client), `undefined` for the stateless v2 client. */
  sessionId(): string | undefined;
}

/**
 * Connects the v1 client (initialize era, one session) or the v2 client pinned to 2026-07-28
 * (stateless) to `url`, sending `headers` on every request.
 */
export async function connectWithHeaders(
  kind: 'v1' | 'v2',
  url: URL,
  headers: Record<string, string> = {},
): Promise<HeaderClient> {
  const requestInit = { headers };
  const client =
    kind === 'v1'
      ? new ClientV1({ name: 'security-v1', version: '1.0.0' })
      : new ClientV2(
          { name: 'security-v2', version: '2.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
  const transport = kind === 'v1' ? new HttpV1(url, { requestInit }) : new HttpV2(url, { requestInit });
  await (client as ClientV1).connect(transport as HttpV1);
  const any = client as unknown as {
    callTool(params: unknown): ReturnType<HeaderClient['callTool']>;
    listResources(): Promise<{ resources: Array<{ uri: string }> }>;
    readResource(params: unknown): ReturnType<HeaderClient['readResource']>;
    close(): Promise<void>;
  };
  return {
    callTool: (name, args = {}) => any.callTool({ name, arguments: args }),
    async listResources() {
      return (await any.listResources()).resources.map((resource) => resource.uri);
    },
    readResource: (uri) => any.readResource({ uri }),
    sessionId: () => (transport as { sessionId?: string }).sessionId,
    async [Symbol.asyncDispose]() {
      await any.close().catch(() => {});
    },
  };
}

/** Runs the auth server with `args` (and `--http 127.0.0.1:0` unless they say where), expecting it to refuse to start. */
export async function refusedStart(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const http = args.includes('--http') ? [] : ['--http', '127.0.0.1:0'];
  const child = spawn(process.execPath, [AUTH_SERVER, 'notes', ...args, ...http], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // A server that starts after all is a failed expectation: stop it rather than hang.
    if (/listening/.test(stderr)) child.kill('SIGTERM');
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stderr };
}

/** The page links (`bridge://output/…`) of a tool result. */
export function pageLinks(result: { content: Array<{ type: string; uri?: string }> }): string[] {
  return result.content
    .filter((item) => item.type === 'resource_link' && item.uri)
    .map((item) => item.uri as string);
}
