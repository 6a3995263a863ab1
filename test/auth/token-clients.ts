import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The calls the auth tests make, the same for both SDK generations. */
export interface TokenClient extends AsyncDisposable {
  listTools(): Promise<string[]>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ content: Array<{ type: string; text?: string }> }>;
  readResource(uri: string): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
  /** The SDK client itself. */
  raw: ClientV1 | ClientV2;
}

/**
 * Connects the v1 client (initialize era) or the v2 client pinned to 2026-07-28 to `url`, sending
 * `token` as a bearer token on every request (the plain `requestInit` way, no OAuth provider).
 */
export async function connectWithToken(kind: 'v1' | 'v2', url: URL, token: string): Promise<TokenClient> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const client =
    kind === 'v1'
      ? new ClientV1({ name: 'auth-test-v1', version: '1.0.0' })
      : new ClientV2(
          { name: 'auth-test-v2', version: '2.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
  const transport = kind === 'v1' ? new HttpV1(url, { requestInit }) : new HttpV2(url, { requestInit });
  await (client as ClientV1).connect(transport as HttpV1);
  const any = client as unknown as {
    listTools(): Promise<{ tools: Array<{ name: string }> }>;
    callTool(params: unknown): Promise<{ content: Array<{ type: string; text?: string }> }>;
    readResource(params: unknown): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
    close(): Promise<void>;
  };
  return {
    raw: client,
    async listTools() {
      return (await any.listTools()).tools.map((tool) => tool.name);
    },
    callTool: (name, args = {}) => any.callTool({ name, arguments: args }),
    readResource: (uri) => any.readResource({ uri }),
    async [Symbol.asyncDispose]() {
      await any.close().catch(() => {});
    },
  };
}
