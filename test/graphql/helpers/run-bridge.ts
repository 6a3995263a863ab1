import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BRIDGE_BIN } from '../../helpers/start-bridge.js';

/** Runs `bridge graphql …` to its exit (it must fail before serving): its code, stderr and time taken. */
export async function runBridge(
  args: string[],
): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [BRIDGE_BIN, 'graphql', ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, stderr, ms: Date.now() - started };
}
