// What the page shows, drawn from what the page knows (state.js) and called only by
// store.js after a change: which cards are visible, the lobby's choices for its game,
// and the game card: the seats with their clocks, the status line, the draw panel, the
// list of moves and the buttons under the board; also the menus of games, once. The
// board and its helper line are drawn by board_view.js, the end of a game by result.js,
// a player gone during the game by away.js, the chat by chat.js. It calls no action
// itself: buttons call those it is given.

import { app, ui, currentGame, markOf, markEl, myTurn, orientation, shownState } from './state.js';
import { renderBoard, showBoard } from './board_view.js';
import { renderResult, resultHeadline } from './result.js';
import { updateClocks, syncClockTicker } from './clocks.js';
import {
  GAMES, gameTitle, materialOf, materialWords, movesInPairs, moveInWords, pieceElement, sideIsMark, sidesOf,
} from './boards/index.js';
import { hasClock, timeControlLabel, timeControlDescription, formatDuration } from './time.js';
import { seatName, botLevel, roomLabel, aBot, botAccountTag } from './sides.js';
import { botStrength, strengthExplained } from './scoring_words.js';
import { renderAway, awayStatus, seatIsAway, syncAwayTicker } from './away.js';
import { roomLink } from './link.js';
import { el, button, capitalise } from './dom.js';
import { renderChat } from './chat.js';
import { afterRender } from './store.js';

/** The game whose choices the lobby shows, once drawn. */
let lobbyShown = null;

/** Lists the games of boards/index.js in the lobby's game choice, the room filter and the leaderboard's menu. */
export function listGames() {
  for (const game of Object.keys(GAMES)) {
    const title = gameTitle(game);
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'game';
    input.value = game;
    input.dataset.testid = `game-${game}`;
    const label = document.createElement('label');
    label.append(input, ` ${title}`);
    ui['game-pick'].append(label);
    ui['rooms-filter'].append(new Option(title, game));
    ui['now-game'].append(new Option(title, game));
    ui['leaderboard-game'].append(new Option(title, game));
  }
}

/**
 * Draws what changed: `parts` (a Set, from store.js) holds 'page' for the whole page,
 * else any of 'notices', 'rooms', 'bots', 'chat' and 'resign' for those lines, that card
 * or that button alone. `page` = { actions, replay, roomList, recent, bots }: the actions the
 * page's buttons call (see app.js), and the cards it shows.
 */
export function render(parts, page) {
  if (parts.has('page')) {
    renderPage(page);
    return;
  }
  if (parts.has('notices')) renderNotices();
  if (parts.has('rooms')) page.roomList.render();
  if (parts.has('bots')) page.bots.render();
  if (parts.has('chat')) renderChat(page.actions);
  if (parts.has('resign') && app.room) renderResign(app.room.state);
}

/** The error line, the notice line and the connection pill (notices.js). */
function renderNotices() {
  const { error, notice, connection } = app.notices;
  const box = ui.error;
  if (box.dataset.count !== String(error.count)) {
    box.querySelector('.text').textContent = error.text;
    box.dataset.code = error.code;
    box.dataset.count = String(error.count);
  }
  box.hidden = !error.shown;
  if (notice.kind !== null && (ui.notice.dataset.kind !== notice.kind || ui.notice.textContent !== notice.text)) {
    ui.notice.dataset.kind = notice.kind;
    ui.notice.textContent = notice.text;
  }
  ui.notice.hidden = !notice.text;
  ui.connection.dataset.state = connection.state;
  if (ui.connection.textContent !== connection.text) ui.connection.textContent = connection.text;
  ui.reconnect.hidden = connection.state !== 'reconnecting';
}

/** Draws the whole page again from what it knows. */
function renderPage({ actions, replay, roomList, recent, bots }) {
  const room = app.room;
  const signedIn = app.me !== null;
  renderNotices();
  ui.login.hidden = signedIn;
  renderFirstScreen();
  ui.me.textContent = app.me?.name ?? '';
  // A signed-in player's name is the site's: it is changed there, not here.
  ui['change-name'].hidden = app.me?.signedIn === true;
  const inRoom = room !== null;
  const finished = room?.state?.status === 'finished';
  ui.lobby.hidden = !signedIn || (inRoom && !finished && room.role === 'player');
  // A replay takes the game's place until it is closed.
  ui.game.hidden = !inRoom || replay.current !== null;
  ui.replay.hidden = replay.current === null;
  renderLobbyChoices(app.lobbyGame);
  renderLobbyHints();
  if (inRoom) renderGame(room, actions);
  renderChat(actions);
  syncClockTicker();
  syncAwayTicker();
  document.title = titleText();
  roomList.render();
  bots.render();
  recent.render();
  // A room entered or a rematch begun: once its board is drawn, bring it into view.
  if (room?.showBoard && room.state) {
    room.showBoard = false;
    showBoard();
  }
  // A game just over: its result (and Rematch) into view, if it is not already.
  if (room?.showResult && !ui.result.hidden) {
    room.showResult = false;
    afterRender(() => {
      const box = ui.result.getBoundingClientRect();
      return box.top < 0 || box.bottom > window.innerHeight
        ? () => ui.result.scrollIntoView({ block: 'nearest', behavior: 'instant' })
        : null;
    });
  }
}

