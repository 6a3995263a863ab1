const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A URL as messages, source labels and logs show it: without its user name and password, with each
 * query value replaced by `…` (the names kept), and without its fragment, since any of them may
 * carry a credential (`?api_key=${KEY}`, `https://user:token@host/`). Text that is not an absolute
 * URL (a file path) is returned as it is.
 *
 * @example displayUrl('https://me:pw@api.example.com/graphql?api_key=s3cret&v=2') // 'https://api.example.com/graphql?api_key=…&v=…'
 */
export function displayUrl(text: string): string {
  // Decided by the URL parser, which undici also uses: it reads `https:\\me:pw@host/` and a tab
  // inside the scheme as a URL with a host, though no pattern written for `scheme://` would.
  const url = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined;
  if (!url || url.host === '') {
    if (!ABSOLUTE_URL.test(text.trim())) return text;
    // Not a URL the bridge could reach, but it may still hold a credential: cut the same parts.
    return text
      .replace(/\/\/[^/?#]*@/, '//')
      .replace(/#.*$/, '')
      .replace(/([?&][^=&#]*)=[^&#]*/g, '$1=…');
  }
  const query = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=…` : pair));
  return `${url.protocol}//${url.host}${url.pathname}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
