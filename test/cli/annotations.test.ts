import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyOverlay } from '../../adapters/cli/apply-overlay.js';
import type { CommandSpec } from '../../adapters/cli/cli-spec.js';
import { inferAnnotations } from '../../adapters/cli/infer-annotations.js';
import { findBundledOverlay, readOverlay } from '../../adapters/cli/load-overlay.js';
import { parseHelpAll } from '../../adapters/cli/parse-git-help.js';

// What discovery gives each command: git 2.39's own descriptions (`git help -a`).
const _GIT_DESCRIPTIONS = parseHelpAll(
  readFileSync(fileURLToPath(new URL('../../fixtures/cli/git/2.39.5/help-a.txt', import.meta.url)), 'utf8'),
);

// R = readOnly, D = destructive, I = idempotent, O = openWorld; '-' = false.
// Judgement per command: what a careful reviewer would approve without asking.
const GIT_TABLE: Array<[string, string]> = [
  ['status', 'R-I-'],
  ['log', 'R-I-'],
  ['diff', 'R-I-'],
  ['show', 'R-I-'],
  ['blame', 'R-I-'],
  ['grep', 'R-I-'],
  ['shortlog', 'R-I-'],
  ['describe', 'R-I-'],
  ['rev-parse', 'R-I-'],
  ['rev-list', 'R-I-'],
  ['ls-files', 'R-I-'],
  ['ls-tree', 'R-I-'],
  ['cat-file', 'R-I-'],
  ['for-each-ref', 'R-I-'],
  ['show-ref', 'R-I-'],
  ['show-branch', 'R-I-'],
  ['merge-base', 'R-I-'],
  ['name-rev', 'R-I-'],
  ['check-ignore', 'R-I-'],
  ['count-objects', 'R-I-'],
  ['fsck', 'R-I-'],
  ['cherry', 'R-I-'],
  ['range-diff', 'R-I-'],
  ['verify-commit', 'R-I-'],
  ['whatchanged', 'R-I-'],
  ['archive', 'R-I-'],
  ['version', 'R-I-'],
  ['ls-remote', 'R-IO'],
  ['stash list', 'R-I-'],
  ['worktree list', 'R-I-'],
  ['remote show', 'R-IO'],
  ['remote get-url', 'R-I-'],
  ['fetch', '--IO'],
  ['pull', '---O'],
  ['push', '-D-O'],
  ['clone', '---O'],
  ['remote add', '---O'],
  ['remote remove', '-DI-'],
  ['remote prune', '-DIO'],
  ['remote update', '--IO'],
  ['remote set-url', '--I-'],
  ['remote', '-D-O'],
  ['submodule', '---O'],
  ['add', '--I-'],
  ['init', '--I-'],
  ['switch', '--I-'],
  ['apply', '--I-'],
  ['commit', '----'],
  ['merge', '----'],
  ['cherry-pick', '----'],
  ['revert', '----'],
  ['am', '----'],
  ['mv', '----'],
  ['format-patch', '----'],
  ['reset', '-DI-'],
  ['clean', '-DI-'],
  ['rm', '-DI-'],
  ['restore', '-DI-'],
  ['checkout', '-DI-'],
  ['prune', '-DI-'],
  ['gc', '-DI-'],
  ['repack', '-DI-'],
  ['config', '-DI-'],
  ['update-ref', '-DI-'],
  ['rebase', '-D--'],
  ['branch', '-D--'],
  ['tag', '-D--'],
  ['stash', '-D--'],
  ['stash drop', '-D--'],
  ['stash clear', '-DI-'],
  ['stash pop', '-D--'],
  ['stash apply', '----'],
  ['stash show', 'R-I-'],
  ['stash push', '-D--'],
  ['worktree', '-D--'],
  ['worktree add', '----'],
  ['worktree prune', '-DI-'],
  // Modes of multi-mode commands, each a tool of its own next to the generic one.
  ['branch list', 'R-I-'],
  ['branch show-current', 'R-I-'],
  ['branch create', '----'],
  ['branch delete', '-D--'],
  ['branch rename', '----'],
  ['tag list', 'R-I-'],
  ['tag create', '----'],
  ['tag delete', '-D--'],
  ['tag verify', 'R-I-'],
  ['config get', 'R-I-'],
  ['config list', 'R-I-'],
  ['config set', '-DI-'],
  ['config unset', '-DI-'],
  ['notes', '-D--'],
  ['reflog', '-D--'],
  ['worktree remove', '-DI-'],
];

function code(annotations: ReturnType<typeof inferAnnotations>): string {
  return [
    annotations.readOnlyHint ? 'R' : '-',
    annotations.destructiveHint ? 'D' : '-',
    annotations.idempotentHint ? 'I' : '-',
    annotations.openWorldHint ? 'O' : '-',
  ].join('');
}

const gitOverlayPath = findBundledOverlay('git');
const gitOverlay = gitOverlayPath ? await readOverlay(gitOverlayPath) : undefined;

describe('annotations inferred for git commands (with the bundled overlay)', () => {
  const overlay = gitOverlay;

  it('has the bundled overlay and at least 40 labelled commands', () => {
    expect(overlay?.program).toBe('git');
    expect(GIT_TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(GIT_TABLE)('git %s → %s', (command, expected) => {
    const path = command.split(' ');
    const spec = (words: string[]): CommandSpec => ({
      path: words,
      description: '',
      options: [],
      positionals: [],
    });
    // Discovery finds the command (and its subcommands); the overlay adds its modes.
    const all = applyOverlay([spec(path.slice(0, 1)), ...(path.length > 1 ? [spec(path)] : [])], overlay);
    const curated = all.find((entry) => entry.path.join(' ') === command);
    expect(curated, `${command} is served`).toBeDefined();
    const annotations = inferAnnotations(curated?.path ?? [], {
      program: 'git',
      description: curated?.description ?? '',
      ...(curated?.annotations ? { overrides: curated.annotations } : {}),
    });
    expect(code(annotations)).toBe(expected);
  });
});

describe('annotations for a Cobra CLI that talks to a server', () => {
  const table: Array<[string, string]> = [
    ['get', 'R-IO'],
    ['describe', 'R-IO'],
    ['logs', 'R-IO'],
    ['delete', '-DIO'],
    ['apply', '--IO'],
    ['config view', 'R-I-'],
    ['config get-contexts', 'R-I-'],
    ['config delete-context', '-DI-'],
    ['rollout status', 'R-IO'],
    ['rollout undo', '-D-O'],
    ['completion', '----'],
  ];
  it.each(table)('kubectl %s → %s', (command, expected) => {
    expect(code(inferAnnotations(command.split(' '), { program: 'kubectl', openWorldByDefault: true }))).toBe(
      expected,
    );
  });
});
