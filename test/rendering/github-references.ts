import type { HtmlToken } from './cmark-gfm.js';

/**
 * What github.com links after cmark-gfm has rendered a comment, modelled from its documentation
 * ("Autolinked references and URLs", "Basic writing and formatting syntax"): GitHub scans the
 * text nodes outside `<code>`, `<pre>` and `<a>` for these. The patterns are looser than
 * GitHub's own (no look-behind for word characters, any hex run counts as a SHA), so text they
 * pass is text GitHub leaves alone. cmark-gfm's own autolinks (URLs, `www.`, e-mail) are in
 * the list too, for text that reaches GitHub some other way than through cmark.
 */
export const GITHUB_PATTERNS: ReadonlyArray<readonly [kind: string, pattern: RegExp]> = [
  ['mention or team', /@[a-z0-9][a-z0-9-]*/gi],
  ['issue or cross-repo reference', /#\d+/g],
  ['GH- reference', /\bGH-\d+/gi],
  ['commit SHA', /\b[0-9a-f]{7,40}\b/gi],
  ['URL', /\b(?:https?|ftp):\/\//gi],
  ['www. link', /\bwww\./gi],
  ['e-mail address', /[\w.+-]+@[a-z0-9-]+\.[a-z0-9.-]+/gi],
  ['emoji shortcode', /:[a-z0-9_+-]+:/gi],
];

export interface Reference {
  kind: string;
  text: string;
}

/** Every reference GitHub would link in these rendered tokens. */
export function githubReferences(tokens: readonly HtmlToken[]): Reference[] {
  const found: Reference[] = [];
  // Adjacent text tokens are one text node to GitHub (cmark splits at entities and escapes).
  let run = '';
  const flush = () => {
    for (const [kind, pattern] of GITHUB_PATTERNS) {
      for (const [text] of run.matchAll(pattern)) found.push({ kind, text });
    }
    run = '';
  };
  for (const token of tokens) {
    if (token.kind === 'text' && !token.inCode && !token.inLink) run += token.text;
    else flush();
  }
  flush();
  return found;
}

/**
 * Code spans GitHub draws a colour swatch beside ("Supported color models": `#RRGGBB`,
 * `rgb(R,G,B)`, `hsl(H,S,L)`, a code span holding only the colour), modelled looser than
 * GitHub's: any 3 to 8 hex digits, and the `a` forms.
 */
export function colourSwatches(tokens: readonly HtmlToken[]): string[] {
  const found: string[] = [];
  let span: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'tag' && token.name === 'code') {
      if (!token.closing) span = '';
      else if (span !== undefined) {
        if (/^(?:#[0-9a-f]{3,8}|(?:rgb|hsl)a?\(.*\))$/i.test(span.trim())) found.push(span);
        span = undefined;
      }
    } else if (token.kind === 'text' && span !== undefined) span += token.text;
  }
  return found;
}
