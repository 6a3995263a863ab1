import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { BridgeError, isSchemaPattern, readInputFile } from '../../src/index.js';

const Annotations = z
  .object({
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  })
  .partial()
  .strict();

const PathKind = z.union([z.enum(['path', 'location']), z.literal(false)]);

const OptionOverlay = z
  .object({
    flag: z.string().regex(/^--?[A-Za-z0-9]/),
    kind: z.enum(['boolean', 'string', 'integer', 'number', 'enum']),
    values: z.array(z.string()),
    repeatable: z.boolean(),
    optionalValue: z.boolean(),
    negatable: z.boolean(),
    offFlag: z.string().regex(/^--?[A-Za-z0-9]/),
    valueCount: z.literal(2),
    description: z.string(),
    /** The value is a file or directory (`location`: or a URL), checked against the roots; `false`: it is not. */
    path: PathKind,
    /** A regular expression (JSON Schema's, unanchored unless written with `^…$`) every value must match. */
    pattern: z.string().refine(isSchemaPattern, 'not a valid regular expression'),
  })
  .partial()
  .strict();

const CommandOverlay = z
  .object({
    description: z.string(),
    annotations: Annotations,
    positionals: z.array(
      z
        .object({
          name: z.string().regex(/^[a-z][\w-]*$/),
          description: z.string(),
          placement: z.enum(['operand', 'path']),
          required: z.boolean().optional(),
          /** The most values it takes: `1` for one file (sqlite3's database), whose next value would be read as something else. */
          maxItems: z.number().int().min(1).optional(),
          path: PathKind.optional(),
          /** A regular expression (JSON Schema's) every value must match, as an option's `pattern`. */
          pattern: z.string().refine(isSchemaPattern, 'not a valid regular expression').optional(),
        })
        .strict(),
    ),
    /** Options added or corrected, by property name. */
    options: z.record(z.string(), OptionOverlay),
    /** Options never offered (in addition to the dangerous ones). */
    removeOptions: z.array(z.string()),
    stdin: z.boolean(),
    longRunning: z.boolean(),
    endOfOptions: z.enum(['--end-of-options', '--']).nullable(),
    /** Environment added when this command runs, over the program's (git push's `GIT_PROTOCOL_FROM_USER`). */
    env: z.record(z.string(), z.string()),
  })
  .partial()
  .strict();

/**
 * One mode of a multi-mode command (`git branch --delete`) served as a tool of its own
 * (`git_branch_delete`) with its own options, positionals and annotations.
 */
const ModeOverlay = CommandOverlay.extend({
  /** Words put after the command's own (`[--delete]`); none for the default mode (`git branch NAME`). */
  args: z.array(z.string().regex(/^[^\s]+$/)),
  /** The command's discovered options this mode offers (all when left out). */
  keepOptions: z.array(z.string()).optional(),
})
  .partial({ args: true })
  .strict();

/**
 * A per-CLI overlay: curation on top of what discovery finds. Everything is optional; a program
 * without an overlay is served from discovery and the inference rules alone.
 */
export const OverlaySchema = z
  .object({
    program: z.string(),
    /** How operands are separated from options: git's `--end-of-options`, `--`, or none. */
    endOfOptions: z.enum(['--end-of-options', '--']).nullable().optional(),
    /** `next`: long options take their value as the next argument, never `--name=value` (curl). */
    longValues: z.literal('next').optional(),
    /** The subcommands offered when `--allow` is not given. */
    defaultCommands: z.array(z.string()).optional(),
    /** Subcommands offered only when `--allow` names them (servers, shells, config writers). */
    hidden: z.array(z.string()).optional(),
    /** Arguments put before the subcommand on every run (e.g. git's `-c color.ui=never`). */
    globalArgs: z.array(z.string()).optional(),
    /** Environment added on every run. */
    env: z.record(z.string(), z.string()).optional(),
    /** Options refused unless `--allow-option` names them: long names without dashes, or `-x`. */
    dangerousOptions: z.array(z.string()).optional(),
    /**
     * Options the inference takes for dangerous that this program makes safe, offered as if
     * `--allow-option` named them (sed's `--expression` script, under the `--sandbox` of `globalArgs`).
     */
    allowOptions: z.array(z.string()).optional(),
    /**
     * Argument values refused everywhere: regular expressions (case-insensitive), each best with
     * the `reason` a refusal gives in words (`{pattern: '^ext::', reason: 'ext:: URLs are refused:
     * the ext transport runs a command'}`); a bare pattern's refusal names its entry.
     */
    dangerousValues: z
      .array(z.union([z.string(), z.object({ pattern: z.string(), reason: z.string().min(1) }).strict()]))
      .optional(),
    /** Long option names whose value is a local file or directory in every command (checked against the roots). */
    pathOptions: z.array(z.string()).optional(),
    /** Long option names whose value is a repository: a path, a `file://` URL (both checked) or a remote URL. */
    locationOptions: z.array(z.string()).optional(),
    /**
     * An environment variable set to the parents of the roots, so the program never looks above
     * them for its project (git: `GIT_CEILING_DIRECTORIES`, so a repository enclosing a root is not used).
     * Such a program looks above cwd, and may resolve values from there: each path value is also
     * checked from every directory between cwd and its root.
     */
    ceilingEnv: z.string().optional(),
    /**
     * For a program that looks above cwd for its project and has no ceiling variable (npm walks up
     * to the first directory holding `package.json` or `node_modules`, and reads its `.npmrc`): the
     * option that names the project (`--prefix`), given on every run as the first directory from
     * cwd up to its outermost root holding one of `markers`, else cwd.
     */
    projectArg: z
      .object({
        flag: z.string().regex(/^--?[\w-]+$/),
        markers: z.array(z.string()).min(1),
        // What the program reads from the project on every run: none may lead out of the roots.
        files: z.array(z.string().regex(/^[^/]+$/)).optional(),
        // Whose project files name other places the program reads too: npm's workspaces, file:
        // dependencies and lockfile links.
        references: z.literal('npm').optional(),
      })
      .strict()
      .optional(),
    /** Directory names no path argument may point below (git: `.git`, whose hooks and config run programs). */
    protectedDirs: z.array(z.string()).optional(),
    /** Whether commands reach the network unless known to be local (Cobra CLIs talking to a server). */
    openWorldByDefault: z.boolean().optional(),
    commands: z.record(z.string(), CommandOverlay).optional(),
    /**
     * Modes of multi-mode commands, by command (`branch`) and mode name (`list` → `git_branch_list`):
     * each becomes a tool next to the command's generic tool.
     */
    modes: z.record(z.string(), z.record(z.string().regex(/^[a-z][\w-]*$/), ModeOverlay)).optional(),
  })
  .strict();

