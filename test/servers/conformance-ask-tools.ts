// The conformance suite's tools that ask the client: server→client requests in the initialize era
// (test_sampling, test_elicitation*), input_required rounds in 2026-07-28
// (test_input_required_result_*), and the -32021 probe (test_missing_capability). Each is an
// ordinary tool using `ToolContext.ask`; the core picks the era's mechanism.
import {
  type ClientAsk,
  type FormQuestion,
  READ_ONLY_LOCAL,
  type SamplingAnswer,
  type ToolContext,
  type ToolDefinition,
  textResult,
} from '../../src/index.js';

const noArguments = { type: 'object', properties: {} };

function asking(
  name: string,
  description: string,
  run: (ask: ClientAsk, args: Record<string, unknown>) => Promise<string>,
  inputSchema: Record<string, unknown> = noArguments,
): ToolDefinition {
  return {
    name,
    description,
    inputSchema,
    annotations: READ_ONLY_LOCAL,
    async invoke(args, context: ToolContext) {
      if (!context.ask) return textResult('This call cannot reach the client.', true);
      return textResult(await run(context.ask, args));
    },
  };
}

const text = (answer: SamplingAnswer) =>
  Array.isArray(answer.content) ? '' : String((answer.content as { text?: unknown }).text ?? '');

const form = (properties: FormQuestion['requestedSchema']['properties'], required: string[] = []) => ({
  type: 'object' as const,
  properties,
  required,
});

