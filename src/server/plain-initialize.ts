import { isPlainObject } from '../plain-object.js';
import { REQUEST_KEYS } from './answer-tools-call.js';

// An initialize-era `initialize` request the stdio lane may answer without the SDK's message
// schemas (see `createStdioLane`): params whose every member is one the SDK's
// `InitializeRequestSchema` accepts and passes on unchanged, so that the server is initialized with
// exactly what the SDK would have given it. Anything else (a `_meta`, icons, task or experimental
// capabilities, a member the schema would strip or reshape, a wrong type) is the SDK's to read.

/** The request, and its params as the SDK's schema would give them to `Server._oninitialize`. */
export interface PlainInitialize {
  id: string | number;
  params: {
    protocolVersion: string;
    capabilities: Record<string, unknown>;
    clientInfo: Record<string, string>;
  };
}

const PARAMS = new Set(['protocolVersion', 'capabilities', 'clientInfo']);
/** `Implementation` members that are strings (`icons` is not taken). */
const CLIENT_INFO = new Set(['name', 'title', 'version', 'websiteUrl', 'description']);

/** The plain `initialize` request `message` is, or undefined. */
export function plainInitializeRequest(message: unknown): PlainInitialize | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize')
    return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || typeof params.protocolVersion !== 'string') return undefined;
  for (const key in params) if (!PARAMS.has(key)) return undefined;
  const { clientInfo } = params;
  if (!isPlainClientInfo(clientInfo)) return undefined;
  const capabilities = plainCapabilities(params.capabilities);
  if (!capabilities) return undefined;
  return {
    id: id as string | number,
    params: {
      protocolVersion: params.protocolVersion,
      capabilities,
      clientInfo,
    },
  };
}

/** An `Implementation` of strings only, with its required `name` and `version`. */
export function isPlainClientInfo(clientInfo: unknown): clientInfo is Record<string, string> {
  if (
    !isPlainObject(clientInfo) ||
    typeof clientInfo.name !== 'string' ||
    typeof clientInfo.version !== 'string'
  )
    return false;
  for (const key in clientInfo)
    if (!CLIENT_INFO.has(key) || typeof clientInfo[key] !== 'string') return false;
  return true;
}

// The client capabilities as the SDK's schema gives them, for the common forms only: `roots` with
// at most a boolean `listChanged`, an empty `sampling`, and `elicitation` empty (which the schema
// reads as `{form: {}}`, the form mode of clients before URL elicitation) or naming its modes
// with empty objects.
export function plainCapabilities(capabilities: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(capabilities)) return undefined;
  const parsed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(capabilities)) {
    if (!isPlainObject(value)) return undefined;
    const members = Object.keys(value);
    if (key === 'roots') {
      if (members.some((member) => member !== 'listChanged' || typeof value[member] !== 'boolean'))
        return undefined;
    } else if (key === 'sampling') {
      if (members.length > 0) return undefined;
    } else if (key === 'elicitation') {
      if (members.length === 0) {
        parsed[key] = { form: {} };
        continue;
      }
      const mode = (member: string) =>
        (member === 'form' || member === 'url') &&
        isPlainObject(value[member]) &&
        Object.keys(value[member]).length === 0;
      if (!members.every(mode)) return undefined;
    } else {
      return undefined;
    }
    parsed[key] = value;
  }
  return parsed;
}
