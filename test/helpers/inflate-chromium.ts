import chromium from '@sparticuz/chromium';

// Forked by npm-chromium.ts with TMPDIR set to where the binary is to go: executablePath()
// inflates Chromium into os.tmpdir() and answers its path.
process.stdout.write(await chromium.executablePath());