/**
 * The first screen's main button: "Play a bot now", with its game and level; or, for
 * whoever opened a room's link, taking the seat it offers (or watching the game).
 */
function renderFirstScreen() {
  const link = app.linkedRoom !== null;
  ui['play-now'].hidden = link;
  ui['link-now'].hidden = !link;
  if (!link) return;
  const open = app.invitation?.open;
  const text = open === false ? 'Watch the game' : 'Take the seat';
  if (ui['follow-link'].textContent !== text) ui['follow-link'].textContent = text;
}

/** The lobby's choices for the game it starts: side names, start position (emptied for another game). */
function renderLobbyChoices(game) {
  if (lobbyShown === game) return;
  lobbyShown = game;
  for (const input of ui['game-pick'].querySelectorAll('input[name="game"]')) {
    input.checked = input.value === game;
  }
  ui['new-title'].textContent = `New ${gameTitle(game)} game`;
  ui['now-game'].value = game;
  const sides = sidesOf(game, null).names;
  for (const select of [ui['bot-side'], ui['person-side']]) {
    for (const option of select.options) {
      const seat = Number(option.value);
      option.textContent = `${sides[seat]} (${GAMES[game].order[seat]})`;
    }
  }
  const start = GAMES[game].startOption;
  ui['start-options'].hidden = !start;
  if (start) {
    ui['start-label'].textContent = start.label;
    ui['start-position'].placeholder = start.placeholder;
  }
  ui['start-position'].value = '';
}

/** "if nobody comes within 20 s, an Easy bot takes the other seat", from the server's settings; null without them. */
function botFillWords() {
  const settings = app.roomSettings;
  const after = settings?.bot_fill_after_ms;
  const level = settings?.bot_fill_level;
  if (!Number.isFinite(after) || typeof level !== 'string') return null;
  const when = after < 1000 ? 'at once' : `within ${formatDuration(after)}`;
  return `if nobody comes ${when}, ${aBot(level)} takes the other seat`;
}

/** What "Play a person" does, and when its room turns to a bot game (the server's settings). */
function renderLobbyHints() {
  const fill = botFillWords();
  const text = 'Sits you opposite whoever has waited longest for this game and clock, or opens a room for you to wait in'
    + (fill ? `: ${fill}.` : '.');
  if (ui['quick-join-hint'].textContent !== text) ui['quick-join-hint'].textContent = text;
}

function titleText() {
  if (myTurn()) return 'Your turn · Parlor';
  return 'Parlor';
}

function renderGame(room, actions) {
  const s = room.state;
  ui['game-name'].textContent = gameTitle(currentGame());
  ui['room-id'].textContent = roomLabel(room.id);
  ui['room-id'].title = `Room ${room.id}`;
  ui.spectators.textContent = s ? `${s.spectators ?? 0} watching` : '';
  const clock = s?.time_control;
  const tcPill = ui['room-time-control'];
  tcPill.hidden = !hasClock(clock);
  tcPill.textContent = hasClock(clock) ? `Clock ${timeControlLabel(clock)}` : '';
  tcPill.title = timeControlDescription(clock);
  const shown = shownState(s);
  renderSeats(s, shown, actions);
  renderInvite(s);
  renderBoard(shown, actions);
  renderBrowseBar(s);
  ui.board.dataset.gameId = s?.game_id ?? '';
  ui.board.dataset.browsing = room.browsing === null ? '' : String(room.browsing);
  ui.status.textContent = statusText(s);
  ui.status.dataset.turn = myTurn() ? 'mine' : 'theirs';
  renderAway(s, actions);
  renderDrawPanel(s, actions);
  renderResult(s, actions);
  renderMoves(s, actions);
  const playing = renderResign(s);
  // Offer draw: while playing; "Draw offered" once offered; hidden while the opponent's
  // offer waits for an answer (the panel above the board answers it).
  const offer = playing && typeof s.draw_offer === 'number' ? s.draw_offer : null;
  const offerButton = ui['offer-draw'];
  offerButton.hidden = !playing || (offer !== null && offer !== room.seat);
  offerButton.disabled = offer === room.seat;
  offerButton.textContent = offer === room.seat ? 'Draw offered' : 'Offer draw';
  ui.leave.textContent = room.role === 'spectator' ? 'Stop watching' : 'Leave room';
}

