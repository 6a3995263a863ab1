/**
 * The environment variables that hold the bridge's own secrets: every `BRIDGE_*` variable (the
 * credentials of sources and schemes, see `credentialVariable`, the store's password, the state
 * key) and those named for a secret elsewhere (`--auth-tokens-env NAME`: the tokens callers present;
 * a `${NAME}` in a header value or in a config file's credential, URL or store settings).
 * The commands the bridge runs never receive them: a caller could read them back through any
 * command that shows its environment (`env`, jq's `$ENV`, a failing program's diagnostics).
 */
const named = new Set<string>();

/** Marks `name` as holding one of the bridge's secrets (see above). */
export function markSecretVariable(name: string): void {
  named.add(name);
}

export function isSecretVariable(name: string): boolean {
  return name.startsWith('BRIDGE_') || named.has(name);
}

/** The bridge's environment without its secrets: what a command it runs starts from. */
export function commandEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretVariable(name)) kept[name] = value;
  }
  return kept;
}
