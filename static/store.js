// When the page is drawn: the one way what the page knows (state.js) reaches the screen.
// Actions and messages change the state and call update(); update() schedules a render
// for the end of the current task (a microtask), so that any number of updates in one
// event or message make one render, drawn before the next event or message is handled
// and before the browser paints. Nothing else calls the page's render.
//
// An update names the part of the page it changed: 'page' draws it all, the others only
// their card, as frequent changes there (the lobby feed, chat lines) must not rebuild the
// game card under the player's pointer or focus. Updates of several parts in one task
// make one render of all of them.
//
// What must read the page's layout once it is drawn (a glide's start and end, whether
// the current move is in sight, the chat's height) asks afterRender(): every such read
// of a render runs after all its changes, and their own changes after all the reads, so
// the browser lays the page out once per render rather than once per reader (two bots
// watched play many moves a second; three forced layouts of the whole page per move
// kept a loaded machine's page too busy to answer).

/** The page's render(parts), set once by app.js. */
let draw = null;
/** The parts to draw at the end of this task, or null when no render is scheduled. */
let due = null;
/** The layout reads the render under way asked for (see afterRender). */
let reads = [];
/** Whether a render is under way. */
let drawing = false;

/** Sets what draws the page: `render(parts)`, with `parts` a Set of the parts changed. */
export function onRender(render) {
  draw = render;
}

/**
 * Applies `change` (a function that changes the state; or null when the caller changed
 * it already) and schedules one render of `part`: 'page', or only 'notices' (the lines
 * outside the board), 'rooms' (the room list), 'bots' (the bots card), 'chat' or 'resign' (its button).
 */
export function update(change = null, part = 'page') {
  change?.();
  if (due === null) {
    due = new Set();
    queueMicrotask(flush);
  }
  due.add(part);
}

/**
 * Draws at once what update() scheduled, if anything. Only for code that must find the
 * page drawn before it goes on: to move the focus onto what the render shows, or to
 * show one change before the next (a premove's turn before the premove is sent).
 */
export function flush() {
  if (due === null) return;
  const parts = due;
  due = null;
  drawing = true;
  try {
    draw?.(parts);
  } finally {
    drawing = false;
  }
  const asked = reads;
  reads = [];
  const changes = asked.map((read) => read());
  for (const change of changes) if (typeof change === 'function') change();
}

/**
 * Runs `read` once the render under way has drawn the page: it reads the layout and may
 * return a function that changes the page, run once every read of the render is done.
 * Only for the page's render functions.
 */
export function afterRender(read) {
  if (drawing) {
    reads.push(read);
    return;
  }
  const change = read();
  if (typeof change === 'function') change();
}
