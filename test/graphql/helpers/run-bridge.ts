import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BRIDGE_BIN } from '../../helpers/start-bridge.js';

/**
 * Runs `bridge graphql …` to its exit (it must fail before serving): its code (null when killed
 * after 20 s) and stderr.
 */
export async function runBridge(args: string[]): Promise<{ code: number | null; stderr: string }> {
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
  return { code: code as number | null, stderr };
}
