import { createHttpHandler } from './http-handler.js';
import { isLoopback } from './listen-address.js';
import { logSdkErrors } from './log-sdk-errors.js';
import { serveHttp } from './serve-http.js';
import type { HttpTransportOptions, StartTransport } from './transport.js';

/**
 * Serves MCP over Streamable HTTP on `options.address`, both eras on one endpoint (see
 * `createHttpHandler`), with the host guards, authentication and limits the options ask for.
 */
export const startHttp: StartTransport<HttpTransportOptions> = async (options, setup) => {
  const { log } = setup;
  const handler = createHttpHandler(setup.factory, {
    log,
    toolInputSchema: setup.toolInputSchema,
    ...hostGuards(options),
    ...(options.maxRequestBodySize === undefined ? {} : { maxRequestBodySize: options.maxRequestBodySize }),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    ...(options.authorize ? { authorize: options.authorize } : {}),
    ...(options.maxSessionsPerCaller === undefined
      ? {}
      : { maxSessionsPerCaller: options.maxSessionsPerCaller }),
    // The bridge's own routes first (the sign-in redirect needs no bearer token), then the caller's.
    routes: async (request, url) => (await setup.routes?.(request, url)) ?? options.routes?.(request, url),
    ...(options.instance ? { instance: options.instance } : {}),
    taskFeed: setup.factory.taskFeed,
    ...(setup.factory.direct ? { direct: setup.factory.direct } : {}),
    ...(setup.factory.sessionLane ? { sessionLane: setup.factory.sessionLane } : {}),
    ...(setup.factory.sessionClosed ? { sessionClosed: setup.factory.sessionClosed } : {}),
    resourceSubscriptions: setup.resourceSubscriptions,
  });
  const running = await serveHttp(handler, options.address, {
    ...options.limits,
    ...(options.maxRequestBodySize === undefined ? {} : { maxRequestBodySize: options.maxRequestBodySize }),
    log,
    ...(options.proxies ? { proxies: options.proxies } : {}),
    onerror: logSdkErrors(log, 'http'),
  });
  return {
    url: running.url,
    closed: new Promise((resolve) => running.server.once('close', resolve)),
    close: running.close,
    delivery: {
      legacy: { ...handler.notify.legacy, resourceUpdated: (uri) => setup.legacyResourceUpdated(uri) },
      modern: handler.notify.modern,
    },
  };
};

// Loopback binds accept only localhost names; other binds accept what the user lists. Browsers on
// this machine may always call.
const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function hostGuards(options: HttpTransportOptions) {
  const allowedOrigins = [...LOCAL_NAMES, ...(options.allowedOrigins ?? [])];
  if (isLoopback(options.address.host)) {
    return { allowedHosts: [...LOCAL_NAMES, ...(options.allowedHosts ?? [])], allowedOrigins };
  }
  return { ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}), allowedOrigins };
}
