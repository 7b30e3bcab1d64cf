// The map of rooms (#/map): rooms that have a location, on a map drawn by Leaflet (served by this
// server from Debian's libjs-leaflet) with tiles this server fetches and sends from its own origin
// (GET /api/map says where, and whose; `proteinar serve --tile-server`), and always a list of the
// same rooms sorted by distance. When the map cannot work (Leaflet missing, no tile server set, or
// its tiles do not load) the list is what remains, and the page says why.
import * as api from './api.js';
import { whereAmI } from './where-am-i.js';
import { loadLibrary } from './web-libraries.js';

const LEAFLET_JS = '/vendor/leaflet/leaflet.js';
const LEAFLET_CSS = '/vendor/leaflet/leaflet.css';
// Tiles that have not loaded by then are taken as not coming at all.
const TILE_WAIT_MS = 8000;
const EARTH_RADIUS_KM = 6371.0088;

/** @param {{$: Function, el: Function, say: Function}} app */
export function setupMap(app) {
  const { $, el, say } = app;
  let map = null;
  let markers = null;
  let mapFailed = null;    // why the map is not shown, once known
  let tileSource = null;   // GET /api/map: {tiles, attribution} or {why}
  let serial = 0;
  let shown = [];          // the rooms on show, for re-listing them from a new centre
  let youMarker = null;

  async function show() {
    const mine = ++serial;
    const list = $('map-list');
    list.setAttribute('aria-busy', 'true');
    let rooms = [];
    try {
      rooms = (await api.listRooms()).rooms.filter((r) => validLocation(r.location));
    } catch (error) {
      list.removeAttribute('aria-busy');
      list.replaceChildren(el('li', { class: 'empty-note' }, `The rooms could not be listed: ${error.message}`));
      return;
    }
    if (mine !== serial) return;
    shown = rooms;
    // The tiles come through this server (GET /api/map): without a tile server, no map is tried.
    tileSource ??= await api.mapTiles().catch(() => ({ why: 'The map could not be asked for (is this device offline?).' }));
    if (!mapFailed && !tileSource.tiles) mapFailed = tileSource.why ?? 'This server has no map tiles.';
    const L = mapFailed ? null : await loadLeaflet();
    if (mine !== serial) return;
    if (L && !mapFailed) showMap(L, rooms, tileSource);
    else fallBack(mapFailed ?? 'The map is not available on this server.');
    // Distances from where the person is; if they keep that to themselves, from the map's middle.
    listRooms(rooms, null, 'Finding where you are…');
    const here = await whereAmI();
    if (mine !== serial) return;
    if (here) listRooms(rooms, here, 'Nearest first, from where you are.');
    else {
      const centre = map && !mapFailed ? map.getCenter() : null;
      const origin = centre ? { latitude: centre.lat, longitude: centre.lng } : middleOf(rooms);
      listRooms(rooms, origin, centre ? 'Your location was not shared: distances are from the middle of the map.'
        : 'Your location was not shared: distances are from the middle of the rooms.');
    }
    list.removeAttribute('aria-busy');
  }

  function listRooms(rooms, origin, note) {
    const list = $('map-list');
    $('map-origin').textContent = rooms.length ? note : '';
    if (rooms.length === 0) {
      list.replaceChildren(el('li', { class: 'empty-note' }, 'No room has a location yet. When you create a room, tick “Use my location” to put it here.'));
      return;
    }
    const rows = rooms.map((room) => ({ room, km: origin ? distanceKm(origin, room.location) : null }));
    if (origin) rows.sort((a, b) => a.km - b.km);
    list.replaceChildren(...rows.map(({ room, km }) => el('li', { 'data-room': room.id, 'data-km': km === null ? null : km.toFixed(3) },
      el('a', { href: `#/rooms/${encodeURIComponent(room.id)}` }, room.name),
      el('span', { class: 'distance' }, km === null ? '' : ` · ${formatKm(km)}`),
      el('span', { class: 'meta' }, room.ownerName ? ` · by ${room.ownerName}` : ''))));
  }

  function showMap(L, rooms, source) {
    const box = $('map-canvas');
    box.hidden = false;
    $('map-section').dataset.map = 'leaflet';
    if (!map) {
      map = L.map(box, { worldCopyJump: true }).setView([20, 0], 2);
      const tiles = L.tileLayer(source.tiles, { maxZoom: 19, attribution: source.attribution ?? '' });
      let loaded = 0;
      tiles.on('tileload', () => { loaded += 1; });
      tiles.on('tileerror', () => { if (loaded === 0) fallBack('The map tiles could not be loaded (is this device offline?).'); });
      setTimeout(() => { if (loaded === 0 && !mapFailed) fallBack('The map tiles did not arrive in time (is this device offline?).'); }, TILE_WAIT_MS);
      tiles.addTo(map);
      markers = L.layerGroup().addTo(map);
    }
    markers.clearLayers();
    for (const room of rooms) {
      // The popup gets an element whose text is set as text: room names are other people's words.
      const link = document.createElement('a');
      link.href = `#/rooms/${encodeURIComponent(room.id)}`;
      link.textContent = room.name;
      L.circleMarker([room.location.latitude, room.location.longitude], { radius: 8, color: '#12355b', fillColor: '#1e6fd9', fillOpacity: 0.8 })
        .bindPopup(link).addTo(markers);
    }
    if (rooms.length) map.fitBounds(rooms.map((r) => [r.location.latitude, r.location.longitude]), { maxZoom: 13, padding: [30, 30] });
    setTimeout(() => map?.invalidateSize(), 0);  // the box was hidden while Leaflet measured it
  }

  function fallBack(reason) {
    mapFailed = reason;
    $('map-canvas').hidden = true;
    $('map-section').dataset.map = 'list';
    $('map-note').textContent = `${reason} The rooms are listed by distance instead.`;
  }

  // Leaflet is a classic script that sets window.L; it and its stylesheet come from this server.
  async function loadLeaflet() {
    const L = await loadLibrary(LEAFLET_JS, 'L', { css: LEAFLET_CSS });
    if (!L?.map) mapFailed = 'The map library (Leaflet) is not installed on this server.';
    return L?.map ? L : null;
  }

  // "Locate me": the map (or, without tiles, the list) centres on where the person is, asked afresh
  // so it works after moving; a refusal is said in words, with what to do about it.
  $('map-locate').addEventListener('click', async () => {
    const line = $('map-located');
    const button = $('map-locate');
    let reason = null;
    line.textContent = 'Finding where you are…';
    button.disabled = true;
    const here = await whereAmI((r) => { reason = r; }, 0);
    button.disabled = false;
    if (!here) {
      line.textContent = reason === 'refused'
        ? 'Location refused: allow this site to use your location in the browser’s settings, then try again.'
        : reason === 'timeout' ? 'Your location could not be found in time: try again, outdoors or near a window.'
          : 'This device cannot tell where you are.';
      line.classList.add('error');
      return;
    }
    line.classList.remove('error');
    const where = `${here.latitude.toFixed(3)}, ${here.longitude.toFixed(3)}`;
    $('map-section').dataset.centre = `${here.latitude.toFixed(4)},${here.longitude.toFixed(4)}`;
    if (map && !mapFailed && window.L) {
      map.setView([here.latitude, here.longitude], 13);
      youMarker?.remove();
      youMarker = window.L.circleMarker([here.latitude, here.longitude], { radius: 7, color: '#fff', weight: 3, fillColor: '#d62828', fillOpacity: 1 })
        .bindTooltip('You are here').addTo(map);
      line.textContent = `The map is centred on where you are (${where}).`;
    } else {
      line.textContent = `You are at ${where}: the rooms below are listed nearest first from there.`;
    }
    listRooms(shown, here, 'Nearest first, from where you are.');
  });

  return { show, leave: () => { serial++; } };
}

function validLocation(l) {
  return l && Number.isFinite(l.latitude) && Number.isFinite(l.longitude);
}

/** Great-circle distance (haversine) in kilometres. */
export function distanceKm(a, b) {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function formatKm(km) {
  if (km < 10) return `${km.toFixed(1)} km`;
  return `${Math.round(km).toLocaleString('en')} km`;
}

// The middle of the rooms (an average of unit vectors, so rooms either side of 180° do not average to 0°).
function middleOf(rooms) {
  if (rooms.length === 0) return null;
  const rad = Math.PI / 180;
  let x = 0, y = 0, z = 0;
  for (const { location: l } of rooms) {
    x += Math.cos(l.latitude * rad) * Math.cos(l.longitude * rad);
    y += Math.cos(l.latitude * rad) * Math.sin(l.longitude * rad);
    z += Math.sin(l.latitude * rad);
  }
  return { latitude: Math.atan2(z, Math.hypot(x, y)) / rad, longitude: Math.atan2(y, x) / rad };
}
