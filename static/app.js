// Parlor web client: plain ES modules, no dependencies, no build step. This module
// starts the page: it finds the page's elements, makes the cards and the connection,
// and wires every button, key and drag to what it does. The other modules each own
// one thing:
//   state.js        what the page knows (the `app` object, the elements, storage)
//   store.js        when it is drawn: update() after each change, one render a task
//   messages.js     what each message from the server does to it
//   actions.js      what the page sends and what its buttons do
//   render.js       what is shown: the cards, the seats, status, draw panel, moves
//   board_view.js   the live board and the helper line under it
//   board_input.js  clicks, keys and drags on the live board
//   result.js       how a game ended, in words, and the result panel
//   away.js         a player gone during a game: the countdown and the claim buttons
//   chat.js         the room's chat
//   clocks.js       the seats' clocks, counted down between states
//   notices.js      the error line, the notice line and the connection pill
//   connection.js   the page's ParlorClient (parlor-client.js: the socket, hello, the
//                   heartbeat, reconnection and rejoining with `since`) and its pill
//   boards/         all the page knows of each game: board, pieces, notation, endings
//                   (boards/index.js lists the games and says how to add one)
//   moves.js        how clicks on cells become moves; drag.js turns drags into clicks
//   bots.js         the bots online and the form that challenges one; challenges.js
//                   sends challenges and follows their answers
//   lobby.js keeps the live room list and rooms.js draws it; sides.js names seats and
//   sides; link.js makes and follows room links; leaderboard.js, recent.js and
//   replay.js are their cards; rules.js is the rules dialog; time.js formats clocks;
//   dom.js creates elements.
// Data flows one way: a click, a key or a message calls an action or a handler, which
// changes the state and calls update(); the store then has render.js draw the page from
// the state. Views import no actions: the buttons they draw call the actions this module
// hands them (as it hands the cards their hooks), so no two modules import each other.
//
// The page renders only what the server sends: the board from `board.cells` and
// `board.labels`, the clickable cells from the paths of `legal_moves`, whose turn from
// `to_move`. It knows no rules. Every piece of data from the server or the user is
// written with textContent, never as HTML, so names like `<img src=x onerror=...>` are
// shown literally. This page keeps the boards it is shown, so that replays can draw
// them (it cannot work out a position from the moves: that would need the rules).

import { app, ui, bindUi, local, roomPlace, currentGame, KEY_NAME, KEY_TOKEN, KEY_GAME, KEY_CLOCK, KEY_FILTER, KEY_BOT_LEVEL } from './state.js';
import { onRender, update, flush } from './store.js';
import { siteToken, takeTokenFromAddress } from './site_sign_in.js';
import { dispatch } from './messages.js';
import {
  connect, subscribeLobby, rejoinRoom, createRoom, quickJoin, joinRoom, watchRoom, onCopyLink,
  onConnect, onChangeName, onTimeControlChange, roomRequest, onResign, onLeave, setLobbyGame,
  announceLink, playBot, playBotNow, onFollowLinkNow, onShareLink, sendMove, cancelPick, cancelPremove, takeSeat,
  onRematch, say, mutePlayer, unmutePlayer, fillWithBot, claim,
} from './actions.js';
import { render, listGames } from './render.js';
import { storedEndSentence } from './result.js';
import {
  onBoardClick, canDrag, onDragStart, onDrop, onBoardKey, onEscape, onDocumentClick, onBoardContextMenu,
} from './board_input.js';
import { hideError, setConnection, showNotice } from './notices.js';
import { DEFAULT_GAME, GAMES, gridOf } from './boards/index.js';
import { RoomListView } from './rooms.js';
import { roomFromAddress, gameFromAddress, forgetGameInAddress, copyGameLink } from './link.js';
import { RulesDialog } from './rules.js';
import { enableDrag } from './drag.js';
import { makeClient } from './connection.js';
import { ReplayView } from './replay.js';
import { Leaderboard } from './leaderboard.js';
import { RecentGames } from './recent.js';
import { initTheme } from './theme.js';
import { initBoardSize } from './board_size.js';
import { initSound } from './sound.js';
import { onMovesKey, onPageKey, stopBrowsing, browseTo } from './browse.js';
import { setUpChat } from './chat.js';
import { loadPieces } from './pieces.js';
import { BOT_LEVELS, levelTitle, strengthExplained } from './scoring_words.js';
import { BotsCard } from './bots.js';
import { challengeBot, takeBackChallenge } from './challenges.js';

