import { z } from 'zod';
import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the openapi adapter lands.
export const openapiCommand: AdapterCommand<Record<string, never>> = {
  name: 'openapi',
  summary: '',
  usage: 'bridge openapi',
  options: {},
  parseFlags: () => ({}),
  configSchema: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
  createSource() {
    throw new BridgeError('invalid_input', 'the openapi adapter is not built yet');
  },
};
