import type { Logger } from '../logger.js';
import { clip } from '../quote-input.js';

/** Characters of one reported error a log line keeps. */
const MAX_LOGGED_CHARS = 1_000;

/**
 * What a transport passes the SDK as `onerror`: its reports, logged at debug. Many quote the
 * request they are about (a refused request's params.name or method, a protocol version nobody
 * supports, a message it dropped), whole: a line keeps the first 1,000 characters, so that one
 * request cannot write as many megabytes to the log as it carried.
 */
export function logSdkErrors(log: Logger, transport: 'http' | 'stdio'): (error: Error) => void {
  return (error) => log.debug(`${transport}: ${clip(error.message, MAX_LOGGED_CHARS)}`);
}
