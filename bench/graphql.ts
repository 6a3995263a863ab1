// GraphQL benchmark: start-up from GitHub's ~5 MB introspection JSON to the first tools/list answer
// (a fresh `bridge graphql --schema schema.json` over stdio), against the floor of a fresh Node
// process that only reads the file, runs JSON.parse and graphql-js's buildClientSchema.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Measurement, percentile, report } from './_report.js';

const RUNS = 7;
const MAX_RATIO = 3;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BRIDGE_BIN = fileURLToPath(new URL('../bin/bridge.js', import.meta.url));
const SCHEMA_JSON = join(
  dirname(fileURLToPath(import.meta.resolve('@octokit/graphql-schema'))),
  'schema.json',
);

const FLOOR_SCRIPT = `
import { readFileSync } from 'node:fs';
import { buildClientSchema } from 'graphql';
const schema = buildClientSchema(JSON.parse(readFileSync(${JSON.stringify(SCHEMA_JSON)}, 'utf8')));
if (!schema.getQueryType()) process.exit(1);
`;

/** Milliseconds from spawn to exit of a Node process doing only what any schema consumer must do. */
function floorOnce(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_SCRIPT], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`floor exited ${code}`)),
    );
  });
}

/** Milliseconds from spawn to the tools/list answer of `bridge graphql` over stdio; returns the tool count too. */
function bridgeOnce(): Promise<{ ms: number; tools: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BRIDGE_BIN, 'graphql', 'http://127.0.0.1:9/graphql', '--schema', SCHEMA_JSON, '--log-level', 'error'],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] }; error?: unknown };
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          const ms = performance.now() - started;
          child.kill();
          if (!message.result?.tools)
            reject(new Error(`tools/list failed: ${JSON.stringify(message.error)}`));
          else resolve({ ms, tools: message.result.tools.length });
        }
        newline = buffer.indexOf('\n');
      }
    });
    child.once('exit', (code) => reject(new Error(`bridge exited ${code} before answering tools/list`)));
  });
}

const floors: number[] = [];
const bridges: number[] = [];
let tools = 0;
await floorOnce(); // warm the file cache for both sides
for (let run = 0; run < RUNS; run++) {
  floors.push(await floorOnce());
  const result = await bridgeOnce();
  bridges.push(result.ms);
  tools = result.tools;
}

const floor = percentile(floors, 50);
const measurements: Measurement[] = [
  { name: 'floor: node + read + JSON.parse + buildClientSchema (p50)', value: floor, unit: 'ms' },
  {
    name: `bridge graphql --schema GitHub introspection → first tools/list, ${tools} tools (p50)`,
    value: percentile(bridges, 50),
    unit: 'ms',
    floor,
    maxRatio: MAX_RATIO,
  },
];
process.exitCode = report(measurements) ? 0 : 1;
