import { RUN_COLORS, TASK_COLORS, type StateColor } from './colors.js';

function stateRules(prefix: string, colors: Readonly<Record<string, StateColor>>): string {
  return Object.entries(colors)
    .map(
      ([state, c]) =>
        `.${prefix}-${state}{background:${c.fill};border-color:${c.stroke};color:${c.text}}`,
    )
    .join('\n');
}

/** All of the dashboard's CSS, inline (the page loads nothing from the network). */
export const DASHBOARD_CSS = `
:root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#ffffff;--soft:#f6f8fa;--link:#0969da}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;align-items:center;gap:16px;padding:10px 20px;border-bottom:1px solid var(--line);background:var(--soft)}
header .brand{font-weight:600;color:var(--fg);text-decoration:none}
#live{margin-left:auto;font-size:12px;color:var(--muted)}
#live::before{content:"";display:inline-block;width:8px;height:8px;border-radius:50%;background:#afb8c1;margin-right:6px;vertical-align:middle}
body[data-live="on"] #live::before{background:#2da44e}
body[data-live="reconnecting"] #live::before{background:#bf8700}
main{padding:16px 20px 40px;max-width:1400px}
h1{font-size:20px;margin:4px 0 8px}
h2{font-size:16px;margin:24px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
a{color:var(--link);text-decoration:none}
a:hover{text-decoration:underline}
.muted,.faint{color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.wrap{max-width:420px;overflow-wrap:anywhere}
.badge{display:inline-block;padding:0 8px;border:1px solid;border-radius:2em;font-size:12px;line-height:20px;white-space:nowrap}
.facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:8px 0;color:var(--muted)}
.facts b{color:var(--fg);font-weight:600}
.counts .badge{margin-right:4px}
meter{width:110px;vertical-align:middle}
.error{white-space:pre-wrap;background:#ffebe9;border:1px solid #ff818266;padding:8px 12px;border-radius:6px;overflow-wrap:anywhere}
.graph-wrap{overflow:auto;border:1px solid var(--line);border-radius:6px;background:var(--soft);padding:8px}
#graph text{font-size:12px}
#graph .node-id{font-weight:600}
#graph .node-state{font-size:11px}
#graph a text{text-decoration:underline}
#graph .edge{fill:none;stroke:#8c959f;stroke-width:1.5}
#graph .edge-done{stroke:#1a7f37}
#graph .arrow-head{fill:#8c959f}
.legend{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.yes{color:#1a7f37}.no{color:#cf222e}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
${stateRules('s', TASK_COLORS)}
${stateRules('r', RUN_COLORS)}
`;
