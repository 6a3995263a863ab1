import { describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { writeYaml } from './helpers.js';
import { startUpstreams } from './upstreams.js';

describe.each(MATRIX)(
  'bridge serve with an openapi, a graphql and a cli source: $kind client over $wire',
  ({ kind, wire }) => {
    it('serves all three, collisions resolved by the namespaces, overrides applied', async () => {
      await using upstreams = await startUpstreams();
      const config = upstreams.config;
      // Rename one REST tool and override its hints.
      config.sources[0]!.tools = {
        listItems: {
          name: 'inventory_items',
          title: 'Items in stock',
          annotations: { openWorldHint: false },
        },
      };
      await writeYaml(upstreams.configFile, config);
      await using client = await connect(kind, wire, {
        script: BRIDGE_BIN,
        args: ['serve', upstreams.configFile],
        cwd: upstreams.dir.path,
      });

      const { tools } = await client.listTools();
      // REST and GraphQL both have a tool named "status": the namespaces keep them apart.
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'git_log',
        'git_status',
        'gql_status',
        'gql_titles',
        'inventory_items',
        'rest_status',
      ]);
      const items = tools.find((tool) => tool.name === 'inventory_items');
      expect(items?.title).toBe('Items in stock');
      expect(items?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });

      const rest = await client.callTool('rest_status');
      expect(rest.isError).toBeFalsy();
      expect(JSON.stringify(rest.content)).toContain('\\"service\\":\\"rest\\"');
      const graphql = await client.callTool('gql_status');
      expect(graphql.isError).toBeFalsy();
      expect(JSON.stringify(graphql.content)).toContain('graphql ok');
      const listed = await client.callTool('inventory_items');
      expect(JSON.stringify(listed.content)).toContain('bolt');
      const git = await client.callTool('git_status');
      expect(git.isError).toBeFalsy();
      expect(JSON.stringify(git.content)).toContain('bridge.config.yaml');
    });
  },
);
