/**
 * The environment variable holding one credential of a named scheme or source:
 * `BRIDGE_<NAME>_<SUFFIX>`, `<NAME>` upper-cased with every run of other characters turned into `_`
 * (`petstore_auth` → `BRIDGE_PETSTORE_AUTH_TOKEN`). Secrets never appear in flags or config files.
 */
export function credentialVariable(name: string, suffix: string): string {
  return `BRIDGE_${name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}_${suffix}`;
}
