import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from './tool.js';

// Ajv and its formats are CommonJS and take ~50 ms to load: required on the first compile, not at
// start-up, so a server answers `initialize` and `tools/list` sooner.
const require = createRequire(import.meta.url);

/** One reason why arguments do not fit a schema, located by a JSON pointer into the arguments. */
export interface Violation {
  /** `/owner`, `/items/2/id`, or `` for the arguments object itself. */
  path: string;
  message: string;
}

/** Checks arguments against a tool's input schema: `[]` when they fit. */
export type ArgumentValidator = (args: unknown) => Violation[];

let shared: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (!shared) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const formats = require('ajv-formats') as { default: (instance: Ajv2020) => unknown };
    shared = new Ajv({
      allErrors: true,
      strict: false,
      // Compiled schemas stay out of Ajv's shared registry, so two tools may use the same `$id`.
      addUsedSchema: false,
      validateSchema: false,
      // Real specs use vendor formats (`int32`, `repo.nwo`); unknown formats are accepted, not logged.
      logger: false,
    });
    formats.default(shared);
  }
  return shared;
}

/**
 * Compiles `schema` into a validator (Ajv, JSON Schema 2020-12). Throws when the schema does not
 * compile; callers compile lazily, on a tool's first call, so one bad schema costs nothing up front.
 */
export function compileValidator(schema: JsonSchema): ArgumentValidator {
  const validate: ValidateFunction = ajv().compile(schema);
  return (args) => (validate(args) ? [] : (validate.errors ?? []).map(toViolation));
}

/** Formats violations as lines a model can act on. */
export function formatViolations(toolName: string, violations: readonly Violation[]): string {
  const lines = violations.map((violation) => `- ${violation.path || '(arguments)'}: ${violation.message}`);
  return `Invalid arguments for tool "${toolName}":\n${lines.join('\n')}\nFix these and call the tool again.`;
}

function toViolation(error: ErrorObject): Violation {
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    path = `${path}/${String(params.missingProperty)}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    path = `${path}/${String(params.additionalProperty)}`;
    message = 'is not an allowed property';
  } else if (error.keyword === 'enum') {
    message = `must be one of ${JSON.stringify(params.allowedValues)}`;
  }
  return { path, message };
}
