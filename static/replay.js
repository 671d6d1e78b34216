// The replay card: any stored game, step by step.
//
// A stored game (`GET /api/games/{id}`) has its moves, as sent and as players write
// them, with the time each took and the clocks after it, and every position with its
// board, worked out by the server; the page knows no rules. Finished games of a game
// with a record format (PGN for chess, PDN for checkers: see boards/) link to their
// record, which other programs can step through.

import { el, button, capitalise } from './dom.js';
import { gameTitle, sidesOf, topSeatOf, buildGrid, paintGrid, movePath, recordOf } from './boards/index.js';
import { hasClock, timeControlLabel, formatClock, formatDuration, thinkText } from './time.js';
import { seatName } from './sides.js';

/**
 * Ply `ply` of a stored game in the shape of a `state`, for the board helpers that read
 * states (which side a seat plays, which way up the board goes).
 */
function storedState(data, ply) {
  const move = ply > 0 ? data.moves?.[ply - 1] : null;
  return {
    game: data.game,
    board: data.positions?.[ply]?.board ?? null,
    last_move: move ? { seat: move.seat, move: move.notation } : null,
  };
}

/** The sides of a stored game's seats, once the moves show them (Fox & Geese). */
function storedSides(data, entry) {
  if (entry?.sides) return entry.sides;
  const sides = sidesOf(data.game, storedState(data, Math.min(1, data.moves?.length ?? 0)));
  return sides.known ? sides.names : null;
}

/** The move as players write it (SAN in chess), from servers that send it. */
function written(move) {
  return String(move?.display ?? move?.notation ?? '');
}

/**
 * Names a seat of a stored game: "Ann (White)", with the side when it is known, or
 * short: the side alone ("White"), else the name.
 */
function storedSeatLabel(data, entry, { short = false } = {}) {
  const sides = storedSides(data, entry);
  return (seat) => {
    const stored = data.seats?.find((x) => x.seat === seat);
    const name = stored ? seatName(stored) : `seat ${seat}`;
    const side = sides?.[seat];
    if (short) return side ?? name;
    return side ? `${name} (${side})` : name;
  };
}

/** The replay card: opens a stored game and steps through it. */
export class ReplayView {
  /**
   * ui: the page's elements by test id (replay, replay-title, replay-board, ...).
   * page = {
   *   seen(id): the boards the page saw of that game ({ boards, flipped, sides }), if any,
   *   myId(): this player's id,
   *   gridOf(state): the state's board if it is a drawable grid,
   *   endSentence(data, label, mySeat): the result of a finished stored game, in words,
   *   changed(): the card opened or closed (the page shows or hides the live game),
   *   focus(node): put the focus on `node` of the card, which shows once the page is drawn,
   *   focusBack(id): put the focus back where the replay of `id` was opened,
   *   copyLink(id): copy the game's permanent address (/game/<id>),
   * }
   */
  constructor(ui, page) {
    this.ui = ui;
    this.page = page;
    /** { id, data, error, ply, loading } while the card is open, else null. */
    this.current = null;
    ui['replay-close'].addEventListener('click', () => this.close());
    ui['replay-first'].addEventListener('click', () => this.step(0));
    ui['replay-back'].addEventListener('click', () => this.step((this.current?.ply ?? 0) - 1));
    ui['replay-forward'].addEventListener('click', () => this.step((this.current?.ply ?? 0) + 1));
    ui['replay-last'].addEventListener('click', () => this.step(this.current?.data?.moves.length ?? 0));
    document.addEventListener('keydown', (event) => this.onKey(event));
    this.gameLink = ui.replay.querySelector('[data-testid="replay-game-link"]');
    this.gameLink.addEventListener('click', () => { if (this.current) page.copyLink(this.current.id); });
  }

  /** Opens the card on a stored game, at its last move. */
  async open(gameId) {
    if (typeof gameId !== 'string' || !gameId) return;
    this.current = { id: gameId, data: null, error: '', ply: 0, loading: true };
    this.page.changed();
    this.draw();
    this.page.focus(this.ui.replay);
    let data = null;
    let problem = '';
    let unknown = false;
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(gameId)}`, { headers: { accept: 'application/json' } });
      const body = await res.json().catch(() => null);
      unknown = res.status === 404;
      if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
      if (!body || !Array.isArray(body.moves)) throw new Error('the answer has no moves');
      data = body;
    } catch (err) {
      problem = err.message;
    }
    const r = this.current;
    if (r?.id !== gameId) return; // closed, or another replay opened meanwhile
    r.loading = false;
    r.data = data;
    r.error = data ? '' : unknown
      ? `There is no game "${gameId}" on this server: check the link (a game's link is /game/ and its id).`
      : `The game could not be loaded: ${problem}.`;
    r.ply = data ? data.moves.length : 0;
    this.draw();
  }

