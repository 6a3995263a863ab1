/** How far into an HTML page its `<title>` is looked for: the head comes first. */
const TITLE_SEARCH_CHARS = 64 * 1024;

/**
 * Whether a body is an HTML page (a web page, a documentation page, a login wall or a proxy's
 * error page) where an adapter expected JSON or YAML: it starts, past a byte order mark and
 * white space, with a doctype or an `<html>`, `<head>` or `<body>` tag.
 *
 * @example isHtmlPage('\n<!DOCTYPE html><html>…') // true
 */
export function isHtmlPage(text: string): boolean {
  return /^<(!doctype html|html|head|body)\b/i.test(text.replace(/^\uFEFF/, '').trimStart());
}

/**
 * The title of an HTML page, white space collapsed, or undefined when it has none in its first
 * 64 KiB. Linear in the page's length: unbounded, `<title[^>]*>` would scan to the end of the text
 * from every `<title` without its `>`, quadratic (minutes for 1 MB of them), and the whole bridge
 * would wait meanwhile.
 *
 * @example htmlPageTitle('<html><title> Sign\n in </title>') // 'Sign in'
 */
export function htmlPageTitle(text: string): string | undefined {
  const head = text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .slice(0, TITLE_SEARCH_CHARS);
  return (
    /<title\b[^>]{0,100}>([^<]{0,300})<\/title>/i.exec(head)?.[1]?.replace(/\s+/g, ' ').trim() || undefined
  );
}
