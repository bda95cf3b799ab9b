// The service worker: keeps the whole site (page, engine, nets) so that a
// reload works offline.  Network first, so a rebuilt site is seen at once
// when the server is there; the cache answers when it is not.  Installed
// only where browsers allow it (https, localhost).
const CACHE = 'gomoku-zero-site-v1';
const PAGE = ['./', 'index.html', 'style.css', 'app.js', 'engine.js', 'board.js', 'graph.js', 'rules.js',
  'records.js', 'protocol.js', 'state.js', 'play.js', 'analysis.js',
  'engine/engine-worker.js', 'engine/gz-engine.js', 'engine/gz-engine.wasm', 'nets/index.json'];

// The nets that nets/index.json lists (a list of names or of {file}, bare or
// under "nets"), as paths under nets/.
function netPaths(index) {
  const list = Array.isArray(index) ? index : (index && index.nets) || [];
  return list.map((n) => (typeof n === 'string' ? n : n.file)).filter(Boolean)
    .map((f) => (f.includes('/') ? f : 'nets/' + f));
}

async function precache() {
  const cache = await caches.open(CACHE);
  // One by one: a file missing from this site leaves the others cached.
  await Promise.all(PAGE.map((p) => cache.add(p).catch((e) => console.warn('not cached:', p, e.message))));
  try {
    const index = await (await fetch('nets/index.json')).json();
    await Promise.all(netPaths(index).map((p) => cache.add(p).catch((e) => console.warn('not cached:', p, e.message))));
  } catch (e) {
    console.warn('nets/index.json unreadable: the nets are cached when first loaded', e.message);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const k of await caches.keys()) if (k !== CACHE) await caches.delete(k);
    await self.clients.claim();
  })());
});

async function answer(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && request.method === 'GET') await cache.put(request, response.clone());
    return response;
  } catch (e) {
    const hit = (await cache.match(request)) || (await cache.match(request, { ignoreSearch: true }));
    if (hit) return hit;
    throw e;
  }
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(answer(event.request));
});
