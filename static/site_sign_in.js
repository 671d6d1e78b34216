// Signing in with the hosting site's token (PROTOCOL.md §5.4): where the site signs its
// users in, it hands this page a JSON Web Token in the address's fragment
// (`/#jwt=<token>`), read once and taken out of the address bar and history. The token
// is kept for this tab only (sessionStorage), never in the address, the log or another
// tab.

const KEY_JWT = 'parlor.jwt';

let current = readStored();

function readStored() {
  try {
    return sessionStorage.getItem(KEY_JWT);
  } catch {
    return null;
  }
}

function store(token) {
  current = token;
  try {
    if (token) sessionStorage.setItem(KEY_JWT, token);
    else sessionStorage.removeItem(KEY_JWT);
  } catch {
    // Storage refused (private mode): the token lives in memory for this page.
  }
}

/** The site's token this page signs in with, or null (a guest's page). */
export function siteToken() {
  return current;
}

/** Forgets the token (the server refused it): the page goes on as a guest's. */
export function forgetSiteToken() {
  store(null);
}

/**
 * Takes a token from the address's fragment, if the host put one there, and removes
 * it from the address so it is neither kept in history nor shared with a link.
 */
export function takeTokenFromAddress() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const token = fragment.get('jwt');
  if (!token) return;
  store(token);
  fragment.delete('jwt');
  const rest = fragment.toString();
  const url = `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`;
  window.history.replaceState(window.history.state, '', url);
}
