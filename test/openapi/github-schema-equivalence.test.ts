import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaConverter } from '../../adapters/openapi/convert-schema.js';
import { inlineSingleUse } from '../../adapters/openapi/inline-defs.js';
import { listOperations } from '../../adapters/openapi/list-operations.js';
import { loadDocument } from '../../adapters/openapi/load-document.js';
import { planOperation } from '../../adapters/openapi/plan-operation.js';
import { compileValidator } from '../../src/index.js';
import { random, sampleArguments } from './helpers/sample-arguments.js';

// The smaller tools/list must mean the same: for every operation of GitHub's REST spec, arguments
// generated from the input schema as planned and from the schema as served (single-use `$defs`
// inlined) are accepted or refused alike by both.
const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

describe('GitHub input schemas, as planned and as served', () => {
  it('accept and refuse the same generated arguments, for every operation', {
    timeout: 300_000,
  }, async () => {
    const loaded = await loadDocument(GITHUB, dirname(GITHUB));
    const converter = new SchemaConverter(loaded.document, loaded.version);
    const operations = listOperations(loaded.document, loaded.version);
    expect(operations.length).toBeGreaterThan(1_000);
    const rng = random(20261123);
    let compared = 0;
    let refused = 0;
    let inlined = 0;
    const differences: string[] = [];
    for (const operation of operations) {
      const planned = planOperation(operation, loaded.document, loaded.version, converter).inputSchema;
      const served = inlineSingleUse(planned);
      if (served !== planned) inlined++;
      const before = compileValidator(planned);
      const after = compileValidator(served);
      const samples = [...sampleArguments(planned, 3, rng), ...sampleArguments(served, 3, rng)];
      for (const args of samples) {
        const accepted = before(args).length === 0;
        if (accepted !== (after(args).length === 0)) {
          differences.push(`${operation.method} ${operation.path}: ${JSON.stringify(args)}`);
        }
        compared++;
        if (!accepted) refused++;
      }
    }
    expect(differences.slice(0, 5)).toEqual([]);
    // The comparison is not vacuous: schemas changed, and both verdicts occur.
    expect(inlined).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(compared / 10);
    expect(refused).toBeLessThan(compared);
  });
});
