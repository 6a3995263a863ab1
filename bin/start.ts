#!/usr/bin/env node
// The executable (`bridge`, `mcp-bridge`): loads the bundled command line beside it through V8's
// code cache. The composition root itself is bridge.ts; the build bundles it as bridge-bundle.js.
import { fileURLToPath } from 'node:url';
import { runBundle } from './run-bundle.js';

// Replaced by the bundle's SHA-256 when the build bundles this file (scripts/bundle-cli.mjs).
declare const BRIDGE_BUNDLE_SHA256: string | undefined;

runBundle(
  fileURLToPath(new URL('./bridge-bundle.js', import.meta.url)),
  typeof BRIDGE_BUNDLE_SHA256 === 'string' ? BRIDGE_BUNDLE_SHA256 : undefined,
);
