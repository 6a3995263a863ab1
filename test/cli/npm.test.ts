import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientStdout as stdoutOf } from './helpers.js';

// npm as users run it: `npm --help` lists its commands comma-separated, and each command's help
// lists bare options under a usage grammar that types them. The real npm on an installed tree in a
// temp directory (no registry needed), over a real v1 client on stdio.
const { work, client } = serveCliForTests('npm', 'v1', 'stdio', {
  // No registry is reached: npm's own update check and funding notes stay off.
  env: { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  prepare: (root) => {
    writeJson(join(root, 'package.json'), {
      name: 'app',
      version: '1.0.0',
      dependencies: { leftpad: '1.0.0' },
      devDependencies: { tiny: '2.0.0' },
    });
    writeJson(join(root, 'node_modules', 'leftpad', 'package.json'), {
      name: 'leftpad',
      version: '1.0.0',
    });
    writeJson(join(root, 'node_modules', 'tiny', 'package.json'), {
      name: 'tiny',
      version: '2.0.0',
      dependencies: { leftpad: '1.0.0' },
    });
  },
});

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

describe('npm', () => {
  it('offers the read-only commands of its overlay, typed from its usage grammar', async () => {
    const tools = (await client().listTools()).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'npm_audit',
      'npm_explain',
      'npm_ls',
      'npm_outdated',
      'npm_query',
      'npm_search',
      'npm_view',
    ]);
    const ls = tools.find((tool) => tool.name === 'npm_ls') as unknown as {
      inputSchema: { properties: Record<string, Record<string, unknown>> };
      annotations: Record<string, boolean>;
    };
    const properties = ls.inputSchema.properties;
    expect(properties.depth).toMatchObject({ type: 'integer' });
    expect(properties.omit).toMatchObject({ type: 'array', items: { enum: ['dev', 'optional', 'peer'] } });
    expect(properties.global).toBeUndefined();
    expect(ls.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    // `npm audit fix` installs packages: audit takes no operand.
    const audit = tools.find((tool) => tool.name === 'npm_audit') as unknown as typeof ls;
    expect(audit.inputSchema.properties.args).toBeUndefined();
  });

  it('lists, explains and queries the installed tree', async () => {
    const listed = await client().callTool('npm_ls', { json: true, omit: ['dev'] });
    expect(listed.isError, stdoutOf(listed)).toBeFalsy();
    const tree = JSON.parse(stdoutOf(listed)) as { dependencies: Record<string, { version: string }> };
    expect(tree.dependencies.leftpad?.version).toBe('1.0.0');
    expect(tree.dependencies.tiny).toBeUndefined();

    const explained = await client().callTool('npm_explain', { args: ['leftpad'] });
    expect(stdoutOf(explained)).toContain('leftpad@1.0.0');
    expect(stdoutOf(explained)).toContain('tiny@2.0.0');

    const queried = await client().callTool('npm_query', { args: ['#tiny'] });
    const found = JSON.parse(stdoutOf(queried)) as Array<{ name: string; version: string }>;
    expect(found.map((entry) => `${entry.name}@${entry.version}`)).toEqual(['tiny@2.0.0']);
  });

  it('does not run what is not offered, and leaves the tree as it was', async () => {
    const before = readdirSync(join(work, 'node_modules')).sort();
    const refused = await client().callTool('npm_install', { args: ['left-pad'] });
    expect(refused.isError).toBe(true);
    expect(String(refused.content[0]?.text)).toContain('"npm_install" is not offered');
    expect(readdirSync(join(work, 'node_modules')).sort()).toEqual(before);
  });
});
