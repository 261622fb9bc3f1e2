// The course's service worker, served at /sw.js (course/views.py) so that its scope is the whole
// site. CONFIG comes from course/offline.py; its `version` is the content hash of the guides, so a
// new deployment's content is a new worker, whose install fetches the saved pages again.
/* global workbox */
"use strict";
const CONFIG = {{ config|safe }};
importScripts(...CONFIG.workbox); // Workbox, vendored in static/vendor/workbox (its own origin)

const { registerRoute, setCatchHandler } = workbox.routing;
const { CacheFirst, NetworkFirst, NetworkOnly } = workbox.strategies;
const { CacheableResponsePlugin } = workbox.cacheableResponse;
const { ExpirationPlugin } = workbox.expiration;
const { RangeRequestsPlugin } = workbox.rangeRequests;
const { precacheAndRoute, cleanupOutdatedCaches, matchPrecache } = workbox.precaching;

const PAGES = "course-pages-" + CONFIG.version; // the guides a learner opened or saved
const PAGES_PREFIX = "course-pages-";
const STATIC = "course-static"; // hashed names: a file never changes under its name
const NARRATION = "course-narration"; // only what the learner asked to store
const READING = new RegExp(CONFIG.reading_paths);

workbox.core.setCacheNameDetails({ prefix: "course" });
workbox.core.clientsClaim();

// The "needs a connection" page in each language, with what it shows.
precacheAndRoute([
  ...CONFIG.offline_pages.map((url) => ({ url: url, revision: CONFIG.version })),
  ...CONFIG.offline_static.map((url) => ({ url: url, revision: null })),
]);
cleanupOutdatedCaches();

// A page served from the store says so: site.js shows the quiet "offline" mark on it.
const markFromStore = {
  cachedResponseWillBeUsed: async ({ cachedResponse }) => {
    if (!cachedResponse) return cachedResponse;
    const html = (await cachedResponse.text()).replace("<body", "<body data-from-store");
    const headers = new Headers(cachedResponse.headers);
    headers.delete("Content-Length"); // the body is the decoded text, one attribute longer
    headers.delete("Content-Encoding");
    return new Response(html, { status: cachedResponse.status, headers: headers });
  },
};
const onlyWhole = new CacheableResponsePlugin({ statuses: [200] });
// A page saved ahead was fetched without the learner's cookies: it answers whatever they send.
const ANY_VARY = { ignoreVary: true };

// Guides, their list, the course and home pages: the network first, so a learner online always
// reads the current text; the copy kept is what they read offline.
registerRoute(
  ({ request, url }) => request.mode === "navigate" && READING.test(url.pathname),
  new NetworkFirst({ cacheName: PAGES, matchOptions: ANY_VARY, plugins: [onlyWhole, markFromStore] }),
);
// Everything else a page is navigated to (quizzes, labs, the dashboard...) needs the server.
registerRoute(({ request }) => request.mode === "navigate", new NetworkOnly());

registerRoute(
  ({ url }) => url.origin === self.location.origin && url.pathname.startsWith(CONFIG.static_prefix),
  new CacheFirst({
    cacheName: STATIC,
    matchOptions: ANY_VARY,
    plugins: [onlyWhole, new ExpirationPlugin({ maxEntries: 120, purgeOnQuotaError: true })],
  }),
);
// Narration plays from the store when it was saved (with byte ranges: players seek), else from
// the network, and is never kept unasked.
const neverStore = { cacheWillUpdate: async () => null };
registerRoute(
  ({ url }) => url.origin === self.location.origin && url.pathname.startsWith(CONFIG.media_prefix),
  new CacheFirst({ cacheName: NARRATION, matchOptions: ANY_VARY, plugins: [neverStore, new RangeRequestsPlugin()] }),
);

function languageOf(url) {
  const first = new URL(url).pathname.split("/")[1];
  return CONFIG.languages.includes(first) ? first : CONFIG.languages[0];
}

