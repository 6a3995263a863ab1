import { escapeControl } from './escape-control.js';

/** Severity levels, the syslog subset MCP's logging uses. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

/**
 * Where the bridge and its adapters write diagnostics. Never stdout: on stdio, stdout carries only
 * protocol messages. Inside a tool call the logger also forwards to the client (MCP logging).
 */
export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4 };

/**
 * A logger writing one line per message to stderr, dropping messages below `level`. Control
 * characters in the message and its data (a spec's path, a stack trace) are written escaped, so a
 * message is one line and cannot forge another or send escape sequences to the terminal.
 */
export function createStderrLogger(level: LogLevel = 'info', prefix = 'bridge'): Logger {
  const write = (at: LogLevel, message: string, data?: unknown) => {
    if (ORDER[at] < ORDER[level]) return;
    const suffix = data === undefined ? '' : ` ${safeStringify(data)}`;
    process.stderr.write(`${prefix} ${at}: ${escapeControl(`${message}${suffix}`)}\n`);
  };
  return {
    debug: (message, data) => write('debug', message, data),
    info: (message, data) => write('info', message, data),
    warn: (message, data) => write('warning', message, data),
    error: (message, data) => write('error', message, data),
  };
}

/** A logger that drops everything (tests, `--quiet`). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function safeStringify(data: unknown): string {
  if (data instanceof Error) return data.stack ?? data.message;
  try {
    return JSON.stringify(data);
  } catch {
    return String(data);
  }
}
