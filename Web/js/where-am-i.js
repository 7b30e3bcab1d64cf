// Where the person is, for rooms on the map: one way to ask the browser and one rounding, shared
// by creating a room (rooms.js), moving one (room-place.js) and the map's Locate me (map.js).

/** How long the browser may take to find the position. */
export const LOCATION_WAIT_MS = 8000;

/**
 * Resolves to { latitude, longitude }, rounded, or to null; `why` (if given) hears which of
 * 'refused', 'unavailable' or 'timeout' it was. `maximumAge`: how old a position the browser may
 * give (0: asked afresh, for a person who has moved).
 */
export function whereAmI(why = () => {}, maximumAge = 600000) {
  return new Promise((resolve) => {
    if (!navigator.geolocation) { why('unavailable'); return resolve(null); }
    // Some browsers never answer when the person ignores the prompt: a timer of our own.
    const timer = setTimeout(() => { why('timeout'); resolve(null); }, LOCATION_WAIT_MS + 500);
    navigator.geolocation.getCurrentPosition(
      (p) => { clearTimeout(timer); resolve({ latitude: roundDegrees(p.coords.latitude), longitude: roundDegrees(p.coords.longitude) }); },
      (error) => { clearTimeout(timer); why(error?.code === 1 ? 'refused' : error?.code === 3 ? 'timeout' : 'unavailable'); resolve(null); },
      { timeout: LOCATION_WAIT_MS, maximumAge });
    return undefined;
  });
}

/** Four decimals of a degree (about 10 m): enough for a map, and no closer to someone's door. */
export function roundDegrees(degrees) {
  return Math.round(degrees * 1e4) / 1e4;
}
