import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { CONFIG_BIN, onToolsChanged, tempDir, toolNames, toolNamesSoon, writeYaml } from './helpers.js';

const config = (namespace: string) => ({
  sources: [{ kind: 'fixture', namespace, options: { file: 'tools.yaml' } }],
});

describe.each(MATRIX)('hot reload with the $kind client over $wire', ({ kind, wire }) => {
  it('adds, changes and removes tools while connected; calls in flight finish; a broken edit keeps the tools', async () => {
    await using dir = await tempDir();
    await writeYaml(dir.file('tools.yaml'), [
      { name: 'alpha', description: 'First version.', reply: 'alpha v1' },
      { name: 'beta', description: 'Goes away.' },
      { name: 'slow', description: 'Takes a while.', delayMs: 3_000 },
    ]);
    await writeYaml(dir.file('bridge.config.yaml'), config('fx'));
    await using client = await connect(kind, wire, {
      script: CONFIG_BIN,
      args: ['serve', dir.file('bridge.config.yaml')],
    });
    const changes = await onToolsChanged(client);
    expect(await toolNames(client)).toEqual(['fx_alpha', 'fx_beta', 'fx_slow']);

    // A call that starts before the reload finishes on the tool it started with.
    let running = true;
    const inFlight = client.callTool('fx_slow').finally(() => {
      running = false;
    });
    await sleep(200);
    await writeYaml(dir.file('tools.yaml'), [
      { name: 'alpha', description: 'Second version.', reply: 'alpha v2' },
      { name: 'gamma', description: 'New.', reply: 'gamma' },
    ]);
    await changes.next();
    expect(running, 'the call should still be running when the tools change').toBe(true);
    expect(await toolNamesSoon(client, ['fx_alpha', 'fx_gamma'])).toEqual(['fx_alpha', 'fx_gamma']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fx_alpha', 'fx_gamma']);
    expect(tools.find((tool) => tool.name === 'fx_alpha')?.description).toBe('Second version.');
    expect((await client.callTool('fx_alpha')).content[0]?.text).toBe('alpha v2');
    const finished = await inFlight;
    expect(finished.isError).toBeFalsy();
    expect(finished.content[0]?.text).toBe('slow');

    // A broken edit: the previous tools stay and keep working.
    await writeFile(dir.file('tools.yaml'), '- name: alpha\n  description: [unclosed\n');
    const failed = /reload failed; still serving the previous 2 tools/;
    // Wait for the server to log the failed reload, then check the old tools still serve.
    for (let waited = 0; waited < 10_000 && !failed.test(client.stderr()); waited += 100) await sleep(100);
    expect(client.stderr()).toMatch(failed);
    expect(await toolNames(client)).toEqual(['fx_alpha', 'fx_gamma']);
    expect((await client.callTool('fx_alpha')).content[0]?.text).toBe('alpha v2');

    // Editing the config itself reloads too (here: a new namespace), after the broken edit is fixed.
    await writeYaml(dir.file('tools.yaml'), [{ name: 'alpha', description: 'Third.', reply: 'alpha v3' }]);
    await changes.next();
    await writeYaml(dir.file('bridge.config.yaml'), config('ops'));
    await changes.next();
    expect(await toolNamesSoon(client, ['ops_alpha'])).toEqual(['ops_alpha']);
    expect((await client.callTool('ops_alpha')).content[0]?.text).toBe('alpha v3');
  });
});
