import { Lexer, Source, TokenKind } from 'graphql';
import { MAX_JSON_DEPTH } from '../../src/index.js';

/** Fragment definitions one document may hold: real queries use a few dozen. */
export const MAX_FRAGMENTS = 1_000;
/**
 * Levels of `{ }` and `[ ]` one document may nest, selection sets and literal values together:
 * the depth the bridge allows any JSON it reads or passes on.
 */
const MAX_NESTING = MAX_JSON_DEPTH;
/**
 * Tokens one document may hold: GitHub's largest real queries hold a few thousand. Parsing and
 * validating are linear in them but run on the event loop: a 2 MB document of a million fields
 * held every other call for ~2 s.
 */
const MAX_TOKENS = 50_000;

/**
 * Why a client's document is too large for graphql-js to check, or `undefined`. Its parser and its
 * validation recurse once per level of nesting and once per fragment of a chain (each spreading the
 * next): a few thousand overflow the stack ("Maximum call stack size exceeded"). graphql-js's own
 * bounds do not help (`parse`'s `maxTokens` is off by default and counts width, not depth), so the
 * document is counted here first, token by token, in linear time and without recursion. A syntax
 * error is left to `parse`, which says where it is.
 */
export function documentBounds(text: string): string | undefined {
  const lexer = new Lexer(new Source(text));
  let depth = 0;
  let parens = 0;
  let fragments = 0;
  let tokens = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > MAX_TOKENS)
        return `the document holds more than ${MAX_TOKENS.toLocaleString('en-US')} tokens, more than the bridge checks; select fewer fields`;
      switch (token.kind) {
        case TokenKind.BRACE_L:
        case TokenKind.BRACKET_L:
          depth++;
          if (depth > MAX_NESTING)
            return `the document nests selection sets, lists or objects deeper than ${MAX_NESTING} levels, more than the bridge checks; select fewer nested fields`;
          break;
        case TokenKind.BRACE_R:
        case TokenKind.BRACKET_R:
          depth--;
          break;
        case TokenKind.PAREN_L:
          parens++;
          break;
        case TokenKind.PAREN_R:
          parens--;
          break;
        case TokenKind.NAME:
          // A definition starts outside every bracket; `fragment` there begins one (or names an
          // operation `query fragment`, counted too: harmless for a bound this far from real use).
          if (depth === 0 && parens === 0 && token.value === 'fragment') fragments++;
          if (fragments > MAX_FRAGMENTS)
            return `the document defines more than ${MAX_FRAGMENTS} fragments, more than the bridge checks; inline some of them`;
          break;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}
