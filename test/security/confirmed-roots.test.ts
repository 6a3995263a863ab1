// What the user confirms is where a command runs: a call reads the client's roots once, so the
// preview a confirmation shows and the run that follows agree, whatever the client says between
// them (a roots/list_changed while the user reads, another roots answer in a later 2026-07-28
// round, a task's later question); and a command whose action changed while the user was asked
// (a symbolic link retargeted) does not run. Real bridge processes and SDK clients, and a fixture
// CLI that records where it ran.
import { mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir } from '../cli/helpers.js';
import { connect, MATRIX } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge, type Wire } from '../helpers/start-bridge.js';
import { eventually } from '../tasks/helpers.js';

const WHERE_CLI = fileURLToPath(new URL('../../fixtures/cli/where-cli.mjs', import.meta.url));

/** A root with two workspaces, `r1` and `r2`, and the file where-cli records its runs in. */
function world() {
  const base = tempDir('bridge-confirmed-roots-');
  const cache = tempDir('bridge-confirmed-roots-cache-');
  const r1 = join(base.path, 'r1');
  const r2 = join(base.path, 'r2');
  mkdirSync(r1);
  mkdirSync(r2);
  const log = join(base.path, 'runs.jsonl');
  writeFileSync(log, '');
  return {
    base: base.path,
    r1,
    r2,
    env: { WHERE_CLI_LOG: log, BRIDGE_CACHE_DIR: cache.path },
    /** Every run where-cli recorded: its working directory and argv. */
    runs: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { cwd: string; argv: string[] }),
    [Symbol.dispose]() {
      base[Symbol.dispose]();
      cache[Symbol.dispose]();
    },
  };
}

const rootsOf = (dir: string) => ({ roots: [{ uri: pathToFileURL(dir).href, name: dir }] });
const accepted = { action: 'accept', content: { confirm: true } };

describe.each(MATRIX)(
  'a confirmed command runs where it was confirmed ($kind client, $wire)',
  ({ kind, wire }) => {
    it('reads the roots once a call: a roots change after the confirmation was shown does not move it', async () => {
      using w = world();
      let rootsAsked = 0;
      const shown: string[] = [];
      let raw: ClientV1 | undefined;
      await using client = await connect(
        kind,
        wire,
        {
          script: BRIDGE_BIN,
          args: ['cli', WHERE_CLI, '--root', w.base, '--confirm', 'always', '--no-watch', '--no-cache'],
          env: w.env,
        },
        {
          capabilities: { roots: { listChanged: true }, elicitation: { form: {} } },
          async answer(method, params) {
            // The user's workspace is r1 until the confirmation is on screen; then it switches to r2.
            if (method === 'roots/list') return rootsOf(rootsAsked++ === 0 ? w.r1 : w.r2);
            shown.push(String(params.message));
            // Initialize era: the client says so while the user reads the confirmation.
            await raw?.sendRootsListChanged();
            return accepted;
          },
        },
      );
      if (kind === 'v1') raw = client.raw as ClientV1;

      const result = await client.callTool('where_cli_mark', { label: 'here' });
      expect(result.isError).toBeFalsy();
      expect(shown).toHaveLength(1);
      expect(shown[0]).toContain(`(in ${w.r1})`);
      expect(w.runs()).toEqual([{ cwd: w.r1, argv: ['--label=here'] }]);
      // One roots question for the call, in either era: the run took the answer the preview had.
      expect(rootsAsked).toBe(1);
    });
  },
);

describe.each(['stdio', 'http'] as Wire[])(
  'a confirmed action that changed meanwhile (v1 client, %s)',
  (wire) => {
    it('is not run when the cwd it resolves to changed while the user was asked', async () => {
      using w = world();
      const link = join(w.base, 'work');
      symlinkSync(w.r1, link);
      const shown: string[] = [];
      await using client = await connect(
        'v1',
        wire,
        {
          script: BRIDGE_BIN,
          args: ['cli', WHERE_CLI, '--root', w.base, '--confirm', 'always', '--no-watch', '--no-cache'],
          env: w.env,
        },
        {
          capabilities: { elicitation: { form: {} } },
          async answer(_method, params) {
            shown.push(String(params.message));
            // While the user reads "(in r1)", the link is pointed at r2.
            unlinkSync(link);
            symlinkSync(w.r2, link);
            return accepted;
          },
        },
      );
      const result = await client.callTool('where_cli_mark', { cwd: 'work' });
      expect(shown[0]).toContain(`(in ${w.r1})`);
      expect(result.isError).toBe(true);
      const text = String(result.content[0]?.text);
      expect(text).toContain('changed while the user was asked');
      expect(text).toContain(`(in ${w.r2})`);
      expect(w.runs()).toEqual([]);
    });
  },
);

describe('a confirmed 2026-07-28 task', () => {
  it('runs where its confirmation said, asking the roots once', async () => {
    using w = world();
    const config = join(w.base, 'bridge.yaml');
    writeFileSync(
      config,
      stringify({
        sources: [
          {
            kind: 'cli',
            options: { program: WHERE_CLI, roots: [w.base] },
            confirm: 'always',
            tools: { where_cli_mark: { taskSupport: 'optional' } },
          },
        ],
      }),
    );
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', config, '--no-watch'],
      env: w.env,
    });
    const capabilities = {
      roots: {},
      elicitation: { form: {} },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    };
    const request = (method: string, params: Record<string, unknown>) =>
      modernRequest(bridge.url, method, params, { capabilities });
    const created = await request('tools/call', { name: 'where_cli_mark', arguments: { label: 'task' } });
    expect(created.json?.result?.resultType).toBe('task');
    const taskId = String(created.json?.result?.taskId);

    const asked: string[] = [];
    const confirmations: string[] = [];
    const result = await eventually(async () => {
      const task = (await request('tasks/get', { taskId })).json?.result;
      if (task?.status === 'completed') return task.result as { isError?: boolean };
      if (task?.status !== 'input_required') return undefined;
      const questions = task.inputRequests as Record<
        string,
        { method: string; params: { message?: string } }
      >;
      const answers: Record<string, unknown> = {};
      for (const [key, question] of Object.entries(questions)) {
        if (asked.includes(key)) continue;
        asked.push(key);
        if (question.method === 'roots/list') {
          // A second roots question would get the other workspace.
          answers[key] = rootsOf(asked.filter((k) => k.startsWith('roots')).length === 1 ? w.r1 : w.r2);
        } else {
          confirmations.push(String(question.params.message));
          answers[key] = accepted;
        }
      }
      if (Object.keys(answers).length > 0) await request('tasks/update', { taskId, inputResponses: answers });
      return undefined;
    }, 15_000);
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual(['roots-1', 'bridge_confirm']);
    expect(confirmations[0]).toContain(`(in ${w.r1})`);
    expect(w.runs()).toEqual([{ cwd: w.r1, argv: ['--label=task'] }]);
  });
});
