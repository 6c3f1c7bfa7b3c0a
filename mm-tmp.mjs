import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu'], headless: true });
const p = await b.newPage();
await p.setContent('<html><body></body></html>');
await p.addScriptTag({ path: 'node_modules/mermaid/dist/mermaid.min.js' });
const labels = process.argv.slice(2);
const out = await p.evaluate(async (labels) => {
  mermaid.initialize({ startOnLoad: false });
  const code = 'graph TD\n' + labels.map((l, i) => `  t${i}["${l}"]`).join('\n');
  const { svg } = await mermaid.render('g1', code);
  const d = document.createElement('div'); d.innerHTML = svg;
  return [...d.querySelectorAll('g.node')].map(n => n.querySelector('.nodeLabel')?.textContent);
}, labels);
console.log(JSON.stringify(out, null, 1));
await b.close();