/**
 * Resign, for a player while the game is played: a first click arms it for a few
 * seconds (actions.js), which it says. Returns whether the game is being played.
 */
function renderResign(s) {
  const room = app.room;
  const playing = room.role === 'player' && s?.status === 'playing';
  const armed = playing && room.resignArmed !== null;
  const text = armed ? 'Click again to resign' : 'Resign';
  ui.resign.hidden = !playing;
  if (ui.resign.textContent !== text) ui.resign.textContent = text;
  ui.resign.classList.toggle('danger', armed);
  return playing;
}

/**
 * While this player waits for an opponent: the link to share, what the room waits for,
 * and once offered (messages.js) "Play a bot instead" with its level.
 */
function renderInvite(s) {
  const room = app.room;
  const show = room.role === 'player' && s?.status === 'waiting' && Boolean(s.seats?.some((x) => x.kind === 'open'));
  ui.invite.hidden = !show;
  if (!show) return;
  const link = roomLink(room.id);
  if (ui['room-link'].value !== link) ui['room-link'].value = link;
  let wait = '';
  if (room.botFill === false) {
    wait = 'This room waits for the person you send the link to, however long they take: no bot takes their seat.';
    if (room.botOffered) wait += ' Tired of waiting? You can play a bot instead.';
  } else if (room.botFill === true) {
    const fill = botFillWords();
    wait = fill ? `${capitalise(fill)}.` : 'If nobody comes after a while, a bot takes the other seat.';
  }
  if (ui['invite-wait'].textContent !== wait) ui['invite-wait'].textContent = wait;
  ui['invite-wait'].hidden = !wait;
  ui['bot-instead'].hidden = !room.botOffered;
}

/**
 * The seat drawn under the board, as players know it from Lichess: your own; for a
 * spectator, the side whose pieces start at the bottom of the board.
 */
function bottomSeatOf(s) {
  if (app.room?.role === 'player' && typeof app.room.seat === 'number') return app.room.seat;
  const { top } = orientation(currentGame(), s);
  return top === null ? 0 : 1 - top;
}

/** What a seat is ahead by on the board shown, as small pieces and "+points"; null if nothing. */
function materialEl(game, seat, lead) {
  if (!lead?.pieces.length) return null;
  const box = el('span', 'material');
  box.dataset.testid = `material-${seat}`;
  box.dataset.points = String(lead.points);
  box.dataset.pieces = lead.pieces.join('');
  box.setAttribute('role', 'img');
  box.setAttribute('aria-label', materialWords(game, lead));
  box.append(...lead.pieces.map((code) => pieceElement(game, code)).filter(Boolean));
  if (lead.points > 0) box.append(el('span', 'material-points', `+${lead.points}`));
  return box;
}

