import type { Server } from '@modelcontextprotocol/server';

// When a session's `tools/call` handler is done with a request: answered, or not (a call its
// client cancelled gets no answer, yet its tool may run on until it heeds the abort). The session's
// transport learns it here, to give the caller's call slot back then rather than at the
// cancellation: a caller could otherwise run any number of calls at once by cancelling each one
// it sent (see `SessionCalls`).

const hooks = new WeakMap<Server, (id: string | number) => void>();

/** Calls `hook` with each request id whose `tools/call` handler on `server` has settled. */
export function onCallSettled(server: Server, hook: (id: string | number) => void): void {
  hooks.set(server, hook);
}

/** The `tools/call` handler on `server` is done with request `id`. */
export function callSettled(server: Server, id: string | number): void {
  hooks.get(server)?.(id);
}
