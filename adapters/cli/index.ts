import { type AdapterCommand, BridgeError } from '../../src/index.js';

// Placeholder until the cli adapter lands.
export const cliCommand: AdapterCommand = {
  name: 'cli',
  summary: '',
  usage: 'bridge cli',
  options: {},
  createSource() {
    throw new BridgeError('invalid_input', 'the cli adapter is not built yet');
  },
};
