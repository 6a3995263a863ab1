// The fixture server the MCP conformance suite (`npm run conformance`) tests: the suite's
// fixture tools, resources and prompts, built only from the core's public API, served with
// `--http HOST:PORT`. The suite names what each fixture must return; see test/conformance/.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningBridge } from '../../src/embed.js';
import {
  type Catalog,
  READ_ONLY_LOCAL,
  type Source,
  type ToolDefinition,
  textResult,
} from '../../src/index.js';
import { conformanceAskTools } from './conformance-ask-tools.js';
import { isEntryPoint, serveFromArgv } from './serve-from-argv.js';

/** A 1x1 red PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const noArguments = { type: 'object', properties: {} };

/** A tool without arguments returning fixed content. */
function fixed(name: string, description: string, result: Awaited<ReturnType<ToolDefinition['invoke']>>) {
  return {
    name,
    description,
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    invoke: async () => result,
  } satisfies ToolDefinition;
}

// SEP-1613 / SEP-2106: the suite checks that the whole 2020-12 vocabulary reaches the client unchanged.
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here, not a promise.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export const conformanceTools: ToolDefinition[] = [
  fixed(
    'test_simple_text',
    'Tests simple text content response',
    textResult('This is a simple text response for testing.'),
  ),
  fixed('test_image_content', 'Tests image content response', {
    content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
  }),
  fixed('test_audio_content', 'Tests audio content response', {
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }),
  fixed('test_embedded_resource', 'Tests embedded resource content response', {
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }),
  fixed('test_multiple_content_types', 'Tests response with multiple content types (text, image, resource)', {
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }),
  {
    name: 'test_tool_with_logging',
    description: 'Tests tool that emits log messages during execution',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    async invoke(_args, context) {
      context.log.info('Tool execution started');
      await sleep(50, undefined, { signal: context.signal });
      context.log.info('Tool processing data');
      await sleep(50, undefined, { signal: context.signal });
      context.log.info('Tool execution completed');
      return textResult('Tool with logging executed successfully');
    },
  },
  {
    name: 'test_tool_with_progress',
    description: 'Tests tool that reports progress notifications',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    async invoke(_args, context) {
      for (const progress of [0, 50, 100]) {
        context.progress({ progress, total: 100, message: `Completed step ${progress} of 100` });
        if (progress < 100) await sleep(50, undefined, { signal: context.signal });
      }
      return textResult('Progress reported: 0, 50, 100 of 100');
    },
  },
  {
    name: 'test_error_handling',
    description: 'Tests error response handling',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    async invoke() {
      throw new Error('This tool intentionally returns an error for testing');
    },
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    inputSchema: JSON_SCHEMA_2020_12,
    annotations: READ_ONLY_LOCAL,
    async invoke(args) {
      return textResult(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);
    },
  },
];

// Diagnostic tools of the 2026-07-28 stateless scenario.
const statelessDiagnostics: ToolDefinition[] = [
  {
    name: 'test_streaming_elicitation',
    description:
      'Reports progress while it runs: its response stream must carry only notifications and the result.',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    async invoke(_args, context) {
      context.progress({ progress: 50, total: 100 });
      return textResult('Streaming complete');
    },
  },
  {
    name: 'test_logging_tool',
    description: 'Logs at info level: the log must reach only clients that asked for a log level.',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    async invoke(_args, context) {
      context.log.info('Diagnostic trace logging activated');
      return textResult('Logging evaluated');
    },
  },
  {
    name: 'test_custom_header',
    description: 'Echoes `region`, which clients repeat in an Mcp-Param-Region header (SEP-2243).',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } },
      required: ['region'],
    },
    annotations: READ_ONLY_LOCAL,
    async invoke(args) {
      return textResult(`region: ${String(args.region)}`);
    },
  },
  {
    name: 'test_trigger_tool_change',
    description:
      'Reloads the tool source, which adds or removes test_dynamic_tool: clients get tools/list_changed.',
    inputSchema: noArguments,
    annotations: { ...READ_ONLY_LOCAL, readOnlyHint: false, idempotentHint: false },
    async invoke() {
      if (!running) return textResult('Not running as a server: nothing to reload.', true);
      await running.reload();
      return textResult(`Mutation triggered: ${running.registry().tools.length} tools now`);
    },
  },
];

