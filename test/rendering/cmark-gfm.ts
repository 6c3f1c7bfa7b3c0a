import { spawnSync } from 'node:child_process';

/**
 * GitHub's markdown parser as Debian packages it (`apt-get install -y cmark-gfm`), with the
 * extensions github.com turns on. `--unsafe` keeps raw HTML in the output, as GitHub does
 * before it sanitises, so that a test sees any tag the markdown lets through.
 */
export const CMARK_GFM = process.env.CMARK_GFM_PATH ?? 'cmark-gfm';
const ARGS = [
  '--unsafe',
  ...['table', 'strikethrough', 'autolink', 'tagfilter', 'tasklist'].flatMap((e) => ['-e', e]),
];

export function renderGfm(markdown: string): string {
  const result = spawnSync(CMARK_GFM, ARGS, { input: markdown, encoding: 'utf8' });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? `${CMARK_GFM} not found: install it (apt-get install -y cmark-gfm) or set CMARK_GFM_PATH`
        : `${CMARK_GFM} failed: ${result.error.message}`,
    );
  }
  if (result.status !== 0)
    throw new Error(`${CMARK_GFM} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** A piece of rendered HTML: a tag (with its lower-case name) or decoded text. */
export type HtmlToken =
  | { kind: 'tag'; name: string; closing: boolean; raw: string }
  | { kind: 'comment'; raw: string }
  | { kind: 'text'; text: string; inCode: boolean; inLink: boolean };

/**
 * cmark-gfm escapes every `<` of text, so each `<` in its output starts a tag or a comment:
 * a tokenizer this small reads it exactly.
 */
export function tokenize(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  let code = 0;
  let link = 0;
  for (const [piece] of html.matchAll(/<!--[\s\S]*?-->|<[^>]*>|[^<]+/g)) {
    if (piece.startsWith('<!--')) {
      tokens.push({ kind: 'comment', raw: piece });
      continue;
    }
    const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(piece);
    if (tag) {
      const name = tag[2]!.toLowerCase();
      const closing = tag[1] === '/';
      if (name === 'code') code += closing ? -1 : 1;
      if (name === 'a') link += closing ? -1 : 1;
      tokens.push({ kind: 'tag', name, closing, raw: piece });
      continue;
    }
    tokens.push({ kind: 'text', text: decodeEntities(piece), inCode: code > 0, inLink: link > 0 });
  }
  return tokens;
}

const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return String.fromCodePoint(code);
    }
    return NAMED[name] ?? whole;
  });
}

/** The tokens between each `<open>` and its `</open>` (not nested), e.g. every `td`. */
export function elements(tokens: readonly HtmlToken[], name: string): HtmlToken[][] {
  const found: HtmlToken[][] = [];
  let current: HtmlToken[] | undefined;
  for (const token of tokens) {
    if (token.kind === 'tag' && token.name === name) {
      if (!token.closing) current = [];
      else if (current) {
        found.push(current);
        current = undefined;
      }
      continue;
    }
    current?.push(token);
  }
  return found;
}

/** What a person reads: the text of the tokens, without the invisible word joiners. */
export function visibleText(tokens: readonly HtmlToken[]): string {
  return tokens
    .map((t) => (t.kind === 'text' ? t.text : ''))
    .join('')
    .replaceAll('\u2060', '');
}

export function tagNames(tokens: readonly HtmlToken[]): string[] {
  return tokens.flatMap((t) => (t.kind === 'tag' && !t.closing ? [t.name] : []));
}
