#!/usr/bin/env node
import type { AdapterCommand } from '../command.js';
import { runCli } from '../run-cli.js';

// The one place that names the built-in adapters; each is loaded only when its command runs.
const adapters: Record<string, () => Promise<AdapterCommand>> = {
  openapi: () => import('../../adapters/openapi/index.js').then((m) => m.openapiCommand),
  graphql: () => import('../../adapters/graphql/index.js').then((m) => m.graphqlCommand),
  cli: () => import('../../adapters/cli/index.js').then((m) => m.cliCommand),
};

process.exitCode = await runCli(process.argv.slice(2), adapters);
