import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/** The resident set size of process `pid`, in bytes (Linux). */
export function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** A raw TCP connection to `url`'s host and port, for requests no HTTP client would send. */
export function openSocket(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** What the server did with a raw connection: what it wrote, and whether it closed the connection. */
export function outcome(socket: Socket): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    socket.on('error', () => {});
    socket.once('close', () => resolve({ text, closed: true }));
  });
}

/** The head of a POST to `url` declaring `length` body bytes. */
export function postHead(url: URL, length: number, headers: Record<string, string> = {}): string {
  const lines = [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}
