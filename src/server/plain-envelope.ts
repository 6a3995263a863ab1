import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../plain-object.js';
import { isPlainClientInfo, plainCapabilities } from './plain-initialize.js';

// A 2026-07-28 `_meta` envelope that the SDK's envelope schema accepts as it is, read without that
// schema (which the SDK builds on the first request: ~10 ms of a start). Only the common forms are
// taken, the ones `plainInitializeRequest` takes of an initialize-era client: the revision
// 2026-07-28, capabilities of the plain forms (the 2026-07-28 schema reuses the initialize-era
// shapes of `roots`, `sampling` and `elicitation`), and a client of strings only, or none. A
// progress token, a log level or anything else is the SDK's to read.

/** The one 2026-07-28 revision the direct lanes answer; anything else goes to the SDK. */
export const REVISION = '2026-07-28';

/** True when `meta` is a plain envelope (see above). */
export function isPlainEnvelope(meta: unknown): meta is Record<string, unknown> {
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== REVISION) return false;
  for (const key in meta) {
    if (key === PROTOCOL_VERSION_META_KEY) continue;
    if (key === CLIENT_CAPABILITIES_META_KEY) {
      if (!plainCapabilities(meta[key])) return false;
    } else if (key !== CLIENT_INFO_META_KEY || !isPlainClientInfo(meta[key])) {
      return false;
    }
  }
  return CLIENT_CAPABILITIES_META_KEY in meta;
}
