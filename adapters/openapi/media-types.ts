/** How a request body is encoded, by its media type. */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

/** JSON first, then forms, then text, then anything else (sent as bytes). */
export function pickMediaType(types: readonly string[]): string | undefined {
  const lower = types.map((t) => t.toLowerCase());
  const rank = (type: string) => {
    if (isJson(type)) return 0;
    if (type.startsWith('application/x-www-form-urlencoded')) return 1;
    if (type.startsWith('multipart/form-data')) return 2;
    if (type.startsWith('text/')) return 3;
    if (type === '*/*') return 4;
    return 5;
  };
  let best: number | undefined;
  lower.forEach((type, index) => {
    if (best === undefined || rank(type) < rank(lower[best] as string)) best = index;
  });
  return best === undefined ? undefined : types[best];
}

/** JSON or a `+json` type; the any-type wildcard counts too (a server that takes anything takes JSON). */
export function isJson(mediaType: string): boolean {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type === '*/*';
}

/** How a body of this media type is encoded; anything unrecognised travels as raw bytes. */
export function bodyKind(mediaType: string): BodyKind {
  const type = mediaType.toLowerCase();
  if (isJson(type)) return 'json';
  if (type.startsWith('application/x-www-form-urlencoded')) return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (type.startsWith('text/') || type.endsWith('+xml') || type === 'application/xml') return 'text';
  return 'binary';
}
