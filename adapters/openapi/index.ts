import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the openapi adapter lands.
export const openapiCommand: AdapterCommand = {
  name: 'openapi',
  summary: '',
  usage: 'bridge openapi',
  options: {},
  createSource() {
    throw new BridgeError('invalid_input', 'the openapi adapter is not built yet');
  },
};
