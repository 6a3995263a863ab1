/**
 * `text` within `budget` characters. Markdown links keep their words and lose their URLs: API
 * docs link every other phrase, and the URLs cost tokens without helping a model call the API.
 */
export function trimText(text: string, budget: number): string {
  if (text.length <= budget && !text.includes('](')) return text.trim();
  const clean = text.replace(/\[([^\]]+)\]\((?:https?:\/\/|\/)[^)\s]*\)/g, '$1').trim();
  return clean.length <= budget ? clean : `${clean.slice(0, budget - 1).trimEnd()}…`;
}