/** The replay card, and what it needs from the page. */
function makeReplay() {
  const view = new ReplayView(ui, {
    seen: (id) => app.seen.get(id),
    myId: () => app.me?.player_id ?? null,
    gridOf,
    changed: () => {
      // A replay opened at a game's own address (/game/<id>) leaves it once closed.
      if (!view.current) forgetGameInAddress();
      update();
    },
    copyLink: copyGameNotice,
    endSentence: storedEndSentence,
    /** Puts the focus on `node` of the card: drawn at once, as the card is hidden until then. */
    focus(node) {
      flush();
      node.focus();
    },
    /**
     * Puts the focus back on the button that opened the replay of `id`: drawn at once,
     * as the game card and that button are hidden or disabled until then.
     */
    focusBack(id) {
      flush();
      const back = ui.result.querySelector('[data-testid="replay-open"]') ??
        [...ui['recent-games'].querySelectorAll('button')].find((b) => b.dataset.gameId === id);
      back?.focus();
    },
  });
  return view;
}

/** The "Bots online" card, its nodes and what its buttons do. */
function makeBotsCard() {
  const node = (id) => document.querySelector(`[data-testid="${id}"]`);
  return new BotsCard({
    card: node('bots'),
    list: node('bot-list'),
    empty: node('bots-empty'),
    form: node('challenge-form'),
    title: node('challenge-title'),
    game: node('challenge-game'),
    clock: node('challenge-clock'),
    side: node('challenge-side'),
    rated: node('challenge-rated'),
    close: node('challenge-close'),
    pending: node('challenge-pending'),
    pendingText: node('challenge-pending-text'),
    cancel: node('challenge-cancel'),
  }, {
    ready: () => app.ready,
    reconnecting: () => app.me !== null && !app.ready,
    challenge: () => app.challenge,
    send: challengeBot,
    cancel: takeBackChallenge,
    changed: () => update(null, 'bots'),
  });
}

/** Copies a stored game's permanent address (/game/<id>), saying so in the notice line. */
function copyGameNotice(gameId) {
  return copyGameLink(gameId, (text) => showNotice(text, 'share'));
}

