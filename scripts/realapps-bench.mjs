#!/usr/bin/env node
// Snapshot size on the real-app corpus (e2e/realapps), loupe beside its
// peers, through the shared peer bench's own adapters (the same MCP client,
// launch flags and tool calls as bench.mjs). For each server and page: open
// the page, take snapshots until the page's ready text shows (a bounded
// poll: widgets draw after the load event, and no tool says when), then
// record that snapshot's characters and refs.
//
//   node scripts/realapps-bench.mjs [--servers loupe,playwright-mcp] [--runs 3] [--dump DIR]
//
// BENCH_DIR is a copy of ../shared/bench with its node_modules (see
// scripts/peer-bench.sh); LOUPE_CMD the loupe binary.
import http from 'node:http';
import { readFile, writeFile, mkdtemp, mkdir } from 'node:fs/promises';
import { join, normalize, extname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../e2e/realapps/', import.meta.url));
const BENCH = process.env.BENCH_DIR || '/tmp/loupe-bench';
const { ADAPTERS } = await import(pathToFileURL(join(BENCH, 'lib/adapters.mjs')).href);

const arg = (n, d) => { const i = process.argv.indexOf(n); return i > 0 ? process.argv[i + 1] : d; };
const servers = arg('--servers', 'loupe,playwright-mcp').split(',');
const runs = +arg('--runs', '1');
const dump = arg('--dump', ''); // a folder for each snapshot's text

// The corpus pages and the text each shows once its widget is up.
// Every page the corpus's tasks open (e2e/realapps_*_test.go).
const PAGES = [
  ['ag-grid.html', 'grid ready'], ['codemirror.html', 'editor ready'], ['codemirror.html?long', 'editor ready: 400 lines'],
  ['element-plus.html', 'kit ready'], ['flatpickr.html', 'picker ready'], ['flatpickr-frame.html', 'widget connected'],
  ['leaflet.html', 'map ready'], ['material.html', 'kit ready'], ['quill.html', 'editor connected'],
  ['shoelace.html', 'kit ready'], ['sortable.html', 'lists ready'], ['swagger.html', 'explorer ready'],
  ['swagger-big.html', 'explorer ready'], ['swagger-big.html?huge', 'explorer ready'], ['tom-select.html', 'form ready'],
  ['ace.html', 'editor ready'], ['choices.html', 'form ready'], ['fluent.html', 'kit ready'], ['slim-select.html', 'form ready'],
];

// The API documents the swagger pages load (as the e2e server serves them).
const SPECS = { '/api/openapi.json': 'openapi.json', '/api/big.json': 'openapi-big.json', '/api/huge.json': 'openapi-huge.json' };
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2', '.ttf': 'font/ttf' };

async function serve(host, vars) {
  const srv = http.createServer(async (req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (SPECS[p]) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(await readFile(join(ROOT, 'pages', SPECS[p])));
    }
    if (p.startsWith('/api/')) { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{}'); }
    const file = normalize(join(ROOT, p));
    if (!file.startsWith(ROOT) || !(p.startsWith('/pages/') || p.startsWith('/node_modules/'))) { res.writeHead(404); return res.end(); }
    try {
      let body = await readFile(file);
      if (extname(file) === '.html') body = Buffer.from(body.toString('utf8').replace(/\{\{(A|B)\}\}/g, (_, k) => vars[k]));
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch { res.writeHead(404); res.end(); }
  });
  await new Promise((r) => srv.listen(0, host, r));
  return srv;
}

const vars = {};
const a = await serve('127.0.0.1', vars);
const b = await serve('127.0.0.2', vars);
vars.A = `http://127.0.0.1:${a.address().port}`;
vars.B = `http://127.0.0.2:${b.address().port}`;

const results = {};
for (const name of servers) {
  const ad = ADAPTERS.find((x) => x.name === name);
  if (!ad) throw new Error(`no adapter ${name}`);
  const why = ad.available();
  if (why) { console.error(`${name}: skipped (${why})`); continue; }
  results[name] = {};
  for (let run = 0; run < runs; run++) {
    const dir = await mkdtemp(join(tmpdir(), `rab-${name}-`));
    await mkdir(join(dir, 'run'), { recursive: true });
    const s = await ad.start({ env: { ...process.env }, cwd: dir, profileDir: join(dir, 'profile'), runDir: join(dir, 'run'), log: () => {} });
    try {
      for (const [page, ready] of PAGES) {
        await s.navigate(`${vars.A}/pages/${page}`);
        let text = '';
        // Poll by time, not by count: a fast snapshot would spend a count
        // before a slow page's widgets draw (no tool says when they have).
        const until = Date.now() + 15000;
        while (!text.includes(ready) && Date.now() < until) text = await s.snapshot();
        if (!text.includes(ready)) throw new Error(`${name}: ${page} never showed ${JSON.stringify(ready)}`);
        const refs = (text.match(ad.refRegex) || []).length;
        if (dump) { await mkdir(dump, { recursive: true }); await writeFile(join(dump, `${name}-${page}.txt`), text); }
        (results[name][page] ||= []).push({ chars: text.length, refs });
      }
    } finally {
      await s.close();
    }
  }
}
a.close(); b.close();

const med = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const names = Object.keys(results);
console.log(`| page | ${names.map((n) => `${n} chars (refs)`).join(' | ')} |${names.length > 1 ? ` ${names[0]} / ${names[1]} |` : ''}`);
console.log(`| --- | ${names.map(() => '--:').join(' | ')} |${names.length > 1 ? ' --: |' : ''}`);
const total = Object.fromEntries(names.map((n) => [n, 0]));
for (const [page] of PAGES) {
  const cells = names.map((n) => {
    const c = med(results[n][page].map((r) => r.chars));
    total[n] += c;
    return `${c.toLocaleString('en')} (${med(results[n][page].map((r) => r.refs))})`;
  });
  const ratio = names.length > 1 ? ` ${(med(results[names[0]][page].map((r) => r.chars)) / med(results[names[1]][page].map((r) => r.chars))).toFixed(2)}× |` : '';
  console.log(`| ${page} | ${cells.join(' | ')} |${ratio}`);
}
console.log(`| total | ${names.map((n) => total[n].toLocaleString('en')).join(' | ')} |${names.length > 1 ? ` ${(total[names[0]] / total[names[1]]).toFixed(2)}× |` : ''}`);
