import { Ajv2020 } from 'ajv/dist/2020.js';
import { countOf } from '../count-of.js';
import { describeError } from '../errors.js';
import { escapeControl } from '../escape-control.js';
import type { Logger } from '../logger.js';
import { ToolRegistry } from '../registry.js';
import type { Source } from '../source.js';
import type { ToolAnnotations } from '../tool.js';
import { entryTokens, listBudgetWarning, toolBudgetWarning } from './token-budget.js';

export { estimateTokens } from './token-budget.js';

/** One tool as `bridge inspect` reports it. */
export interface InspectedTool {
  name: string;
  title?: string;
  source: string;
  annotations: ToolAnnotations;
  taskSupport: 'forbidden' | 'optional' | 'required';
  /** Estimated tokens of the tool's entry in `tools/list` (JSON characters / 4). */
  tokens: number;
  /** Why the tool is invalid; non-empty makes `bridge inspect` exit non-zero. */
  problems: string[];
  /** Worth knowing, but the tool works. */
  warnings: string[];
}

export interface InspectReport {
  tools: InspectedTool[];
  totalTokens: number;
  valid: boolean;
  /** What loading the sources warned about (skipped operations, schema flaws), and list-wide advice. */
  warnings: string[];
}

const VALID_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

// Checks the schemas themselves against the 2020-12 meta-schema, unlike the argument validator.
const ajv = new Ajv2020({
  strict: false,
  validateSchema: true,
  addUsedSchema: false,
  validateFormats: false,
});

/** Loads the sources (without serving) and reports what a client would see. */
export async function inspectSources(sources: readonly Source[], log: Logger): Promise<InspectReport> {
  const shutdown = new AbortController();
  // Load warnings go to the log as usual and into the report, so `--json` carries them too.
  const loadWarnings: string[] = [];
  const collecting: Logger = {
    ...log,
    warn(message, data) {
      loadWarnings.push(message);
      log.warn(message, data);
    },
  };
  try {
    const registry = await ToolRegistry.load(sources, { log: collecting, signal: shutdown.signal });
    const requested = new Map<string, number>();
    for (const tool of registry.tools) {
      requested.set(tool.definition.name, (requested.get(tool.definition.name) ?? 0) + 1);
    }
    const tools = registry.tools.map((tool): InspectedTool => {
      const { definition } = tool;
      const problems: string[] = [];
      const warnings: string[] = [];
      if (!VALID_NAME.test(definition.name)) {
        problems.push(
          `the name "${definition.name}" is not 1-64 characters of A-Z a-z 0-9 _ . - (served as "${tool.name}")`,
        );
      } else if ((requested.get(definition.name) ?? 0) > 1) {
        warnings.push(
          `"${definition.name}" is offered by more than one source; served as "${tool.name}" (give the sources namespaces)`,
        );
      }
      problems.push(...schemaProblems('inputSchema', definition.inputSchema, true));
      if (definition.outputSchema)
        problems.push(...schemaProblems('outputSchema', definition.outputSchema, true));
      if (!definition.description.trim()) warnings.push('no description: the model cannot tell what it does');
      const tokens = entryTokens(tool);
      const budget = toolBudgetWarning(tokens, tool.source);
      if (budget) warnings.push(budget);
      return {
        name: tool.name,
        ...(definition.title ? { title: definition.title } : {}),
        source: tool.source,
        annotations: definition.annotations,
        taskSupport: definition.taskSupport ?? 'forbidden',
        tokens,
        problems,
        warnings,
      };
    });
    const totalTokens = tools.reduce((sum, tool) => sum + tool.tokens, 0);
    const listWarning = listBudgetWarning(tools, totalTokens);
    return {
      tools,
      totalTokens,
      valid: tools.every((tool) => tool.problems.length === 0),
      warnings: listWarning ? [...loadWarnings, listWarning] : loadWarnings,
    };
  } finally {
    shutdown.abort();
    await Promise.allSettled(sources.map((source) => source.close?.()));
  }
}

function schemaProblems(field: string, schema: unknown, objectRoot: boolean): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [`${field} is not a JSON Schema object`];
  }
  const problems: string[] = [];
  if (objectRoot && (schema as { type?: unknown }).type !== 'object') {
    problems.push(`${field} must have "type": "object" at its root`);
  }
  try {
    ajv.compile(schema);
  } catch (error) {
    problems.push(`${field} does not compile as JSON Schema 2020-12: ${describeError(error)}`);
  }
  return problems;
}

/** The report as a table for a terminal. */
export function formatInspectTable(report: InspectReport): string {
  const yes = (value: boolean) => (value ? 'yes' : 'no');
  const header = ['NAME', 'TITLE', 'READ-ONLY', 'DESTRUCTIVE', 'IDEMPOTENT', 'OPEN-WORLD', 'TASK', 'TOKENS'];
  // Names and titles come from specs and help texts: their control characters are shown, not sent.
  const rows = report.tools.map((tool) => [
    escapeControl(tool.name),
    truncate(escapeControl(tool.title ?? ''), 40),
    yes(tool.annotations.readOnlyHint),
    yes(tool.annotations.destructiveHint),
    yes(tool.annotations.idempotentHint),
    yes(tool.annotations.openWorldHint),
    tool.taskSupport,
    String(tool.tokens),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === row.length - 1 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  const count = countOf(report.tools.length, 'tool');
  out.push('', `${count}, about ${report.totalTokens} tokens in tools/list (JSON characters / 4)`);
  for (const tool of report.tools) {
    const name = escapeControl(tool.name);
    for (const problem of tool.problems) out.push(`invalid ${name}: ${escapeControl(problem)}`);
    for (const warning of tool.warnings) out.push(`warning ${name}: ${escapeControl(warning)}`);
  }
  // Load warnings were logged to stderr as they happened; list-wide advice belongs with the total.
  const advice = listBudgetWarning(report.tools, report.totalTokens);
  if (advice) out.push(`warning: ${escapeControl(advice)}`);
  return `${out.join('\n')}\n`;
}

// Long titles (OpenAPI summaries) would push the other columns off the screen; --json has them whole.
function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
