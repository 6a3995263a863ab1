import type { ToolAnnotations } from '../../src/index.js';

// Each rule is a list of words matched against the words of the subcommand path, hyphen-split
// too (`ls-remote` → `ls`, `remote`). Destructive wins over read-only: the cautious answer.

const words = (text: string) => new Set(text.trim().split(/\s+/));

/** Words that, together, make a hyphenated command read-only (`for-each-ref`, `name-rev`). */
const READ_ONLY = words(`
  status log diff show list ls get describe view inspect info version search cat blame
  annotate grep shortlog whatchanged cherry count fsck verify check explain top logs history
  events rev parse name base for each ref branch range var whoami current context contexts
  api resources versions cluster ps images stats print query find which tree files objects
  diagnose wait port
`);

/** Commands that only read and print, by their last word. */
const READ_ONLY_ALONE = words(`
  status log diff show list ls get describe view inspect info version search blame annotate
  grep shortlog whatchanged cherry fsck explain top logs history events whoami ps images
  stats var
`);

/** Commands that can delete or overwrite data that is not trivially restored. */
const DESTRUCTIVE = words(`
  reset clean rm rmi remove delete del prune drop destroy purge kill uninstall gc rebase
  filter restore checkout stash branch tag update replace notes worktree repack unset set
  drain evict taint patch rollout scale edit overwrite truncate wipe expire reflog config
  stop down rename push
`);

/** Commands that reach the network. */
const NETWORK = words(`
  push pull fetch clone remote submodule send email login logout download upload install
  publish request http curl wget ssh scp rsync ping deploy sync
`);

/** Words that settle a command as local even for CLIs that talk to a server by default. */
const LOCAL = words(`
  completion help config options plugin kustomize version context
`);

/** Commands that, repeated with the same arguments, change nothing more. */
const IDEMPOTENT = words(`
  init add fetch config apply set unset reset clean rm rmi remove delete prune gc checkout
  switch restore repack drain cordon uncordon label scale stop start update rename
`);

/**
 * Infers the four hints from a subcommand path and the CLI's conventions. `overrides` (from an
 * overlay) win over inference; `openWorldByDefault` is for CLIs whose commands talk to a server.
 *
 * @example inferAnnotations(['cherry-pick']) // not read-only, not destructive, not idempotent, local
 */
export function inferAnnotations(
  path: readonly string[],
  options: { overrides?: Partial<ToolAnnotations>; openWorldByDefault?: boolean; program?: string } = {},
): ToolAnnotations {
  const whole = path.map((word) => word.toLowerCase());
  const words = whole.flatMap((word) => [word, ...word.split(/[-_.]/)]);
  const leaf = whole[whole.length - 1] ?? options.program ?? '';
  const leafWords = leaf.split(/[-_.]/);
  const has = (set: Set<string>) => words.some((word) => set.has(word));

  const destructive =
    has(DESTRUCTIVE) && !(READ_ONLY_ALONE.has(leaf) || /^(get|list|show|describe|view)-/.test(leaf));
  const readOnly =
    !destructive &&
    (READ_ONLY_ALONE.has(leaf) ||
      /^(get|list|show|describe|view|ls|cat|check|verify|diff|rev|for|name|count|merge-base)(-|$)/.test(
        leaf,
      ) ||
      (leafWords.every((word) => READ_ONLY.has(word)) && leafWords.length > 1));
  const network =
    has(NETWORK) || (options.program !== undefined && NETWORK.has(options.program) && whole.length === 0);
  const local = has(LOCAL);
  const openWorld = network || (options.openWorldByDefault === true && !local);
  const idempotent = readOnly || leafWords.some((word) => IDEMPOTENT.has(word));
  const inferred: ToolAnnotations = {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && destructive,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  };
  const merged = { ...inferred, ...options.overrides };
  // A read-only tool is never destructive; keep the pair consistent whatever the overlay said.
  if (merged.readOnlyHint) merged.destructiveHint = false;
  if (options.overrides?.readOnlyHint === true && options.overrides.idempotentHint === undefined) {
    merged.idempotentHint = true;
  }
  return merged;
}
