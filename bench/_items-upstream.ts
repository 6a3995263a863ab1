// The upstream API of the call benchmarks, in a process of its own as a real API is: answers
// GET /v1/items/{id} with a small JSON object and prints its port on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({ id: req.url?.split('/').pop(), name: 'item', tags: ['a', 'b'] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
// Ends with the benchmark that started it.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
