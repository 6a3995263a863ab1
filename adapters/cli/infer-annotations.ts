import type { ToolAnnotations } from '../../src/index.js';

// The hints come from the words of the subcommand path (hyphen-split too: `ls-remote` → `ls`,
// `remote`), where the last word is the verb, and from the command's one-line description, whose
// first word is usually the verb too ("List lint rules", "Delete a BSR module"). Destructive wins
// over read-only: the cautious answer.

const words = (text: string) => new Set(text.trim().split(/\s+/));

/** Words that, together, make a hyphenated command read-only (`for-each-ref`, `name-rev`). */
const READ_ONLY = words(`
  status log diff show list ls get describe view inspect info version search cat blame
  annotate grep shortlog whatchanged cherry count fsck verify check explain top logs history
  events rev parse name base for each ref branch range var whoami current context contexts
  api resources versions cluster ps images stats print query find which tree files objects
  diagnose wait port lint rules modules graph
`);

/** Commands that only read and print, by their last word. */
const READ_ONLY_ALONE = words(`
  status log diff show list ls get describe view inspect info version search blame annotate
  grep shortlog whatchanged cherry fsck explain top logs history events whoami ps images
  stats var lint validate check verify graph
`);

/** A leaf whose first word is one of these reads (`get-contexts`, `ls-lint-rules`, `check-ignore`). */
const READ_VERBS = words(`
  get list show describe view ls cat check verify diff rev for name count lint validate info
  stats print search whoami graph inspect explain
`);

/** Verbs that make or change things without destroying any: a destructive parent does not taint them. */
const MAKING_VERBS = words(`
  init create add new generate build export convert format run start serve login logout
  deprecate undeprecate archive unarchive resolve label migrate
`);

/** Commands that can delete or overwrite data that is not trivially restored. */
const DESTRUCTIVE = words(`
  reset clean rm rmi remove delete del prune drop destroy purge kill uninstall gc rebase
  filter restore checkout stash branch tag update replace notes worktree repack unset set
  drain evict taint patch rollout scale edit overwrite truncate wipe expire reflog config
  stop down rename push
`);

/** First words of a description that announce a destructive command ("Delete a BSR module"). */
const DESTRUCTIVE_VERBS = words(`
  delete remove prune destroy purge reset drop clear wipe erase uninstall overwrite kill truncate
`);

/** First words of a description that announce a command that only reads ("List lint rules"). */
const READ_TEXT_VERBS = words(`
  list lists show shows print prints display displays get verify verifies check checks validate
  validates describe describes inspect search find count output outputs compute computes
`);

/**
 * A description that sends its output to files it names, whatever its first verb: split's "Output
 * pieces of FILE to PREFIXaa, PREFIXab", csplit's "… to files 'xx00'". Not read-only.
 */
const WRITES_FILES_TEXT = /\b(?:to|into) (?:files?\b|prefix\w*|output files?\b)/;

/** Commands that reach the network. */
const NETWORK = words(`
  push pull fetch clone remote submodule send email login logout download upload install
  publish request http curl wget ssh scp rsync ping deploy sync registry webhook
`);

/** Words of a description that say the command talks to another machine. */
const NETWORK_TEXT = words(`
  registry remote remotes http https url urls endpoint endpoints rpc network internet
  download upload cloud bsr
`);

/** Words that settle a command as local even for CLIs that talk to a server by default. */
const LOCAL = words(`
  completion help config options plugin kustomize version context
`);

/** Words of a description that say the command works on local files. */
const LOCAL_TEXT = words(`
  file files local directory directories workspace lockfile
`);

/** Words of a description that name things living on a server, whatever files are involved. */
const SERVER_TEXT = words(`
  resource resources cluster clusters server servers pod pods container containers node nodes
  deployment deployments service services namespace namespaces secret secrets map live
`);

/** Commands that, repeated with the same arguments, change nothing more. */
const IDEMPOTENT = words(`
  init add fetch config apply set unset reset clean rm rmi remove delete prune gc checkout
  switch restore repack drain cordon uncordon label scale stop start update rename
`);

/** What the hints are inferred from, besides the path. */
export interface InferenceInput {
  /** Hints an overlay curated: they win over inference. */
  overrides?: Partial<ToolAnnotations>;
  /** For CLIs whose commands talk to a server unless known to be local (Cobra programs). */
  openWorldByDefault?: boolean;
  program?: string;
  /** The command's one-line description. */
  description?: string;
}

/**
 * Infers the four hints from a subcommand path, its description and the CLI's conventions.
 *
 * @example inferAnnotations(['cherry-pick']) // not read-only, not destructive, not idempotent, local
 * @example inferAnnotations(['config', 'ls-modules'], { description: 'List configured modules' }) // read-only
 */
export function inferAnnotations(path: readonly string[], options: InferenceInput = {}): ToolAnnotations {
  const whole = path.map((word) => word.toLowerCase());
  const split = (word: string) => word.split(/[-_.]/).filter(Boolean);
  const leaf = whole[whole.length - 1] ?? options.program ?? '';
  const leafWords = split(leaf);
  const parentWords = whole.slice(0, -1).flatMap((word) => [word, ...split(word)]);
  const allWords = [...parentWords, leaf, ...leafWords];
  const text = (options.description ?? '').toLowerCase();
  const textWords = text.split(/[^a-z0-9]+/).filter(Boolean);
  const verb = textWords[0] ?? '';
  const has = (list: string[], set: Set<string>) => list.some((word) => set.has(word));

  const reads =
    READ_ONLY_ALONE.has(leaf) ||
    READ_VERBS.has(leafWords[0] ?? '') ||
    /^merge-base$/.test(leaf) ||
    (READ_TEXT_VERBS.has(verb) && !WRITES_FILES_TEXT.test(text)) ||
    (leafWords.length > 1 && leafWords.every((word) => READ_ONLY.has(word)));
  const makes = MAKING_VERBS.has(leafWords[0] ?? '');
  const destructive =
    !reads &&
    (has([leaf, ...leafWords], DESTRUCTIVE) ||
      (!makes && has(parentWords, DESTRUCTIVE)) ||
      DESTRUCTIVE_VERBS.has(verb));
  const readOnly = !destructive && reads;
  const network =
    has(allWords, NETWORK) ||
    /\b(pypi|package (index|indexes|registry))\b/.test(text) ||
    has(textWords, NETWORK_TEXT) ||
    (options.program !== undefined && NETWORK.has(options.program) && whole.length === 0);
  // "by file name or stdin" in kubectl's help still means the cluster: files count as local only
  // when the command is not about server-side things.
  const local = has(allWords, LOCAL) || (has(textWords, LOCAL_TEXT) && !has(textWords, SERVER_TEXT));
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