function init() {
  bindUi();
  initTheme(ui.theme);
  initBoardSize(ui.game, ui.board, ui['board-resize']);
  initSound(ui.sound);
  ui['browse-live'].addEventListener('click', stopBrowsing);
  ui.moves.addEventListener('keydown', (event) => onMovesKey(event, ui.moves));
  document.addEventListener('keydown', (event) => onPageKey(event, ui.moves));
  setUpChat({ say });
  loadPieces();
  listGames();
  const rules = new RulesDialog();
  rules.addChooserButtons(ui['game-pick']);
  const roomRules = document.querySelector('[data-testid="room-rules"]');
  roomRules.addEventListener('click', () => rules.open(currentGame(), roomRules));
  const replay = makeReplay();
  const recent = new RecentGames({ list: ui['recent-games'], empty: ui['recent-empty'] }, {
    me: () => app.me,
    replaying: () => replay.current?.id ?? null,
    replay: (gameId) => replay.open(gameId),
  });
  const roomList = new RoomListView(app.rooms,
    { list: ui['room-list'], empty: ui['rooms-empty'], filter: ui['rooms-filter'], template: ui.roomTemplate }, {
      ready: () => app.ready,
      me: () => app.me,
      current: () => roomPlace(app.room),
      join: joinRoom,
      watch: watchRoom,
    });
  const bots = makeBotsCard();
  const leaderboard = new Leaderboard(
    {
      list: ui.leaderboard, note: ui['leaderboard-note'], game: ui['leaderboard-game'], by: ui['leaderboard-by'],
      opponent: document.querySelector('[data-testid="leaderboard-opponent"]'),
    },
    () => app.me?.player_id ?? null,
  );
  /** What the buttons the views draw do. */
  const actions = {
    sendMove, cancelPick, cancelPremove, roomRequest, takeSeat, browseTo, rematch: onRematch,
    openReplay: (gameId) => replay.open(gameId), copyGameLink: copyGameNotice, say, mutePlayer, unmutePlayer,
    claim,
  };
  onRender((parts) => render(parts, { actions, replay, roomList, recent, bots }));
  const cards = { replay, leaderboard, recent };
  app.conn = makeClient({
    status: setConnection,
    closed: () => update(() => {
      app.ready = false;
      app.rooms.clear();
      // The server takes back a closed connection's unanswered challenge.
      app.challenge = null;
    }),
    rejoin: rejoinRoom,
  });
  app.conn.on('message', (msg, request) => dispatch(msg, cards, request));
  const savedName = local.get(KEY_NAME);
  if (savedName) ui['name-input'].value = savedName;
  ui['login-form'].addEventListener('submit', onConnect);
  ui['change-name'].addEventListener('click', onChangeName);
  ui.reconnect.addEventListener('click', () => {
    app.ready = false;
    app.conn.reconnectNow();
  });
  ui.error.querySelector('.dismiss').addEventListener('click', hideError);
  ui['quick-join'].addEventListener('click', quickJoin);
  ui['open-room'].addEventListener('click', () => {
    // A room of one's own waits for the friend its link is sent to: no bot fills it.
    createRoom(ui['person-side'].value === '1' ? ['open', 'me'] : ['me', 'open'], { privateRoom: ui['private-room'].checked, botFill: false });
  });
  ui['bot-vs-bot'].addEventListener('click', () => {
    createRoom([`bot:${ui['bot-level'].value}`, `bot:${ui['bot2-level'].value}`], { watch: true });
  });
  ui['copy-link'].addEventListener('click', onCopyLink);
  ui['fill-with-bot'].addEventListener('click', fillWithBot);
  ui['share-link'].addEventListener('click', onShareLink);
  const savedFilter = local.get(KEY_FILTER);
  if (savedFilter && [...ui['rooms-filter'].options].some((o) => o.value === savedFilter)) ui['rooms-filter'].value = savedFilter;
  app.linkedRoom = roomFromAddress();
  announceLink();
  const savedGame = local.get(KEY_GAME);
  setLobbyGame(GAMES[savedGame] ? savedGame : DEFAULT_GAME);
  /** A game chosen, on the first screen or in the lobby: kept, and shown in both. */
  const chooseGame = (game) => {
    if (!GAMES[game]) return;
    local.set(KEY_GAME, game);
    setLobbyGame(game);
    leaderboard.show(game);
    titleLevels(game);
  };
  ui['game-pick'].addEventListener('change', (event) => {
    if (event.target.name === 'game') chooseGame(event.target.value);
  });
  ui['now-game'].addEventListener('change', () => chooseGame(ui['now-game'].value));
  // The bot's level, likewise: one choice for the first screen, the lobby and "Play a bot instead", kept.
  for (const select of document.querySelectorAll('select[data-levels]')) {
    select.append(...BOT_LEVELS.map(([value, title]) => new Option(title, value)));
    select.value = select.dataset.levels;
  }
  titleLevels(app.lobbyGame);
  const savedLevel = local.get(KEY_BOT_LEVEL);
  const levels = [ui['now-level'], ui['bot-level'], ui['fill-level']];
  for (const select of levels) {
    if (savedLevel && [...select.options].some((o) => o.value === savedLevel)) select.value = savedLevel;
    select.addEventListener('change', () => {
      local.set(KEY_BOT_LEVEL, select.value);
      for (const other of levels) other.value = select.value;
    });
  }
  const savedClock = local.get(KEY_CLOCK);
  if (savedClock && [...ui['time-control'].options].some((o) => o.value === savedClock)) ui['time-control'].value = savedClock;
  ui['time-control'].addEventListener('change', onTimeControlChange);
  ui['time-control-custom'].hidden = ui['time-control'].value !== 'custom';
  ui['offer-draw'].addEventListener('click', () => roomRequest('offer_draw'));
  ui['play-bot'].addEventListener('click', playBot);
  ui['play-bot-now'].addEventListener('click', playBotNow);
  ui['follow-link'].addEventListener('click', onFollowLinkNow);
  ui['rooms-filter'].addEventListener('change', () => {
    local.set(KEY_FILTER, ui['rooms-filter'].value);
    update(() => app.rooms.clear(), 'rooms');
    subscribeLobby();
    roomList.preview();
  });
  ui.board.addEventListener('click', onBoardClick);
  enableDrag(ui.board, { canDrag, start: onDragStart, drop: onDrop });
  ui.board.addEventListener('keydown', onBoardKey);
  ui.board.addEventListener('contextmenu', onBoardContextMenu);
  document.addEventListener('keydown', onEscape);
  ui.board.addEventListener('focusin', (event) => {
    const cell = event.target.closest?.('[data-label]');
    if (cell) app.boardHadFocus = cell.dataset.label;
  });
  document.addEventListener('click', onDocumentClick);
  // Whether the player uses the keyboard, to know when moving the focus helps.
  document.addEventListener('keydown', () => { app.keyboard = true; }, true);
  document.addEventListener('pointerdown', () => { app.keyboard = false; }, true);
  ui.resign.addEventListener('click', onResign);
  ui.leave.addEventListener('click', onLeave);
  leaderboard.show(app.lobbyGame);
  update();
  // Opened at a stored game's own address: show its replay, scrolled to the top of the
  // page's view (the sign-in card stays above it for whoever wants to play).
  const storedGame = gameFromAddress();
  if (storedGame) {
    replay.open(storedGame).then(() => {
      flush();
      ui.replay.scrollIntoView({ block: 'start', behavior: 'instant' });
    });
  }
  roomList.startPreview();
  bots.start();
  // A site's token signs in at once; a stored name and token mean this browser has
  // played before: resume that player.
  takeTokenFromAddress();
  if (siteToken() || (savedName && local.get(KEY_TOKEN))) connect();
}

init();

/** Titles every level picker's levels for `game`, with their measured strength where there is one. */
function titleLevels(game) {
  const titles = new Map(BOT_LEVELS);
  for (const select of document.querySelectorAll('select[data-levels]')) {
    for (const option of select.options) option.text = levelTitle(game, option.value, titles.get(option.value));
    select.title = strengthExplained(game) ?? '';
  }
}
