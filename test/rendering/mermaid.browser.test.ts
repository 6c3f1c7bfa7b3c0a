import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStatusComment, type StatusTaskView } from '../../src/core/status/index.js';
import { statusView, taskView } from '../core/status/builders.js';
import { launchChromium } from '../dashboard/browser.js';
import { HOSTILE_TEXT, readsAs } from './hostile-text.js';

const MERMAID_JS = resolve(import.meta.dirname, '../../node_modules/mermaid/dist/mermaid.min.js');

/** Text that Mermaid itself reads as syntax, entities, directives or icons. */
const MERMAID_TEXT: ReadonlyArray<readonly [name: string, text: string]> = [
  ['a style statement', 'style t0 fill:#f00;'],
  ['a classDef statement', 'classDef x fill:#f00,color:#fff;'],
  ['an entity look-alike', 'C#35; and #quot; and #lt;b#gt;'],
  ['an entity after a colon', 'style: a:#35;b;'],
  ['quotes', 'say "hi" and \'bye\''],
  ['a quote breakout', '"]; click t0 call alert(1); t9["x'],
  ['brackets', '[a] (b) {c} ((d)) [[e]] {{f}} >g]'],
  ['line breaks as HTML', 'one<br>two<br/>three<br />four'],
  ['an edge', 'A-->B --- C ==> D -.-> E'],
  ['an init directive', '%%{init: {"theme": "forest"}}%%'],
  ['a comment', '%% hidden'],
  ['an icon', 'fa:fa-car fab:fa-github'],
  ['node metadata', 'A@{ shape: circle }'],
  ['markdown', '**bold** _it_ `code`'],
  ['keywords', 'end graph subgraph click'],
  ['semicolons', 'a; b;; c;'],
  ['Mermaid entity sentinels', 'ﬂ° ﬂ°° ¶ß'],
];

const CASES = [...HOSTILE_TEXT, ...MERMAID_TEXT];

interface RenderedNode {
  id: string;
  text: string;
  tags: string[];
}

interface Rendered {
  nodes: RenderedNode[];
  edges: number;
}

// What the page callback touches (the tests compile without the DOM lib).
interface PageElement {
  id: string;
  tagName: string;
  innerHTML: string;
  textContent: string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
declare const document: { createElement(tag: string): PageElement };
declare const mermaid: {
  initialize(config: object): void;
  parse(code: string): Promise<unknown>;
  render(id: string, code: string): Promise<{ svg: string }>;
};

/** Mermaid's parse and render in the page, as GitHub's viewer runs them on a ```mermaid block. */
async function renderGraph(page: Page, code: string): Promise<Rendered> {
  return page.evaluate(async (source) => {
    mermaid.initialize({ startOnLoad: false });
    await mermaid.parse(source);
    const { svg } = await mermaid.render('graph', source);
    const holder = document.createElement('div');
    holder.innerHTML = svg;
    const nodes = [...holder.querySelectorAll('g.node')].map((node) => {
      const label = node.querySelector('.nodeLabel');
      return {
        id: node.id,
        text: label?.textContent ?? '',
        tags: [...(label?.querySelectorAll('*') ?? [])].map((e) => e.tagName.toLowerCase()),
      };
    });
    return { nodes, edges: [...holder.querySelectorAll('.edgePaths path')].length };
  }, code);
}

function mermaidBlock(body: string): string {
  const block = /```mermaid\n([\s\S]*?)\n```/.exec(body)?.[1];
  if (block === undefined) throw new Error('the status comment has no Mermaid graph');
  return block;
}

/** A label as it should read: one line, single spaces, bidi overrides gone. */
function labelText(id: string, title: string): string {
  const flat = title
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  return `${id}: ${flat}`;
}

/**
 * The status comment's graph through Mermaid's own parser and renderer in Chromium: it parses,
 * holds exactly the tasks and their edges, and each label reads as the task's id and title.
 */
describe('the status comment graph in Mermaid', () => {
  let browser: Browser;
  let page: Page;
  // Launched here but awaited in each test, so a missing Chromium fails the tests.
  let launched: Promise<void>;
  // The status comment's graph, rendered once for all the label tests.
  let rendered: Promise<Rendered>;

  const tasks: StatusTaskView[] = CASES.map(([, text], i) =>
    taskView({ id: `t_${i}`, title: text, deps: i > 0 ? [`t_${i - 1}`] : [] }),
  );
  const graph = mermaidBlock(renderStatusComment(statusView({ tasks })));

  beforeAll(() => {
    launched = launchChromium().then(async (b) => {
      browser = b;
      page = await browser.newPage();
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ path: MERMAID_JS });
    });
    rendered = launched.then(() => renderGraph(page, graph));
    rendered.catch(() => {});
  });

  afterAll(async () => {
    await page?.close();
    await browser?.close();
  });

  it('parses, with one node per task and one edge per dependency', async () => {
    const { nodes, edges } = await rendered;
    expect(nodes).toHaveLength(tasks.length);
    expect(edges).toBe(tasks.length - 1);
  });

  it.each(CASES.map(([name, text], i) => ({ name, text, i })))(
    'labels $name as written',
    async ({ text, i }) => {
      const node = (await rendered).nodes.find((n) => n.id.includes(`-t${i}-`));
      expect(node).toBeDefined();
      const shown = node!.text.replaceAll('\u2060', '');
      expect(readsAs(shown, labelText(`t_${i}`, text)), `shows ${JSON.stringify(shown)}`).toBe(
        true,
      );
      // Text only: no icon, link, image, line break or formatting made from the title.
      expect(node!.tags.filter((tag) => tag !== 'p')).toEqual([]);
    },
  );

  it('catches a label that does not read as written (the old encoding of `:`)', async () => {
    await launched;
    const old = await renderGraph(page, 'graph TD\n  t0["t_0: style x fill:#35;f00;"]');
    expect(old.nodes[0]!.text).not.toBe('t_0: style x fill:#f00;');
  });
});