/** The seats, each with its clock and what it is ahead by on the board `shown`; a spectator may take an open one. */
function renderSeats(s, shown, { takeSeat }) {
  const slots = ui.seats.querySelectorAll('.seat-slot');
  for (const slot of slots) slot.replaceChildren();
  if (!s || !Array.isArray(s.seats)) return;
  const bottom = bottomSeatOf(s);
  const material = materialOf(currentGame(), shown?.board);
  for (const seat of s.seats) {
    const item = el('div', 'seat');
    const slot = ui.seats.querySelector(`.seat-slot[data-slot="${seat.seat === bottom ? 'bottom' : 'top'}"]`);
    item.dataset.testid = `seat-${seat.seat}`;
    if (s.status === 'playing' && s.to_move === seat.seat) item.classList.add('to-move');
    item.append(markEl(seat.seat));
    if (!sideIsMark(currentGame())) item.append(el('span', 'side-name', markOf(seat.seat)));
    const name = el('span', 'seat-name', seatName(seat));
    if (seat.kind === 'open') name.classList.add('open');
    item.append(name);
    const tag = botAccountTag(seat);
    if (tag) item.append(tag);
    if (typeof seat.rating === 'number') {
      const rating = el('span', 'rating', String(seat.rating));
      rating.dataset.testid = `rating-${seat.seat}`;
      rating.title = `Rating in ${gameTitle(currentGame())}`;
      rating.setAttribute('aria-label', `rating ${seat.rating}`);
      item.append(rating);
    }
    const mine = app.me && seat.player_id && seat.player_id === app.me.player_id;
    if (mine) item.append(el('span', 'tag you', 'you'));
    if (app.me && seat.stand_in_for?.player_id === app.me.player_id) {
      item.append(el('span', 'tag away', 'away: join your seat again to play on'));
    }
    if (botLevel(seat.kind)) {
      // The level is in the name already ("Hard bot"); its measured strength, where known, beside it.
      const strength = botStrength(currentGame(), botLevel(seat.kind));
      const tag = el('span', 'tag bot', strength ? `bot, ${strength}` : 'bot');
      if (strength) tag.title = strengthExplained(currentGame());
      item.append(tag);
    } else if (seat.kind !== 'open') {
      // Our own seat is only as connected as this page is.
      const online = seat.connected !== false && (!mine || app.ready);
      const gone = !online && !mine && seatIsAway(seat.seat);
      const tag = el('span', `tag ${online ? 'online' : 'away'}`, online ? 'connected' : gone ? 'left the game' : 'not connected');
      if (gone) tag.dataset.testid = `left-${seat.seat}`;
      item.append(tag);
    }
    if (seat.kind === 'open' && app.room.role === 'spectator' && s.status !== 'finished') {
      item.append(button('Take this seat', `seat-join-${seat.seat}`, () => takeSeat(seat.seat), 'small'));
    }
    const lead = materialEl(currentGame(), seat.seat, material?.[seat.seat]);
    if (lead) item.append(lead);
    if (s.clocks && Array.isArray(s.clocks.remaining_ms)) {
      const clock = el('span', 'clock');
      clock.dataset.testid = `clock-${seat.seat}`;
      clock.dataset.seat = String(seat.seat);
      clock.dataset.side = markOf(seat.seat);
      clock.setAttribute('role', 'timer');
      item.append(clock);
    }
    slot.append(item);
  }
  updateClocks();
}

function statusText(s) {
  if (!app.ready) {
    return app.conn.wanted
      ? 'Connection lost: reconnecting… Your seat is kept for you meanwhile.'
      : 'Disconnected: the board is paused until the connection is back.';
  }
  if (!s) return 'Loading the room…';
  const seats = Array.isArray(s.seats) ? s.seats : [];
  const seatAt = (n) => seats.find((x) => x.seat === n);
  const player = app.room.role === 'player';
  if (s.status === 'waiting') {
    return player ? 'Waiting for an opponent to take the other seat.' : 'Waiting for players.';
  }
  if (s.status === 'playing') {
    const gone = awayStatus(s);
    if (gone) return gone;
    if (typeof s.to_move !== 'number') return 'Playing.';
    const mover = `${seatName(seatAt(s.to_move))} (${markOf(s.to_move)})`;
    if (player && s.to_move === app.room.seat) {
      return app.room.pendingMove ? 'Sending your move…' : `Your turn: you play ${markOf(app.room.seat)}.`;
    }
    return player ? `Waiting for ${mover} to move…` : `${mover} to move.`;
  }
  if (s.status === 'finished') return `Game over. ${resultHeadline(s)}`;
  return String(s.status ?? '');
}

/** The line above the board about draw offers, with Accept / Decline when one is made to you. */
function renderDrawPanel(s, { roomRequest }) {
  const box = ui['draw-panel'];
  const room = app.room;
  const playing = s?.status === 'playing';
  const player = room.role === 'player' && typeof room.seat === 'number';
  const offer = playing && typeof s.draw_offer === 'number' ? s.draw_offer : null;
  const key = JSON.stringify([room.id, s?.game_id, offer, player ? room.seat : null, playing ? room.drawNote : '']);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  let state = '';
  if (offer !== null) {
    const who = `${seatName(s.seats?.find((x) => x.seat === offer))} (${markOf(offer)})`;
    if (player && offer === room.seat) {
      state = 'offered';
      const other = seatName(s.seats?.find((x) => x.seat === 1 - offer));
      parts.push(el('p', 'draw-text', `You offered a draw. Waiting for ${other} to answer.`));
    } else if (player) {
      state = 'offered-to-you';
      parts.push(el('p', 'draw-text', `${who} offers a draw.`));
      const row = el('div', 'helper-buttons');
      row.append(
        button('Accept draw', 'accept-draw', () => roomRequest('accept_draw'), 'small primary-btn'),
        button('Decline', 'decline-draw', () => roomRequest('decline_draw'), 'small'),
      );
      parts.push(row);
    } else {
      state = 'offered';
      parts.push(el('p', 'draw-text', `${who} offers a draw.`));
    }
  } else if (player && playing && room.drawNote) {
    state = 'answered';
    parts.push(el('p', 'draw-text', room.drawNote));
  }
  box.dataset.state = state;
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
}

