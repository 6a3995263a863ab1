// A client cannot start more processes by asking for tasks than by plain calls: past 32 running
// tasks per caller the next is refused, and one finishing (here: cancelled) frees its place.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from './helpers.js';

const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** How many `sleep 60` processes `parent` has started (read from /proc). */
function sleepersOf(parent: number | undefined): number {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8') === 'sleep\u000060\u0000';
    } catch {
      return false;
    }
  }).length;
}

describe('running tasks per caller (2026-07-28 over HTTP)', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({ script: distPath('test/servers/tasks-server.js'), args: [] });
  });
  afterAll(async () => bridge?.[Symbol.asyncDispose]());

  const request = (method: string, params: Record<string, unknown>) =>
    modernRequest(bridge.url, method, params, { capabilities: tasks });
  const sleep = () => request('tools/call', { name: 'sleep_required', arguments: { seconds: 60 } });
  const sleepers = () => sleepersOf(bridge.child.pid);

  it('refuses the 33rd, starts nothing for it, and accepts again once one is cancelled', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 32; i++) {
      const created = await sleep();
      expect(created.json?.result?.resultType, JSON.stringify(created.json)).toBe('task');
      ids.push(String(created.json?.result?.taskId));
    }
    await eventually(async () => (sleepers() === 32 ? true : undefined));
    const refused = await sleep();
    expect(refused.json?.error?.code).toBe(-32603);
    expect(refused.json?.error?.message).toContain('already has 32 tasks running here');
    expect(sleepers()).toBe(32);

    await request('tasks/cancel', { taskId: ids[0] });
    const again = await eventually(async () => {
      const created = await sleep();
      return created.json?.result?.resultType === 'task' ? created : undefined;
    });
    ids[0] = String(again.json?.result?.taskId);
    for (const taskId of ids) await request('tasks/cancel', { taskId });
    await eventually(async () => (sleepers() === 0 ? true : undefined));
  });
});
