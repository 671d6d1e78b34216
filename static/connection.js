// The page's connection: a ParlorClient (parlor-client.js, which owns the socket, hello,
// the heartbeat and reconnection) set up the way this page talks to the server, and what
// its connection events show in the header pill. actions.js says who signs in and what
// is sent; messages.js handles what arrives.

import { ParlorClient } from './parlor-client.js';

/**
 * The page's client. hooks = {
 *   status(state, text): 'connecting', 'reconnecting' or 'offline', for the page to show,
 *   closed(): the socket closed (a reconnect follows if still wanted),
 *   rejoin(room): whether to join or watch this room again after a reconnect,
 * }
 */
export function makeClient(hooks) {
  const client = new ParlorClient({
    // Moves come as small `moved` events rather than whole states (PROTOCOL.md §7.14).
    updates: 'moves',
    heartbeatWorker: new URL('./heartbeat_worker.js', import.meta.url),
    rejoin: hooks.rejoin,
  });
  let countdown = null;
  const show = (state, text) => {
    clearInterval(countdown);
    hooks.status(state, text);
  };
  client.on('connecting', () => show('connecting', 'connecting…'));
  client.on('open', () => show('connecting', 'signing in…'));
  client.on('offline', () => show('reconnecting', 'offline: reconnecting when the network is back…'));
  client.on('reconnecting', ({ delay }) => {
    const at = Date.now() + delay;
    const tick = () => {
      const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
      hooks.status('reconnecting', left > 0 ? `reconnecting… next try in ${left} s` : 'reconnecting…');
    };
    clearInterval(countdown);
    tick();
    countdown = setInterval(tick, 1000);
  });
  client.on('close', ({ reconnecting }) => {
    if (!reconnecting) show('offline');
    hooks.closed();
  });
  return client;
}