export type Overlay = z.infer<typeof OverlaySchema>;
export type CommandOverlayEntry = z.infer<typeof CommandOverlay>;
export type ModeOverlayEntry = z.infer<typeof ModeOverlay>;

/**
 * Where the package's own overlays are: beside this module (`adapters/cli/overlays/` when run from
 * source, `dist/bin/overlays/` beside the bundle) and the YAML originals at the package root's
 * `adapters/cli/overlays/` (compiled code runs from dist/adapters/cli/ or dist/bin/). The root is
 * found by walking up to our own package.json, never by a fixed number of `..`: from the bundle a
 * fixed walk leaves the package (`node_modules/adapters/cli/overlays/`) and would read a foreign
 * overlay as if it were ours.
 */
export function overlayDirs(moduleUrl: string = import.meta.url): string[] {
  const here = dirname(fileURLToPath(moduleUrl));
  const dirs = [join(here, 'overlays')];
  const root = packageRootOf(here);
  if (root) {
    const originals = join(root, 'adapters', 'cli', 'overlays');
    if (!dirs.includes(originals)) dirs.push(originals);
  }
  return dirs;
}

const PACKAGE_NAME = 'mcp-source-bridge';

/**
 * The package root above `dir`: its nearest package.json with a name must be ours, else undefined.
 * One without a name only marks how the files below it load (the build's `dist/bin/package.json`,
 * `{"type": "commonjs"}`), and the walk goes on past it.
 */
function packageRootOf(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    const manifest = join(current, 'package.json');
    if (existsSync(manifest)) {
      let name: unknown;
      try {
        name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      } catch {
        return undefined;
      }
      if (name !== undefined) return name === PACKAGE_NAME ? current : undefined;
    }
    if (dirname(current) === current) return undefined;
  }
}

let ownDirs: string[] | undefined;

/** The bundled overlay for `program` (by its base name), or `undefined`. */
export function findBundledOverlay(program: string): string | undefined {
  const name = basename(program).replace(/\.exe$/i, '');
  ownDirs ??= overlayDirs();
  for (const dir of ownDirs) {
    for (const ext of ['yaml', 'yml', 'json']) {
      const path = join(dir, `${name}.${ext}`);
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}

// yaml is required only for a YAML overlay: the build writes the bundled ones as JSON too, so a
// start with the bundled git overlay never loads the YAML parser (~30 ms of a cached start).
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

/** The most an overlay file may hold: far above any real one (the bundled git overlay is ~20 kB). */
const MAX_OVERLAY_BYTES = 16 * 2 ** 20;

/**
 * Reads and validates an overlay file (YAML or JSON), a regular file or a pipe, given up with
 * `signal`: what a source's load calls (see read-input-file.ts).
 */
export async function readOverlay(path: string, signal?: AbortSignal): Promise<Overlay> {
  const { bytes } = await readInputFile(path, {
    what: 'the overlay',
    maxBytes: MAX_OVERLAY_BYTES,
    ...(signal ? { signal } : {}),
  });
  const text = bytes.toString('utf8');
  let data: unknown;
  try {
    data = extname(path) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new BridgeError('invalid_input', `the overlay ${path} is not valid YAML/JSON`, { cause: error });
  }
  const parsed = OverlaySchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new BridgeError('invalid_input', `the overlay ${path} is invalid: ${issues.join('; ')}`);
  }
  return parsed.data;
}
