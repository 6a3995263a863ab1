// npm looks above cwd for its project: up to the first directory holding package.json or
// node_modules, whose .npmrc configures it. A root below such a project (a checkout inside a
// monorepo, a root set to a subdirectory) had `npm ls` and `npm query` list and print the project
// outside the roots, and its .npmrc configure each call: a registry token it names was sent with
// `npm view`. The real npm, in-process bridge; checked on what it printed and what a local
// registry received.
import { once } from 'node:events';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedCli, loadCli, outsideWorld, textOf } from '../cli/helpers.js';

const world = outsideWorld('bridge-npm-project-');
const ABOVE = world.base.path;
const received: Array<{ url: string; authorization: string }> = [];
const registry = createServer((request, response) => {
  received.push({ url: request.url ?? '', authorization: request.headers.authorization ?? '' });
  response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
});
const saved = { ...process.env };
let cli: LoadedCli;

beforeAll(async () => {
  registry.listen(0, '127.0.0.1');
  await once(registry, 'listening');
  const { port } = registry.address() as AddressInfo;
  // The project above the root: its packages, and an .npmrc with a token for the registry.
  writeJson(join(ABOVE, 'package.json'), {
    name: 'above-project',
    version: '1.0.0',
    dependencies: { 'above-dep': '1.0.0' },
  });
  writeJson(join(ABOVE, 'node_modules', 'above-dep', 'package.json'), {
    name: 'above-dep',
    version: '1.0.0',
    description: world.SECRET,
  });
  writeFileSync(join(ABOVE, '.npmrc'), `//127.0.0.1:${port}/:_authToken=ABOVE-TOKEN\n`);
  // A project inside the root, found from its subdirectories.
  writeJson(join(world.ROOT, 'proj', 'package.json'), { name: 'inner-project', version: '1.0.0' });
  mkdirSync(join(world.ROOT, 'proj', 'src'));
  Object.assign(process.env, {
    npm_config_registry: `http://127.0.0.1:${port}/`,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
  });
  cli = await loadCli({ program: 'npm', roots: [world.ROOT] }, world.ROOT);
}, 60_000);
afterAll(async () => {
  await cli?.[Symbol.asyncDispose]();
  registry.close();
  process.env = saved;
  world[Symbol.dispose]();
});

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