setCatchHandler(async ({ request }) => {
  if (request.mode !== "navigate") return Response.error();
  const page = CONFIG.offline_pages.find((url) => url.startsWith("/" + languageOf(request.url) + "/"));
  return (await matchPrecache(page)) || Response.error();
});

// ---- Saving ahead, and carrying saved pages over to a new deployment's content

const STATIC_REFERENCE = /(?:href|src)="([^"]+)"/g;
const CSS_URL = /url\(\s*["']?([^"')]+)["']?\s*\)/g;

function staticUrls(text, base, pattern) {
  const found = new Set();
  for (const match of text.matchAll(pattern)) {
    const url = new URL(match[1].replace(/&amp;/g, "&"), base);
    if (url.origin === self.location.origin && url.pathname.startsWith(CONFIG.static_prefix)) found.add(url.href);
  }
  return [...found];
}

async function sizeOf(response) {
  const length = Number(response.headers.get("Content-Length"));
  return length > 0 ? length : (await response.clone().blob()).size;
}

// A page as everyone sees it (no cookies: the copy is the one cached for every visitor, and
// storing it ahead does not count as reading it), fetched around any HTTP cache.
async function fetchWhole(url) {
  const response = await fetch(url, { credentials: "omit", cache: "no-cache" });
  if (!response.ok) throw new Error(url + ": HTTP " + response.status);
  return response;
}

// The static files the pages use (style sheets, scripts, fonts, the fonts named in style sheets).
async function storeStatic(pageTexts) {
  const cache = await caches.open(STATIC);
  let bytes = 0;
  const queue = [...new Set(pageTexts.flatMap(([text, base]) => staticUrls(text, base, STATIC_REFERENCE)))];
  const seen = new Set(queue);
  while (queue.length) {
    const url = queue.shift();
    let response = await cache.match(url, ANY_VARY);
    if (!response) {
      response = await fetchWhole(url);
      await cache.put(url, response.clone());
    }
    bytes += await sizeOf(response);
    if (new URL(url).pathname.endsWith(".css")) {
      for (const found of staticUrls(await response.clone().text(), url, CSS_URL)) {
        if (!seen.has(found)) { seen.add(found); queue.push(found); }
      }
    }
  }
  return bytes;
}

async function saveForOffline(pages, narration) {
  const cache = await caches.open(PAGES);
  let bytes = 0;
  const texts = [];
  for (const path of pages) {
    const url = new URL(path, self.location.origin).href;
    const response = await fetchWhole(url);
    texts.push([await response.clone().text(), url]);
    bytes += await sizeOf(response);
    await cache.put(url, response);
  }
  bytes += await storeStatic(texts);
  if (narration.length) {
    const audio = await caches.open(NARRATION);
    for (const path of narration) {
      const url = new URL(path, self.location.origin).href;
      let response = await audio.match(url, ANY_VARY);
      if (!response) {
        response = await fetchWhole(url);
        await audio.put(url, response.clone());
      }
      bytes += await sizeOf(response);
    }
  }
  return bytes;
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  const port = event.ports[0]; // none when a page asks to be kept, unanswered (static/js/site.js)
  if (data.type !== "save-for-offline") return;
  event.waitUntil(
    saveForOffline(data.pages || [], data.narration || []).then(
      (bytes) => port && port.postMessage({ ok: true, bytes: bytes }),
      (error) => port && port.postMessage({ ok: false, error: String(error) }),
    ),
  );
});

// A new content version: the pages the learner kept under the old one are fetched again into
// this version's cache before it takes over (a page that cannot be fetched keeps its old copy).
self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const fresh = await caches.open(PAGES);
    for (const name of await caches.keys()) {
      if (!name.startsWith(PAGES_PREFIX) || name === PAGES) continue;
      const old = await caches.open(name);
      for (const request of await old.keys()) {
        if (await fresh.match(request, ANY_VARY)) continue;
        try {
          await fresh.put(request.url, await fetchWhole(request.url));
        } catch (error) {
          await fresh.put(request.url, await old.match(request, ANY_VARY));
        }
      }
    }
  })());
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PAGES_PREFIX) && name !== PAGES) await caches.delete(name);
    }
  })());
});
