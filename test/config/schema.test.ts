// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's literal ${VAR} syntax
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliCommand } from '../../adapters/cli/index.js';
import { graphqlCommand } from '../../adapters/graphql/index.js';
import { openapiCommand } from '../../adapters/openapi/index.js';
import type { AdapterCommand } from '../../src/command.js';
import { loadConfigFile } from '../../src/config/load-config.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

describe('the config JSON Schema', () => {
  it('is committed up to date: bridge.config.schema.json equals `bridge config schema`', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BRIDGE_BIN, 'config', 'schema']);
    const committed = JSON.parse(await readFile(root('bridge.config.schema.json'), 'utf8'));
    // Compared as data: the committed file is formatted by the project's formatter.
    expect(
      JSON.parse(stdout),
      'run: node dist/bin/bridge.js config schema > bridge.config.schema.json',
    ).toEqual(committed);
  });

  it('accepts the example configs and refuses what the loader refuses', async () => {
    const schema = JSON.parse(await readFile(root('bridge.config.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(schema);
    for (const example of [
      'fixtures/config/bridge.config.yaml',
      'fixtures/config/inspect/bridge.config.yaml',
    ]) {
      const config = parse(await readFile(root(example), 'utf8'));
      expect(validate(config), `${example}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ sources: [{ kind: 'grpc', options: {} }] })).toBe(false);
    expect(validate({ sources: [{ kind: 'cli', namespce: 'x', options: { program: 'git' } }] })).toBe(false);
    expect(validate({ sources: [{ kind: 'cli', options: { program: 'git', bogus: 1 } }] })).toBe(false);
    expect(
      validate({ server: { transport: 'tcp' }, sources: [{ kind: 'cli', options: { program: 'git' } }] }),
    ).toBe(false);
  });

  it('the README example loads: every option passes its adapter, ${GITHUB_TOKEN} is read from the environment', async () => {
    const adapters = {
      openapi: async () => openapiCommand as AdapterCommand,
      graphql: async () => graphqlCommand as AdapterCommand,
      cli: async () => cliCommand as AdapterCommand,
    };
    const config = await loadConfigFile(root('fixtures/config/bridge.config.yaml'), adapters, {
      GITHUB_TOKEN: 'test',
    });
    expect(config.sources.map((source) => [source.kind, source.namespace])).toEqual([
      ['openapi', 'rest'],
      ['graphql', 'gql'],
      ['cli', undefined],
    ]);
    expect(config.sources[1]?.options).toMatchObject({ headers: { Authorization: 'Bearer test' } });
    expect(config.server).toMatchObject({ transport: 'http', port: 8080 });
    await expect(loadConfigFile(root('fixtures/config/bridge.config.yaml'), adapters, {})).rejects.toThrow(
      /GITHUB_TOKEN is not set/,
    );
  });
});
