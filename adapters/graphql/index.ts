import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the graphql adapter lands.
export const graphqlCommand: AdapterCommand = {
  name: 'graphql',
  summary: '',
  usage: 'bridge graphql',
  options: {},
  createSource() {
    throw new BridgeError('invalid_input', 'the graphql adapter is not built yet');
  },
};