/** While looking back at a move: which, and the way back to the live board. */
function renderBrowseBar(s) {
  const bar = ui['browse-bar'];
  const { browsing, moves } = app.room;
  bar.hidden = browsing === null;
  if (bar.hidden) return;
  const move = moves[browsing - 1] ?? '';
  const live = s?.status === 'playing' ? 'The game goes on meanwhile.' : '';
  bar.querySelector('.browse-text').textContent = `The board after move ${browsing} (${move}) of ${s.moves}. ${live}`.trim();
}

/** A move in the list: a button that shows the board after it (ply counts from 1), with `browseTo(ply)`. */
function moveButton(text, ply, browseTo) {
  const b = button(text, `move-${ply}`, () => browseTo(ply), 'move-link');
  b.dataset.ply = String(ply);
  b.title = `Show the board after move ${ply} (the arrow keys step through the moves)`;
  return b;
}

/**
 * What the move list holds: the room, game and layout it was drawn for, and its moves.
 * A move played appends one entry rather than rebuilding the list, whose layout a long
 * game would otherwise redo at every move (two bots watched can play many a second).
 */
let movesDrawn = { key: null, moves: [] };

function renderMoves(s, { browseTo }) {
  const list = ui.moves;
  const moves = app.room.moves;
  if (!s) {
    list.replaceChildren();
    movesDrawn = { key: null, moves: [] };
    return;
  }
  const game = currentGame();
  const cols = Number(s.board?.cols) || 3;
  // Who played move i: counted back from the last move, so a game that starts from a
  // set position with the second seat to move is still right.
  const lastSeat = typeof s.last_move?.seat === 'number' ? s.last_move.seat : null;
  const total = moves.length;
  const seatOf = (i) => (lastSeat === null ? i % 2 : (lastSeat + (total - 1 - i)) % 2);
  const paired = movesInPairs(game);
  const key = JSON.stringify([app.room.id, s.game_id ?? null, game, cols, paired, total ? seatOf(0) : null]);
  const kept = movesDrawn.key === key && movesDrawn.moves.length <= total
    && movesDrawn.moves.every((move, i) => move === moves[i]);
  if (!kept) list.replaceChildren();
  for (let i = kept ? movesDrawn.moves.length : 0; i < total; i += 1) {
    if (paired) {
      // As chess and draughts records number them: "1. e4 e5", the first side's move
      // first; "1. … e5" when a game from a set position starts with the second side.
      const entry = moveButton(moves[i], i + 1, browseTo);
      if (seatOf(i) === 0) list.append(listItem(entry));
      else if (list.lastElementChild) list.lastElementChild.append(' ', entry);
      else list.append(listItem('…', ' ', entry));
    } else {
      const text = `${markOf(seatOf(i))} ${moveInWords(game, moves[i], cols)}`;
      list.append(listItem(moveButton(text, i + 1, browseTo)));
    }
  }
  movesDrawn = { key, moves: moves.slice() };
  markCurrentMove(list);
  list.dataset.plies = String(total);
  list.hidden = total === 0;
  list.classList.toggle('paired', paired);
  keepCurrentMoveInSight(list);
}

/** An entry of the move list holding `parts`. */
function listItem(...parts) {
  const item = el('li');
  item.append(...parts);
  return item;
}

/** Marks the entry of the move the board shows: the latest, or the one browsed to. */
function markCurrentMove(list) {
  const { browsing, moves } = app.room;
  const ply = String(browsing ?? moves.length);
  for (const marked of list.querySelectorAll('[aria-current="step"]')) {
    if (marked.dataset.ply !== ply) marked.removeAttribute('aria-current');
  }
  list.querySelector(`[data-ply="${ply}"]`)?.setAttribute('aria-current', 'step');
}

/**
 * Scrolls the move list, and only it, so the move the board shows is in sight: the
 * latest one during play, the chosen one while browsing; down a column, or along the
 * strip a narrow screen shows.
 */
function keepCurrentMoveInSight(list) {
  const current = list.querySelector('[aria-current="step"]');
  if (list.hidden || !current) return;
  afterRender(() => {
    const box = list.getBoundingClientRect();
    const item = current.getBoundingClientRect();
    let down = 0;
    let along = 0;
    if (item.top < box.top) down = item.top - box.top;
    else if (item.bottom > box.bottom) down = item.bottom - box.bottom;
    if (item.left < box.left) along = item.left - box.left;
    else if (item.right > box.right) along = item.right - box.right;
    if (!down && !along) return null;
    return () => {
      list.scrollTop += down;
      list.scrollLeft += along;
    };
  });
}