// Fixtures of the tasks extension scenarios (tasks-*; not scored by --requirements, reported).
// Those that ask the client (confirm_delete, multi_input, test_tool_with_task) are in
// conformance-ask-tools.ts.
const taskFixtures: ToolDefinition[] = [
  // Not a task fixture: it sorts first in tools/list, and http-header-validation calls the first
  // tool with no arguments and without the tasks extension, which a task-only tool would refuse.
  {
    name: 'echo',
    description: 'Returns its optional `text` argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: READ_ONLY_LOCAL,
    async invoke(args) {
      return textResult(String(args.text ?? ''));
    },
  },
  {
    name: 'greet',
    description: 'Greets synchronously; never a task.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    annotations: READ_ONLY_LOCAL,
    async invoke(args) {
      return textResult(`Hello, ${String(args.name ?? 'world')}!`);
    },
  },
  {
    name: 'slow_compute',
    description: 'Sleeps `seconds` seconds (stopping when cancelled), then answers; may run as a task.',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 } } },
    annotations: READ_ONLY_LOCAL,
    taskSupport: 'optional',
    async invoke(args, context) {
      const seconds = typeof args.seconds === 'number' ? args.seconds : 1;
      await sleep(seconds * 1000, undefined, { signal: context.signal });
      return textResult(`Computed after ${seconds} s`);
    },
  },
  {
    name: 'failing_job',
    description: 'Runs only as a task and ends in a tool error after about a second.',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    taskSupport: 'required',
    async invoke(_args, context) {
      await sleep(1000, undefined, { signal: context.signal });
      return textResult('The job failed, as it always does.', true);
    },
  },
  {
    name: 'protocol_error_job',
    description: 'Throws unexpectedly: as a task, it ends failed with the JSON-RPC error.',
    inputSchema: noArguments,
    annotations: READ_ONLY_LOCAL,
    taskSupport: 'optional',
    async invoke() {
      throw new Error('protocol_error_job crashed');
    },
  },
];

// test://watched-resource changes each time test_touch_watched_resource runs; subscribers hear of it.
let watchedVersion = 1;
const touchWatched: ToolDefinition = {
  name: 'test_touch_watched_resource',
  description: 'Changes test://watched-resource and notifies its subscribers.',
  inputSchema: noArguments,
  annotations: { ...READ_ONLY_LOCAL, readOnlyHint: false, idempotentHint: false },
  async invoke() {
    watchedVersion += 1;
    running?.notifyResourceUpdated('test://watched-resource');
    return textResult(`test://watched-resource is now at version ${watchedVersion}`);
  },
};

const dynamicTool = fixed(
  'test_dynamic_tool',
  'Appears and disappears with each reload.',
  textResult('dynamic'),
);

export const conformanceCatalog: Catalog = {
  resources: [
    {
      uri: 'test://static-text',
      name: 'static-text',
      title: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
      read: () => [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    },
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      title: 'Static Binary Resource',
      description: 'A static binary resource (image) for testing',
      mimeType: 'image/png',
      read: () => [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 }],
    },
    {
      uri: 'test://watched-resource',
      name: 'watched-resource',
      title: 'Watched Resource',
      description: 'A resource that changes whenever test_touch_watched_resource runs',
      mimeType: 'text/plain',
      read: () => [
        {
          uri: 'test://watched-resource',
          mimeType: 'text/plain',
          text: `Watched resource content, version ${watchedVersion}`,
        },
      ],
    },
  ],
  resourceTemplates: [
    {
      uriTemplate: 'test://template/{id}/data',
      name: 'template',
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
      read: (uri, { id }) => [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    },
  ],
  prompts: [
    {
      name: 'test_simple_prompt',
      title: 'Simple Test Prompt',
      description: 'A simple prompt without arguments',
      get: () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
      }),
    },
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      get: ({ arg1, arg2 }) => ({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
          },
        ],
      }),
      complete: (argument, value) =>
        argument === 'arg1' ? ['paris', 'park', 'party'].filter((word) => word.startsWith(value)) : [],
    },
    {
      name: 'test_prompt_with_embedded_resource',
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: ({ resourceUri = '' }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: resourceUri,
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      }),
    },
    {
      name: 'test_prompt_with_image',
      title: 'Prompt With Image',
      description: 'A prompt that includes image content',
      get: () => ({
        messages: [
          { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      }),
    },
    {
      name: 'test_input_required_result_prompt',
      title: 'Prompt Asking For Context',
      description: 'Asks the user what context to use (input_required in 2026-07-28)',
      get: async (_args, { ask }) => {
        const answer = await ask?.elicit({
          key: 'user_context',
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        });
        const context = answer?.action === 'accept' ? String(answer.content.context) : 'none';
        return {
          messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${context}` } }],
        };
      },
    },
  ],
};

let loads = 0;
let running: RunningBridge | undefined;

/** Every other load includes `test_dynamic_tool`, so each reload really changes the tool list. */
export const conformanceSource: Source = {
  label: 'conformance',
  load: async () => {
    loads += 1;
    const tools = [
      ...conformanceTools,
      ...conformanceAskTools,
      ...statelessDiagnostics,
      ...taskFixtures,
      touchWatched,
    ];
    return loads % 2 === 0 ? [...tools, dynamicTool] : tools;
  },
};

if (isEntryPoint('conformance-server.js')) {
  running = await serveFromArgv({
    sources: [conformanceSource],
    catalog: conformanceCatalog,
    info: { name: 'bridge-conformance-fixture', version: '0.1.0' },
  });
  await running.closed;
}