describe('npm and a project above the roots', () => {
  it('npm ls and npm query in the root see the root, not the project above it', async () => {
    const listed = await cli.call('npm_ls', { all: true });
    expect(textOf(listed)).not.toContain('above');
    expect(textOf(listed)).toContain(world.ROOT);
    const queried = await cli.call('npm_query', { args: ['*'] });
    expect(textOf(queried)).not.toContain(world.SECRET);
    expect(textOf(queried)).not.toContain(ABOVE.concat('"'));
  });

  it('the .npmrc above the roots configures nothing: its registry token is not sent', async () => {
    await cli.call('npm_view', { args: ['some-package'] });
    expect(received.map((request) => request.url)).toContain('/some-package');
    expect(received.map((request) => request.authorization)).not.toContain('Bearer ABOVE-TOKEN');
  });

  it('a project inside the roots is still found from its subdirectories', async () => {
    const listed = await cli.call('npm_ls', { cwd: join(world.ROOT, 'proj', 'src') });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expect(textOf(listed)).toContain(`inner-project@1.0.0 ${join(world.ROOT, 'proj')}`);
  });

  it('a project file planted as a link leading out of the roots is refused, and nothing is printed', async () => {
    // What a clone or an archive can bring: the project's manifest or .npmrc as a link to a file
    // outside (npm ls and npm query printed it; an .npmrc would configure the registry and token).
    writeJson(join(ABOVE, 'secret.json'), { name: 'secret', version: '1.0.0', description: world.SECRET });
    for (const [project, file] of [
      ['linked-manifest', 'package.json'],
      ['linked-npmrc', '.npmrc'],
      ['linked-lockfile', 'package-lock.json'],
    ] as const) {
      const dir = join(world.ROOT, project);
      mkdirSync(dir);
      if (file !== 'package.json') writeJson(join(dir, 'package.json'), { name: project, version: '1.0.0' });
      symlinkSync(join(ABOVE, 'secret.json'), join(dir, file));
      for (const [tool, args] of [
        ['npm_ls', { long: true, json: true }],
        ['npm_query', { args: [':root'] }],
      ] as const) {
        const result = await cli.call(tool, { ...args, cwd: dir });
        const text = textOf(result);
        expect(result.isError, text).toBe(true);
        expect(text).toContain(
          `refused: the project file "${join(dir, file)}" resolves to ${join(ABOVE, 'secret.json')}, which is outside the allowed roots`,
        );
        expect(text).not.toContain(world.SECRET);
      }
    }
  });

  it('a workspace, a file: dependency or a lockfile link naming a place outside the roots is refused', async () => {
    // npm reads the package.json of every place its project names, even with --package-lock-only.
    writeJson(join(ABOVE, 'private', 'package.json'), {
      name: 'private',
      version: '1.0.0',
      description: world.SECRET,
    });
    const private_ = join(ABOVE, 'private');
    const projects: Array<[string, Record<string, unknown>, Record<string, unknown> | undefined, string]> = [
      ['by-workspace', { workspaces: [`${private_}/../*`] }, undefined, 'a workspace named in package.json'],
      [
        'by-dependency',
        { dependencies: { p: `file:${private_}` } },
        undefined,
        'a dependency named in package.json',
      ],
      [
        'by-lockfile',
        {},
        {
          lockfileVersion: 3,
          packages: { '': { name: 'by-lockfile' }, 'node_modules/p': { resolved: private_, link: true } },
        },
        'a link named in package-lock.json',
      ],
    ];
    for (const [name, manifest, lockfile, what] of projects) {
      const dir = join(world.ROOT, name);
      writeJson(join(dir, 'package.json'), { name, version: '1.0.0', ...manifest });
      if (lockfile) writeJson(join(dir, 'package-lock.json'), { name, version: '1.0.0', ...lockfile });
      const result = await cli.call('npm_query', { args: ['*'], 'package-lock-only': true, cwd: dir });
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(`refused: ${what} "`);
      expect(text).toContain('which is outside the allowed roots');
      expect(text).not.toContain(world.SECRET);
    }
    // A workspace inside the project is served.
    const inner = join(world.ROOT, 'with-workspace');
    writeJson(join(inner, 'package.json'), {
      name: 'with-workspace',
      version: '1.0.0',
      workspaces: ['packages/*'],
    });
    writeJson(join(inner, 'packages', 'a', 'package.json'), { name: 'a', version: '1.0.0' });
    // (npm itself may report the workspace as not installed: that is its answer, not a refusal.)
    const kept = await cli.call('npm_ls', { cwd: inner });
    expect(textOf(kept)).not.toContain('refused');
    expect(textOf(kept)).toContain(`with-workspace@1.0.0 ${inner}`);
  });

  it('links among the installed packages or matched by a workspace glob, and lockfiles it cannot read, are refused', async () => {
    writeJson(join(ABOVE, 'linked', 'package.json'), {
      name: 'linked',
      version: '1.0.0',
      description: world.SECRET,
    });
    const linked = join(ABOVE, 'linked');
    const cases: Array<[string, (dir: string) => void, string]> = [
      [
        'installed-link',
        (dir) => {
          mkdirSync(join(dir, 'node_modules'));
          symlinkSync(linked, join(dir, 'node_modules', 'x'));
        },
        'an installed package in node_modules',
      ],
      [
        'scoped-link',
        (dir) => {
          mkdirSync(join(dir, 'node_modules', '@s'), { recursive: true });
          symlinkSync(linked, join(dir, 'node_modules', '@s', 'y'));
        },
        'an installed package in node_modules',
      ],
      [
        'glob-link',
        (dir) => {
          writeJson(join(dir, 'package.json'), {
            name: 'glob-link',
            version: '1.0.0',
            workspaces: ['packages/*'],
          });
          mkdirSync(join(dir, 'packages'));
          symlinkSync(linked, join(dir, 'packages', 'x'));
        },
        'a workspace named in package.json',
      ],
      [
        'bom-lockfile',
        (dir) =>
          writeFileSync(
            join(dir, 'package-lock.json'),
            `\uFEFF${JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/p': { resolved: linked, link: true } } })}`,
          ),
        'a link named in package-lock.json',
      ],
      [
        'huge-lockfile',
        (dir) => {
          writeFileSync(join(dir, 'package-lock.json'), '');
          truncateSync(join(dir, 'package-lock.json'), 65 * 1024 * 1024);
        },
        'the project file',
      ],
    ];
    cases.push([
      'many-places',
      (dir) =>
        writeJson(join(dir, 'package-lock.json'), {
          lockfileVersion: 3,
          packages: Object.fromEntries(
            Array.from({ length: 20_000 }, (_, at) => [`node_modules/../w${at}`, {}]),
          ),
        }),
      'the npm project',
    ]);
    for (const [name, plant, what] of cases) {
      const dir = join(world.ROOT, name);
      writeJson(join(dir, 'package.json'), { name, version: '1.0.0' });
      plant(dir);
      const result = await cli.call('npm_query', { args: ['*'], cwd: dir });
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(`refused: ${what} "`);
      expect(text).not.toContain(world.SECRET);
    }
  });

  it("a project .npmrc choosing how npm connects, or reading the bridge's environment, is refused", async () => {
    for (const [name, line, why] of [
      ['proxied', 'proxy=http://127.0.0.1:9/', 'sets "proxy", how npm connects'],
      [
        'clear-registry',
        'registry=http://registry.npmjs.org/',
        'sets "registry" to a registry that is not https',
      ],
      [
        'scoped-registry',
        '@corp:registry=http://127.0.0.1:9/',
        'sets "@corp:registry" to a registry that is not https',
      ],
      ['listed-ca', 'ca[]=-----BEGIN CERTIFICATE-----', 'sets "ca", how npm connects'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the ${VAR} npm expands, as a project writes it
      ['expanded', '//registry.example/:_authToken=${NPM_TOKEN}', 'reads an environment variable'],
    ] as const) {
      const dir = join(world.ROOT, name);
      writeJson(join(dir, 'package.json'), { name, version: '1.0.0' });
      writeFileSync(join(dir, '.npmrc'), `save-exact=true\n${line}\n`);
      const result = await cli.call('npm_view', { args: ['left-pad'], cwd: dir });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toContain(
        `refused: the project's .npmrc "${join(dir, '.npmrc')}" line 2 ${why}`,
      );
    }
    // Read as npm's ini parser reads it: a lone CR ends a line; quoted keys and values are JSON.
    for (const [name, content, message] of [
      ['cr-lines', 'color=false\rproxy=http://127.0.0.1:9/\n', 'line 2 sets "proxy", how npm connects'],
      [
        'escaped-key',
        '"\\u0072egistry"=http://127.0.0.1:9/\n',
        'line 1 sets "registry" to a registry that is not https',
      ],
      ['escaped-value', '_authToken=\'"$\\u007bNPM_TOKEN}"\'\n', 'line 1 reads an environment variable'],
    ] as const) {
      const dir = join(world.ROOT, name);
      writeJson(join(dir, 'package.json'), { name, version: '1.0.0' });
      writeFileSync(join(dir, '.npmrc'), content);
      const result = await cli.call('npm_view', { args: ['left-pad'], cwd: dir });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toContain(`refused: the project's .npmrc "${join(dir, '.npmrc')}" ${message}`);
    }
    expect(received).toEqual(received.filter((request) => !request.url.includes('left-pad')));
    // A project .npmrc with other settings is read as before.
    const plain = join(world.ROOT, 'plain-npmrc');
    writeJson(join(plain, 'package.json'), { name: 'plain-npmrc', version: '1.0.0' });
    writeFileSync(join(plain, '.npmrc'), 'save-exact=true\nregistry=https://registry.example/\n');
    const kept = await cli.call('npm_ls', { cwd: plain });
    expect(textOf(kept)).not.toContain('refused');
  });
});
