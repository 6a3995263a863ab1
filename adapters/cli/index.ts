import { z } from 'zod';
import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the cli adapter lands.
export const cliCommand: AdapterCommand<Record<string, never>> = {
  name: 'cli',
  summary: '',
  usage: 'bridge cli',
  options: {},
  parseFlags: () => ({}),
  configSchema: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
  createSource() {
    throw new BridgeError('invalid_input', 'the cli adapter is not built yet');
  },
};
