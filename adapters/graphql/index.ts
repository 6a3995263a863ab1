import { z } from 'zod';
import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the graphql adapter lands.
export const graphqlCommand: AdapterCommand<Record<string, never>> = {
  name: 'graphql',
  summary: '',
  usage: 'bridge graphql',
  options: {},
  parseFlags: () => ({}),
  configSchema: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
  createSource() {
    throw new BridgeError('invalid_input', 'the graphql adapter is not built yet');
  },
};
