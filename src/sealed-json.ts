import { createHash } from 'node:crypto';

// A cache file's JSON with its own checksum as its last member, `"sha256"`: a SHA-256 of the text
// as it would be without that member. A damaged byte that leaves valid JSON (a server's URL, a
// subcommand's name) is found before anything in the file is used, and no canonical form is
// needed: the check is on the text as written.

/** `text`, one JSON object, sealed with its own checksum (see above). */
export function sealJson(text: string): string {
  const digest = createHash('sha256').update(text).digest('hex');
  return text === '{}' ? `{"sha256":"${digest}"}` : `${text.slice(0, -1)},"sha256":"${digest}"}`;
}

// The seal at the end of the text: the checksum, as the last member.
const SEAL = /,?"sha256":"([0-9a-f]{64})"\}$/;

/** Whether `text` ends with its own checksum, and the text before it hashes to that. */
export function isSealed(text: string): boolean {
  const seal = SEAL.exec(text);
  if (!seal) return false;
  const unsealed = `${text.slice(0, seal.index)}}`;
  return createHash('sha256').update(unsealed).digest('hex') === seal[1];
}
