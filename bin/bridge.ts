// The composition root: the command-line entry, the one place that names the built-in adapters.
// It sits outside src/ because it points down into both the core and the adapters, which the core
// never does (see test/core/layers.test.ts). The build bundles it as CommonJS, which has no
// top-level await; start.ts (the executable) runs the bundle.
import type { AdapterCommand } from '../src/command.js';
import { runCli } from '../src/run-cli.js';

// Each adapter is loaded only when its command runs.
const adapters: Record<string, () => Promise<AdapterCommand>> = {
  openapi: () => import('../adapters/openapi/index.js').then((m) => m.openapiCommand),
  graphql: () => import('../adapters/graphql/index.js').then((m) => m.graphqlCommand),
  cli: () => import('../adapters/cli/index.js').then((m) => m.cliCommand),
};

void runCli(process.argv.slice(2), adapters).then((code) => {
  process.exitCode = code;
});
