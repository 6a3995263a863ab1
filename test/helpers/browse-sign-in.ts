/** A browser's cookies, by origin. Share one between calls to act as the same browser. */
export type CookieJar = Map<string, Map<string, string>>;

/**
 * What a user does in a browser with a sign-in URL: follows redirects with a cookie jar, goes on
 * from the bridge's start page by its confirmation link, logs in as `login` and consents (or
 * refuses) on oidc-provider's development pages, and finally lands on the bridge's redirect
 * endpoint. Returns that last page (or any page it cannot go on from, such as a refusal), and
 * every URL it fetched on the way.
 */
export async function browseSignIn(
  url: string,
  options: {
    login: string;
    /** Refuse on the consent page: the authorization server redirects back with `access_denied`. */
    deny?: boolean;
    /** Rewrites the authorization server's redirect to the bridge before following it (a forged redirect). */
    tamper?: (redirect: URL) => URL;
    /** The browser: its cookies so far (default: a fresh one). */
    jar?: CookieJar;
  },
): Promise<{ status: number; url: string; text: string; visited: string[] }> {
  const jar = options.jar ?? new Map();
  const visited: string[] = [];
  let next = new URL(url);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const headers = new Headers(init.headers);
    const held = cookieHeader(jar, next.origin);
    if (held) headers.set('cookie', held);
    visited.push(next.href);
    const response = await fetch(next, { ...init, headers, redirect: 'manual' });
    remember(jar, next.origin, response);
    init = {};
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      let target = new URL(location, next);
      // The authorization server's redirect back to the bridge carries the state.
      if (target.origin !== next.origin && target.searchParams.has('state') && options.tamper) {
        target = options.tamper(target);
      }
      next = target;
      continue;
    }
    const text = await response.text();
    // The bridge's start page: go on by its confirmation link.
    const confirm = /<a href="([^"]+)">Continue to sign in<\/a>/.exec(text)?.[1];
    if (confirm) {
      next = new URL(
        confirm.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
        next,
      );
      continue;
    }
    const prompt = /name="prompt" value="(\w+)"/.exec(text)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(text)?.[1];
    // Neither the start page nor a login or consent form: where the browser ends up.
    if (!prompt || !action) return { status: response.status, url: next.href, text, visited };
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

/**
 * Opens a bridge start page in `jar`'s browser and follows its confirmation link one step: returns
 * the authorization server's URL the bridge sends that browser to.
 */
export async function openStartPage(url: string, jar: CookieJar): Promise<string> {
  const origin = new URL(url).origin;
  const page = await fetch(url, { headers: { cookie: cookieHeader(jar, origin) } });
  remember(jar, origin, page);
  const text = await page.text();
  const confirm = confirmationLink(text, new URL(url));
  if (!confirm)
    throw new Error(`no confirmation link on ${url} (HTTP ${page.status}): ${text.slice(0, 300)}`);
  const go = await fetch(confirm, { headers: { cookie: cookieHeader(jar, origin) }, redirect: 'manual' });
  const location = go.headers.get('location');
  if (go.status !== 303 || !location) throw new Error(`the confirmation link answered HTTP ${go.status}`);
  return location;
}

function cookieHeader(jar: CookieJar, origin: string): string {
  return [...(jar.get(origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
}

function remember(jar: CookieJar, origin: string, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    const cookies = jar.get(origin) ?? new Map<string, string>();
    cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    jar.set(origin, cookies);
  }
}

// The bridge's start page links on to the sign-in; its href is HTML-escaped.
function confirmationLink(html: string, base: URL): URL | undefined {
  const href = /<a href="([^"]+)">Continue to sign in<\/a>/.exec(html)?.[1];
  return href
    ? new URL(
        href.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
        base,
      )
    : undefined;
}