const describeAnswer = (prefix: string, answer: { action: string; content?: unknown }) =>
  `${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;

const nameForm = form({ name: { type: 'string' } }, ['name']);

export const conformanceAskTools: ToolDefinition[] = [
  asking(
    'test_sampling',
    'Tests server-initiated sampling (LLM completion request)',
    async (ask, args) => {
      const answer = await ask.sample({
        messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
        maxTokens: 100,
      });
      return `LLM response: ${text(answer) || 'No response'}`;
    },
    { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  ),
  asking(
    'test_elicitation',
    'Tests server-initiated elicitation (user input request)',
    async (ask, args) => {
      const answer = await ask.elicit({
        message: String(args.message),
        requestedSchema: form({ response: { type: 'string', description: "User's response" } }, ['response']),
      });
      return describeAnswer('User response', answer);
    },
    { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  ),
  asking(
    'test_elicitation_sep1034_defaults',
    'Tests elicitation with default values per SEP-1034',
    async (ask) => {
      const answer = await ask.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: form({
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        }),
      });
      return describeAnswer('Elicitation completed', answer);
    },
  ),
  asking(
    'test_elicitation_sep1330_enums',
    'Tests elicitation with enum schema improvements per SEP-1330',
    async (ask) => {
      const titled = [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ];
      const answer = await ask.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: form({
          untitledSingle: {
            type: 'string',
            description: 'Select one option',
            enum: ['option1', 'option2', 'option3'],
          },
          titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        }),
      });
      return describeAnswer('Elicitation completed', answer);
    },
  ),
  asking(
    'test_missing_capability',
    'Needs sampling: refused with -32021 when the client lacks it',
    async (ask) => {
      const answer = await ask.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'ping' } }],
        maxTokens: 10,
      });
      return `sampled: ${text(answer)}`;
    },
  ),
  asking('test_input_required_result_elicitation', 'Asks a name (input_required)', async (ask) => {
    const answer = await ask.elicit({
      key: 'user_name',
      message: 'What is your name?',
      requestedSchema: nameForm,
    });
    return answer.action === 'accept'
      ? `Hello, ${answer.content.name}!`
      : `The user chose to ${answer.action}.`;
  }),
  asking('test_input_required_result_sampling', 'Asks for a completion (input_required)', async (ask) => {
    const answer = await ask.sample({
      key: 'capital_question',
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
      maxTokens: 100,
    });
    return `The model said: ${text(answer)}`;
  }),
  asking('test_input_required_result_list_roots', 'Asks for the roots (input_required)', async (ask) => {
    const roots = await ask.roots({ key: 'client_roots' });
    return `Roots: ${roots.map((root) => root.uri).join(', ')}`;
  }),
  asking('test_input_required_result_request_state', 'Asks a confirmation, keeps state', async (ask) => {
    const answer = await ask.elicit({
      key: 'confirm',
      message: 'Please confirm',
      requestedSchema: form({ ok: { type: 'boolean' } }, ['ok']),
    });
    return answer.action === 'accept' && answer.content.ok === true
      ? 'state-ok: requestState validated'
      : 'not confirmed';
  }),
  asking(
    'test_input_required_result_multiple_inputs',
    'Asks a name, a completion and the roots at once',
    async (ask) => {
      const [name, greeting, roots] = await Promise.all([
        ask.elicit({ key: 'user_name', message: 'What is your name?', requestedSchema: nameForm }),
        ask.sample({
          key: 'greeting',
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        }),
        ask.roots({ key: 'client_roots' }),
      ]);
      const who = name.action === 'accept' ? name.content.name : 'someone';
      return `${text(greeting)} ${who} (roots: ${roots.length})`;
    },
  ),
  asking('test_input_required_result_multi_round', 'Asks a name, then a color', async (ask) => {
    const name = await ask.elicit({
      key: 'step1',
      message: 'Step 1: What is your name?',
      requestedSchema: nameForm,
    });
    const color = await ask.elicit({
      key: 'step2',
      message: 'Step 2: What is your favorite color?',
      requestedSchema: form({ color: { type: 'string' } }, ['color']),
    });
    const who = name.action === 'accept' ? name.content.name : 'someone';
    const likes = color.action === 'accept' ? color.content.color : 'nothing';
    return `Multi-round complete for ${who} who likes ${likes}`;
  }),
  asking('test_input_required_result_tampered_state', 'Refuses a tampered requestState', async (ask) => {
    await ask.elicit({
      key: 'confirm',
      message: 'Please confirm',
      requestedSchema: form({ ok: { type: 'boolean' } }, ['ok']),
    });
    return 'integrity-ok: state verified';
  }),
  asking('test_input_required_result_capabilities', 'Asks only what the client can answer', async (ask) => {
    const questions: Array<Promise<unknown>> = [];
    const keys: string[] = [];
    if (ask.can('form')) {
      keys.push('elicit_input');
      questions.push(
        ask.elicit({
          key: 'elicit_input',
          message: 'Input please',
          requestedSchema: form({ value: { type: 'string' } }),
        }),
      );
    }
    if (ask.can('sampling')) {
      keys.push('sample_input');
      questions.push(
        ask.sample({
          key: 'sample_input',
          messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }],
          maxTokens: 10,
        }),
      );
    }
    if (questions.length === 0) return 'capabilities-ok: the client can answer nothing, so nothing was asked';
    await Promise.all(questions);
    return `capabilities-ok: received ${keys.join(',')}`;
  }),
  // Tasks whose tool asks (the tasks extension's input_required → tasks/update loop).
  {
    ...asking(
      'confirm_delete',
      'Deletes a file once the user confirms (runs as a task)',
      async (ask, args) => {
        const answer = await ask.elicit({
          message: `Delete ${String(args.filename)}?`,
          requestedSchema: form({ confirm: { type: 'boolean' } }, ['confirm']),
        });
        const confirmed = answer.action === 'accept' && answer.content.confirm === true;
        return confirmed ? `Deleted ${String(args.filename)}` : 'Not deleted';
      },
      { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    ),
    taskSupport: 'optional',
  },
  {
    ...asking('multi_input', 'Asks two questions at once (runs as a task)', async (ask) => {
      const question = (n: number) =>
        ask.elicit({
          message: `Question ${n}`,
          requestedSchema: form({ name: { type: 'string' }, confirm: { type: 'boolean' } }),
        });
      const answers = await Promise.all([question(1), question(2)]);
      return answers
        .map((answer) => (answer.action === 'accept' ? String(answer.content.name) : answer.action))
        .join(', ');
    }),
    taskSupport: 'optional',
  },
  // Input first, then a task (SEP-2663's MRTR → task composition): the missing `name` is asked
  // through input_required rounds on tools/call, and the round that brings it creates the task.
  {
    name: 'test_tool_with_task',
    description: 'Greets the user by name; runs only as a task, asking the name first when it is missing.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', title: 'user_name', description: 'Who to greet' } },
      required: ['name'],
    },
    annotations: READ_ONLY_LOCAL,
    taskSupport: 'required',
    askMissing: true,
    async invoke(args) {
      return textResult(`Hello, ${String(args.name)}! (asked before the task started)`);
    },
  },
];
