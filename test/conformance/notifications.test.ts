// The change notifications on every transport × era, with real clients: the v1 SDK client
// (initialize era) and the v2 client pinned to 2026-07-28, each over stdio (a child process) and
// Streamable HTTP (port 0). The fixture's test_trigger_tool_change reloads its source, which adds
// or removes test_dynamic_tool; test_touch_watched_resource changes test://watched-resource and
// calls notifyResourceUpdated. Each transport delivers both to both eras (see ServedTransport).
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { connect, MATRIX, type TestClient } from '../helpers/connect.js';
import { onResourceUpdated, onToolsChanged } from '../helpers/notifications.js';
import { distPath } from '../helpers/start-bridge.js';

const fixtureServer = { script: distPath('test/servers/conformance-server.js'), args: [] };
const WATCHED = 'test://watched-resource';

async function toolNames(client: TestClient): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

describe.each(MATRIX)('change notifications, $kind client over $wire', ({ kind, wire }) => {
  it('tells the client when a reload changes the tool list, and the list changed', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    const before = await toolNames(client);
    const changes = await onToolsChanged(client);
    await client.callTool('test_trigger_tool_change');
    await changes.next();
    const after = await toolNames(client);
    const added = after.filter((name) => !before.includes(name));
    const removed = before.filter((name) => !after.includes(name));
    expect([...added, ...removed]).toEqual(['test_dynamic_tool']);
  });

  it('notifies a subscriber of a resource of its changes until it unsubscribes', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    if (kind === 'v1') {
      expect((client.raw as ClientV1).getServerCapabilities()?.resources).toEqual({ subscribe: true });
    }
    const heard = await onResourceUpdated(client, WATCHED);
    const first = heard.next();
    await client.callTool('test_touch_watched_resource');
    expect(await first).toBe(WATCHED);
    const [contents] = (await client.readResource(WATCHED)).contents;
    expect(contents?.text).toMatch(/version \d+$/);

    // Without a subscription that names the URI, nothing is sent.
    await heard.unsubscribe();
    const none = heard.next(500);
    await client.callTool('test_touch_watched_resource');
    expect(await none).toBeUndefined();
    expect(heard.seen).toEqual([WATCHED]);

    if (kind === 'v1') {
      await expect(
        (client.raw as ClientV1).subscribeResource({ uri: 'test://nothing-here' }),
      ).rejects.toMatchObject({ code: -32602 });
    }
  });
});
