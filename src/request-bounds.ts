/**
 * The longest resource URI the bridge takes from a request or names whole in an answer: the
 * long-standing practical limit of URLs, room for any URI a listing or a template names, and far
 * below what a request can carry (4 MiB over HTTP, 10 MiB a line over stdio).
 */
export const MAX_URI_CHARS = 2_048;
