import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { graphqlCjs } from './graphql-cjs.js';

/** One request the server received, as sent by the bridge. */
export interface SeenRequest {
  headers: IncomingHttpHeaders;
  body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
}

export interface GraphqlServer extends AsyncDisposable {
  url: string;
  /** Every request so far, in order. */
  requests: SeenRequest[];
}

export interface GraphqlServerOptions {
  /** Refuse `__schema` / `__type` queries, as production servers often do. */
  introspection?: boolean;
  /** Answer every request with this status and body instead of running GraphQL. */
  raw?: { status: number; body: string };
  /** Wait this long before answering. */
  delayMs?: number;
}

/**
 * A real GraphQL-over-HTTP server (graphql-http's Node handler on node:http) on 127.0.0.1:0,
 * recording what it receives. Close it with `await using`.
 */
export async function startGraphqlServer(
  schema: GraphQLSchema,
  options: GraphqlServerOptions = {},
): Promise<GraphqlServer> {
  const requests: SeenRequest[] = [];
  const handler = createHandler({
    schema,
    onSubscribe(req, params) {
      requests.push({ headers: req.headers as IncomingHttpHeaders, body: params as SeenRequest['body'] });
    },
    ...(options.introspection === false
      ? { validationRules: [...graphqlCjs.specifiedRules, graphqlCjs.NoSchemaIntrospectionCustomRule] }
      : {}),
  });
  const server = createServer(async (req, res) => {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (options.raw) {
      res.writeHead(options.raw.status, { 'content-type': 'text/plain' }).end(options.raw.body);
      return;
    }
    await handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
