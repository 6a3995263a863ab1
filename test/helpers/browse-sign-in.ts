/**
 * What a user does in a browser with a sign-in URL, for oidc-provider's development pages: follows
 * redirects with a cookie jar, logs in as `login`, consents (or refuses), and finally lands on the
 * bridge's redirect endpoint. Returns that last page.
 */
export async function browseSignIn(
  url: string,
  options: {
    login: string;
    /** Refuse on the consent page: the authorization server redirects back with `access_denied`. */
    deny?: boolean;
    /** Rewrites the authorization server's redirect to the bridge before following it (a forged redirect). */
    tamper?: (redirect: URL) => URL;
  },
): Promise<{ status: number; url: string; text: string }> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  };
  const issuer = new URL(url).origin;
  let next = new URL(url);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const headers = new Headers(init.headers);
    // Cookies belong to the authorization server; the bridge's endpoint gets none.
    if (next.origin === issuer && jar.size > 0) headers.set('cookie', cookie());
    const response = await fetch(next, { ...init, headers, redirect: 'manual' });
    remember(response);
    init = {};
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      let target = new URL(location, next);
      if (target.origin !== issuer && options.tamper) target = options.tamper(target);
      next = target;
      continue;
    }
    const text = await response.text();
    if (next.origin !== issuer) return { status: response.status, url: next.href, text };
    const prompt = /name="prompt" value="(\w+)"/.exec(text)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(text)?.[1];
    if (!prompt || !action)
      throw new Error(`unexpected page at ${next.href} (HTTP ${response.status}): ${text.slice(0, 300)}`);
    if (prompt === 'consent' && options.deny) {
      const abort = /href="([^"]*\/abort)"/.exec(text)?.[1];
      if (!abort) throw new Error(`no way to refuse on ${next.href}`);
      next = new URL(abort, next);
      continue;
    }
    const body =
      prompt === 'login'
        ? new URLSearchParams({ prompt, login: options.login, password: 'any' })
        : new URLSearchParams({ prompt });
    next = new URL(action, next);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    };
  }
  throw new Error(`sign-in did not finish in 20 steps, at ${next.href}`);
}
