// Child process of bench/ingest.ts: GitHub as the label handler sees it (an installation token,
// no config file), in its own process so the load generator's busy event loop cannot slow it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tell, type ChildMessage } from './lib/child.js';

let requests = 0;
const server = createServer((req, res) => {
  requests++;
  req.resume();
  req.on('end', () => {
    const url = req.url ?? '';
    if (req.method === 'POST' && /\/app\/installations\/\d+\/access_tokens$/.test(url)) {
      res.writeHead(201, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          token: 'ghs_benchbenchbenchbenchbenchbenchbench',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          permissions: { issues: 'write', contents: 'write' },
          repository_selection: 'all',
        }),
      );
      return;
    }
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

process.on('message', (message: ChildMessage) => {
  if (message.type === 'stats') tell({ type: 'stats', requests });
  else if (message.type === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
tell({ type: 'ready', port: (server.address() as AddressInfo).port });