  /** Closes the card, if open. */
  close({ focus = true } = {}) {
    if (!this.current) return;
    const { id } = this.current;
    this.current = null;
    this.page.changed();
    if (focus) this.page.focusBack(id);
  }

  step(to) {
    const r = this.current;
    if (!r?.data) return;
    const ply = Math.max(0, Math.min(r.data.moves.length, to));
    if (ply === r.ply) return;
    r.ply = ply;
    this.draw();
  }

  /** Arrow keys, Home and End step through the game, unless typing or on the live board. */
  onKey(event) {
    const r = this.current;
    if (!r?.data || this.ui.replay.hidden || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest('input, select, textarea, [contenteditable="true"], [data-testid="board"], dialog')) return;
    const to = { ArrowLeft: r.ply - 1, ArrowRight: r.ply + 1, Home: 0, End: r.data.moves.length }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    this.step(to);
  }

  draw() {
    const { ui } = this;
    const r = this.current;
    if (!r) return;
    const data = r.data;
    const boardEl = ui['replay-board'];
    const missing = ui['replay-missing'];
    const table = ui['replay-moves'];
    ui.replay.dataset.gameId = r.id;
    ui.replay.dataset.ply = String(r.ply);
    ui.replay.dataset.loaded = data ? 'true' : 'false';
    this.gameLink.hidden = !data;
    if (!data) {
      ui['replay-title'].textContent = '';
      ui['replay-info'].textContent = r.loading ? 'Loading the game…' : r.error;
      ui['replay-step'].textContent = '';
      boardEl.hidden = true;
      missing.hidden = true;
      for (const id of ['replay-first', 'replay-back', 'replay-forward', 'replay-last']) ui[id].disabled = true;
      table.tBodies[0].replaceChildren();
      table.tHead.replaceChildren();
      table.dataset.key = '';
      for (const link of this.recordLinks()) link.hidden = true;
      return;
    }
    const game = String(data.game ?? '');
    const record = recordOf(game);
    const finished = data.status === 'finished';
    const moves = data.moves;
    const total = moves.length;
    const entry = this.page.seen(r.id);
    const label = storedSeatLabel(data, entry);
    const me = this.page.myId();
    const mySeat = me ? data.seats?.find((x) => x.player_id && x.player_id === me)?.seat ?? null : null;

    ui['replay-title'].textContent = `· ${gameTitle(game)}`;
    const info = [`${label(0)} vs ${label(1)}.`];
    if (data.status === 'finished' && data.reason) {
      info.push(this.page.endSentence(data, label, mySeat));
    } else {
      info.push(data.status === 'interrupted' ? 'Interrupted: the server stopped before the game ended.' : 'Still being played.');
    }
    const facts = [`${total} ${total === 1 ? 'move' : 'moves'}`];
    const clock = data.options?.time_control;
    if (hasClock(clock)) facts.push(`clock ${timeControlLabel(clock)}`);
    if (typeof data.duration_ms === 'number') facts.push(formatDuration(data.duration_ms));
    if (data.options?.start) facts.push('from a set position');
    info.push(capitalise(facts.join(', ')) + '.');
    ui['replay-info'].textContent = info.join(' ');

    // The board from the server's positions, else as the page saw it while following.
    const grid = this.page.gridOf({ board: data.positions?.[r.ply]?.board ?? entry?.boards?.[r.ply] });
    if (grid) {
      boardEl.hidden = false;
      missing.hidden = true;
      const cells = buildGrid(boardEl, game, grid, this.flipped(data, entry, mySeat));
      // The live board owns the `cell-<label>` test ids.
      for (const cell of cells) {
        if (cell && !cell.dataset.testid.startsWith('replay-')) cell.dataset.testid = `replay-${cell.dataset.testid}`;
      }
      const moveBefore = r.ply > 0 ? moves[r.ply - 1] : null;
      paintGrid(cells, {
        game,
        board: grid,
        last: new Set(moveBefore ? movePath(game, String(moveBefore.notation)).path : []),
        selected: [],
        targets: new Set(),
        starts: new Set(),
        interactive: false,
        selecting: false,
      });
      boardEl.setAttribute('aria-label', r.ply ? `Position after move ${r.ply}` : 'Starting position');
    } else {
      boardEl.hidden = true;
      missing.hidden = false;
      const where = r.ply ? `after move ${r.ply}` : 'at the start';
      const text = [`The server could not replay this game to the position ${where} (its rules have changed since).`];
      text.push(finished && record ? record.note : 'The moves are listed below.');
      missing.textContent = text.join(' ');
    }

    const current = r.ply ? moves[r.ply - 1] : null;
    ui['replay-step'].textContent = current
      ? `Move ${r.ply} of ${total}: ${label(current.seat)} ${written(current)}`
      : `Start (${total} ${total === 1 ? 'move' : 'moves'} to go)`;
    ui['replay-first'].disabled = r.ply === 0;
    ui['replay-back'].disabled = r.ply === 0;
    ui['replay-forward'].disabled = r.ply >= total;
    ui['replay-last'].disabled = r.ply >= total;

    this.drawMoves(data, storedSeatLabel(data, entry, { short: true }));
    // Finished games export to the format their programs read, where the game has one.
    for (const link of this.recordLinks()) {
      const format = link.dataset.record;
      link.hidden = !(finished && record?.format === format);
      if (!link.hidden) {
        link.href = `/api/games/${encodeURIComponent(r.id)}.${format}`;
        link.setAttribute('download', `${r.id}.${format}`);
      }
    }
  }

