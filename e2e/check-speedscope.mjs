// check-speedscope.mjs opens files in speedscope's own web app, in Debian's
// chromium driven by playwright-core, and reports whether speedscope's
// importer accepted each one (OUTPUTS §4.4).
//
//   node check-speedscope.mjs MANIFEST.json
//
// MANIFEST.json is {"dist": DIR, "shots": DIR, "chromium": PATH,
// "files": [{"path": FILE, "title": TITLE}, ...]}: dist is speedscope's
// built app (node_modules/speedscope/dist/release), shots the folder for
// one PNG screenshot per file, and title the page title speedscope must
// show once the file is loaded ("<name> - speedscope").
//
// Each .json file is first validated against speedscope's JSON schema
// (dist/file-format-schema.json) with ajv, which catches what the importer
// lets through, such as a unit the viewer does not know (OUTPUTS §4.3).
//
// The script serves dist and the files on 127.0.0.1 (profileURL needs
// http), opens index.html#profileURL=<file URL> for each file, and fails
// the file on any console error or uncaught exception (speedscope logs
// importer errors as "Failed to load format"), any alert ("Unrecognized
// format!"), a "Something went wrong" screen, or a title that never
// appears. It prints one line per file, OK or FAIL with the reason, and
// exits 1 if any file failed.

import { createServer } from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import Ajv from 'ajv';

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.png': 'image/png', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.wasm': 'application/wasm', '.txt': 'text/plain',
};

// The flags that let chromium run here: no sandbox as root, and no
// background connections to Google's hosts on a closed network.
const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

const LOAD_TIMEOUT_MS = 120000; // a guard against a hang: a loaded machine can take over 30 s
const PAGES = 3; // pages open at once

// serve answers /files/N with the N-th file and everything else from dist.
function serve(dist, files) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let file;
    const m = url.pathname.match(/^\/files\/(\d+)\//);
    if (m && Number(m[1]) < files.length) {
      file = files[Number(m[1])].path;
    } else {
      file = path.join(dist, path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, ''));
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// schemaCheck returns a validator for speedscope files.
async function schemaCheck(dist) {
  const schema = JSON.parse(await readFile(path.join(dist, 'file-format-schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  return async (file) => {
    if (!file.endsWith('.json')) return null;
    if (validate(JSON.parse(await readFile(file, 'utf8')))) return null;
    return `schema: ${ajv.errorsText(validate.errors)}`;
  };
}

// check opens one file and returns null or the reason it failed.
async function check(browser, base, i, file, shots) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const problems = [];
  const logs = []; // every console message, to explain a failure
  page.on('console', (msg) => {
    const first = msg.text().split('\n')[0];
    if (msg.type() === 'error') {
      problems.push(`console error: ${first}`);
    } else if (first.startsWith('Failed to load format')) {
      problems.push(`importer: ${first}`); // logged with console.log
    } else {
      logs.push(`${msg.type()}: ${first}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('dialog', async (d) => {
    problems.push(`alert: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  // The file name in the URL is what speedscope shows for formats without
  // a name of their own, such as folded stacks.
  const fileURL = `${base}/files/${i}/${encodeURIComponent(path.basename(file.path))}`;
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(fileURL)}`);
  let title = '';
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  while (Date.now() < deadline && problems.length === 0) {
    title = await page.title();
    const text = await page.evaluate(() => document.body ? document.body.innerText : '');
    if (text.includes('Something went wrong')) problems.push('"Something went wrong" screen');
    if (title === file.title) break;
    await page.waitForTimeout(100);
  }
  if (problems.length === 0 && title !== file.title) {
    problems.push(`title is ${JSON.stringify(title)}, want ${JSON.stringify(file.title)}`);
  }
  await page.waitForTimeout(300); // let the flame chart draw
  await page.screenshot({ path: path.join(shots, `${i}-${path.basename(file.path)}.png`) });
  await page.close();
  if (problems.length === 0) return null;
  const explained = problems.some((p) => !p.startsWith('"Something'));
  return problems.join('; ') + (explained ? '' : ` (console: ${logs.join(' | ')})`);
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: node check-speedscope.mjs MANIFEST.json');
    process.exit(2);
  }
  const m = JSON.parse(await readFile(process.argv[2], 'utf8'));
  const validate = await schemaCheck(m.dist);
  const server = await serve(m.dist, m.files);
  const base = `http://127.0.0.1:${server.address().port}`;
  const profileDir = await mkdtemp(path.join(tmpdir(), 'atrace2-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: m.chromium, headless: true, args: FLAGS,
  });
  const lines = new Array(m.files.length);
  let failed = 0;
  let next = 0;
  // A few pages at once: most of the time goes into waiting for the app.
  async function worker() {
    while (next < m.files.length) {
      const i = next++;
      const file = m.files[i];
      let reason;
      try {
        reason = (await validate(file.path)) || (await check(context, base, i, file, m.shots));
      } catch (err) {
        reason = `error: ${err.message}`;
      }
      if (reason) failed++;
      lines[i] = reason ? `FAIL ${file.path}: ${reason}` : `OK ${file.path}: ${file.title}`;
    }
  }
  try {
    await Promise.all(Array.from({ length: PAGES }, worker));
  } finally {
    await context.close();
    server.close();
    await rm(profileDir, { recursive: true, force: true });
  }
  for (const line of lines) console.log(line);
  console.log(`check-speedscope: ${m.files.length - failed} of ${m.files.length} files loaded`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`check-speedscope: ${err.stack || err}`);
  process.exit(2);
});