  /** The card's download links, one per record format (`data-record="pgn"`). */
  recordLinks() {
    return this.ui.replay.querySelectorAll('a[data-record]');
  }

  /** Whether to turn the board: as the page showed the game, else for the viewer's seat. */
  flipped(data, entry, mySeat) {
    if (entry) return Boolean(entry.flipped);
    if (mySeat === null) return false;
    const state = storedState(data, 0);
    const sides = sidesOf(data.game, storedState(data, Math.min(1, data.moves.length)));
    return topSeatOf(data.game, state, sides) === mySeat;
  }

  /** The table of moves: who, what, how long it took, and the clocks after it. */
  drawMoves(data, label) {
    const r = this.current;
    const table = this.ui['replay-moves'];
    const moves = data.moves;
    const withClocks = moves.some((m) => Array.isArray(m.clocks_ms));
    const key = JSON.stringify([r.id, moves.length, withClocks]);
    if (table.dataset.key !== key) {
      table.dataset.key = key;
      const head = el('tr');
      const headings = ['#', 'Player', 'Move', 'Took'];
      if (withClocks) headings.push(`${label(0)}'s clock`, `${label(1)}'s clock`);
      for (const text of headings) {
        const th = el('th', null, text);
        th.scope = 'col';
        head.append(th);
      }
      table.tHead.replaceChildren(head);
      table.tBodies[0].replaceChildren(...moves.map((move, i) => {
        const ply = i + 1;
        const row = el('tr');
        row.dataset.ply = String(ply);
        row.append(el('td', 'ply', String(move.ply ?? ply)));
        row.append(el('td', 'who', label(move.seat)));
        const cell = el('td', 'notation');
        const jump = button(written(move), `replay-move-${ply}`, () => this.step(ply), 'link');
        jump.title = `Show the position after move ${ply}`;
        cell.append(jump);
        row.append(cell);
        row.append(el('td', 'took', typeof move.think_ms === 'number' ? thinkText(move.think_ms) : ''));
        if (withClocks) {
          for (const seat of [0, 1]) {
            const ms = Array.isArray(move.clocks_ms) ? move.clocks_ms[seat] : null;
            row.append(el('td', 'clock-after', typeof ms === 'number' ? formatClock(ms) : ''));
          }
        }
        return row;
      }));
    }
    for (const row of table.tBodies[0].rows) {
      const here = Number(row.dataset.ply) === r.ply;
      row.classList.toggle('current', here);
      const jump = row.querySelector('button');
      if (here) jump.setAttribute('aria-current', 'step');
      else jump.removeAttribute('aria-current');
      if (here) {
        // Keep the current move in view inside the table's own scroll box.
        const wrap = table.parentElement;
        if (row.offsetTop < wrap.scrollTop + row.offsetHeight || row.offsetTop + row.offsetHeight > wrap.scrollTop + wrap.clientHeight) {
          wrap.scrollTop = Math.max(0, row.offsetTop - wrap.clientHeight / 2);
        }
      }
    }
  }
}
