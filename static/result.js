// How a game ended, in words: the headline ("You won!", "Ann (White) won.", "Draw."),
// the reason as a phrase, the result panel under the board with its scores, rating
// changes, Rematch, Replay and Link to this game (which call the actions it is given), and the same
// sentence for a stored game's replay.

import { app, ui, currentGame, markOf, markEl } from './state.js';
import { gameReasons } from './boards/index.js';
import { seatName, botLevel } from './sides.js';
import { formatDuration } from './time.js';
import { el, button, capitalise } from './dom.js';
import { SCORE_EXPLAINED, RATING_EXPLAINED, opponentWords } from './scoring_words.js';

/** Why a game was not rated, by `game_over.unrated` (PROTOCOL.md §13.4). */
const UNRATED = {
  too_short: 'a side made fewer than two moves',
  from_position: 'the game started from a set position',
  aborted: 'the game was aborted',
  bot_stood_in: 'a bot played for an absent player',
  bot_opponent: 'the opponent was a bot, and only games between two people are rated',
};

// End reasons any game can have, as phrases; each game's own are in its module in
// boards/. `who` is "Name (Side)": the loser, or in a draw the side whose clock ran out
// (which only a draw on time mentions) or who left (a claimed draw); isYou says `who` is
// this player.
const REASONS = {
  resigned: (who, isYou) => (isYou ? 'you resigned' : `${who} resigned`),
  abandoned: (who, isYou) => (isYou ? 'you left the game' : `${who} left the game`),
  threefold_repetition: () => 'the same position occurred three times',
  timeout: (who, isYou) => (isYou ? 'you ran out of time' : `${who} ran out of time`),
  aborted: () => 'a first move was not made in time, so the game was called off and does not count',
  draw_agreed: () => 'the players agreed to a draw',
  draw_claimed: (who, isYou) => (isYou
    ? 'you left the game, and your opponent called it a draw'
    : `${who} left the game, and their opponent called it a draw`),
};

/** An abort when a player left before the first move (PROTOCOL.md §6.7, §6.19): about them. */
const LEFT_BEFORE_A_MOVE = (who, isYou) => (isYou
  ? 'you left before the first move, so the game was called off and does not count'
  : `${who} left before the first move, so the game was called off and does not count`);

/** The winner and reason of the current game, from game_over if seen, else from state.result. */
function outcome(s) {
  const over = app.room?.over;
  if (over) return { winner: over.winner ?? null, reason: over.reason };
  if (s?.result) return { winner: s.result.winner ?? null, reason: s.result.reason };
  return null;
}

/**
 * The headline and reason of a finished game of `game`, in words. `label(seat)` names a
 * seat ("Ann (White)"); `mySeat` is this player's seat, or null when watching; `flagged`
 * is the seat whose time ran out, when known; `gone` the seat whose person was away at
 * the end, when known, and `moves` how many moves were played.
 */
function endText({ game, winner, reason, label, mySeat, flagged, gone = null, moves = null }) {
  const decided = typeof winner === 'number';
  let headline;
  if (reason === 'aborted') headline = 'Game aborted.';
  else if (!decided) headline = 'Draw.';
  else if (typeof mySeat === 'number') headline = winner === mySeat ? 'You won!' : 'You lost.';
  else headline = `${label(winner)} won.`;
  const leftAtOnce = reason === 'aborted' && moves === 0 && typeof gone === 'number';
  const phrase = leftAtOnce ? LEFT_BEFORE_A_MOVE : gameReasons(game)[reason] ?? REASONS[reason];
  if (!phrase) return { headline, reason: String(reason ?? '').replaceAll('_', ' ') };
  // The reason is told about the loser; for a draw about who ran out of time, or who left.
  let subject = decided ? 1 - winner : flagged;
  if (leftAtOnce || reason === 'draw_claimed') subject = gone;
  const known = typeof subject === 'number';
  return { headline, reason: phrase(known ? label(subject) : 'a player', known && subject === mySeat) };
}

/** The seat whose clock ran out: the one at zero, else the side to move after the last move. */
function flaggedSeat(clocks, lastSeat) {
  const left = Array.isArray(clocks) ? clocks.map(Number) : null;
  if (left && left.filter((ms) => ms === 0).length === 1) return left.indexOf(0);
  return typeof lastSeat === 'number' ? 1 - lastSeat : null;
}

function liveEndText(s) {
  const o = outcome(s);
  if (!o) return null;
  const mySeat = app.room?.role === 'player' && typeof app.room.seat === 'number' ? app.room.seat : null;
  return endText({
    game: currentGame(),
    winner: o.winner,
    reason: o.reason,
    label: (seat) => `${seatName(s?.seats?.find((x) => x.seat === seat))} (${markOf(seat)})`,
    mySeat,
    flagged: flaggedSeat(s?.clocks?.remaining_ms, s?.last_move?.seat),
    gone: goneSeat(s?.seats),
    moves: typeof s?.moves === 'number' ? s.moves : null,
  });
}

/** The one human seat whose person was not connected when the game ended, or null. */
function goneSeat(seats) {
  const away = Array.isArray(seats) ? seats.filter((x) => x.kind === 'human' && x.connected === false) : [];
  return away.length === 1 ? away[0].seat : null;
}

/** "You won!", "Draw.", ... for the current game; '' while it is not over. */
export function resultHeadline(s) {
  return liveEndText(s)?.headline ?? '';
}

/** "Ann (White) won. Checkmate." for a stored, finished game. */
export function storedEndSentence(data, label, mySeat) {
  const total = data.moves.length;
  const end = endText({
    game: data.game,
    winner: data.winner, reason: data.reason, label, mySeat,
    flagged: flaggedSeat(null, total ? data.moves[total - 1].seat : null),
  });
  return `${end.headline} ${capitalise(end.reason)}.`;
}

/** "1500 → 1516 (+16)" */
function ratingChangeText(before, after) {
  const delta = after - before;
  return `${before} → ${after} (${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta)})`;
}

/**
 * The panel that says how the game ended (beside the board, or under it on a phone)
 * once the game is over; hidden before. `actions` =
 * { rematch(), openReplay(gameId), copyGameLink(gameId) }, for its buttons.
 */
export function renderResult(s, actions) {
  const box = ui.result;
  const over = app.room.over;
  const o = s?.status === 'finished' || over ? outcome(s) : null;
  if (!o) {
    box.hidden = true;
    box.replaceChildren();
    delete box.dataset.winner;
    delete box.dataset.reason;
    return;
  }
  box.hidden = false;
  const decided = o.winner !== null && o.winner !== undefined;
  box.dataset.winner = decided ? String(o.winner) : (o.reason === 'aborted' ? 'none' : 'draw');
  box.dataset.reason = String(o.reason ?? '');
  const text = liveEndText(s);
  const headline = text.headline;
  box.className = `result ${headline.startsWith('You won') ? 'won' : headline.startsWith('You lost') ? 'lost' : 'neutral'}`;
  const parts = [el('p', 'headline', headline), el('p', 'reason', capitalise(text.reason) + '.')];
  const scores = Array.isArray(over?.scores) ? over.scores : [];
  if (scores.length) {
    const list = el('ul', 'scores');
    for (const entry of scores) {
      const item = el('li');
      item.append(markEl(entry.seat));
      const live = s?.seats?.find((x) => x.seat === entry.seat);
      item.append(el('span', 'score-name', botLevel(live?.kind) || !entry.name ? seatName(live) : entry.name));
      if (typeof entry.rating_before === 'number' && typeof entry.rating_after === 'number') {
        const change = el('span', 'rating-change', ratingChangeText(entry.rating_before, entry.rating_after));
        change.dataset.testid = `rating-change-${entry.seat}`;
        const delta = entry.rating_after - entry.rating_before;
        change.dataset.trend = delta > 0 ? 'up' : delta < 0 ? 'down' : 'same';
        change.title = 'Rating before → after this game';
        item.append(change);
      }
      item.append(scoreEl(entry));
      list.append(item);
    }
    parts.push(list);
    parts.push(scoresExplained(scores));
  }
  const unrated = UNRATED[over?.unrated];
  if (unrated) {
    const note = el('p', 'unrated', `Not rated: ${unrated}.`);
    note.dataset.testid = 'unrated';
    parts.push(note);
  }
  if (typeof over?.duration_ms === 'number') {
    parts.push(el('p', 'duration', `Played in ${formatDuration(over.duration_ms)}.`));
  }
  const row = el('div', 'result-actions');
  const rematch = rematchControls(s, actions.rematch);
  if (rematch) {
    parts.push(rematch.status);
    if (rematch.button) row.append(rematch.button);
  }
  if (s?.status === 'finished' && typeof s.game_id === 'string') {
    row.append(button('Replay', 'replay-open', () => actions.openReplay(s.game_id), 'small'));
    row.append(button('Link to this game', 'result-game-link', () => actions.copyGameLink(s.game_id), 'small'));
  }
  if (row.childElementCount) parts.push(row);
  box.replaceChildren(...parts);
}

/** A seat's score and whom it was earned against: "482 points against Easy bot". */
function scoreEl(entry) {
  const score = el('span', 'score', typeof entry.score === 'number' ? `${entry.score} points` : 'no score');
  score.dataset.testid = `score-${entry.seat}`;
  const against = typeof entry.score === 'number' ? opponentWords(entry.opponent) : null;
  if (against) score.append(' ', el('span', 'score-against', `against ${against}`));
  return score;
}

/** A fold under the scores that says what the points, and any ratings shown, mean. */
function scoresExplained(scores) {
  const rated = scores.some((x) => typeof x.rating_before === 'number' && typeof x.rating_after === 'number');
  const box = el('details', 'explained');
  box.dataset.testid = 'scores-explained';
  box.append(el('summary', null, rated ? 'What are points and ratings?' : 'What are points?'));
  box.append(el('p', null, SCORE_EXPLAINED));
  if (rated) box.append(el('p', null, RATING_EXPLAINED));
  return box;
}

/** The Rematch button (calling `onRematch`) and a line on who has asked, for a player of a finished game; against a bot account, only a line (it plays again when challenged again). */
function rematchControls(s, onRematch) {
  if (s?.status !== 'finished' || app.room?.role !== 'player' || typeof app.room.seat !== 'number') return null;
  const asked = Array.isArray(s.rematch) ? s.rematch : [];
  const me = app.room.seat;
  const opponent = s.seats?.find((x) => x.seat === 1 - me);
  const other = seatName(opponent);
  if (opponent?.bot_account === true) {
    // An engine on the Bot API plays again when challenged again, not by a rematch.
    const status = el('p', 'rematch-status', `To play ${other} again, challenge it from Bots online.`);
    status.dataset.testid = 'rematch-status';
    return { button: null, status };
  }
  const mine = asked.includes(me);
  const theirs = asked.includes(1 - me);
  const label = mine ? 'Rematch asked' : theirs ? 'Accept rematch' : 'Rematch';
  const b = button(label, 'rematch', onRematch, `small${theirs && !mine ? ' primary-btn' : ''}`);
  b.disabled = mine;
  let line = 'A rematch is played in this room with the seats swapped.';
  if (theirs && !mine) line = `${other} wants a rematch, with the seats swapped.`;
  else if (mine) line = `Waiting for ${other} to accept the rematch.`;
  const status = el('p', 'rematch-status', line);
  status.dataset.testid = 'rematch-status';
  status.dataset.state = theirs && !mine ? 'asked-by-them' : mine ? 'asked' : '';
  status.dataset.asked = asked.map(String).join(',');
  return { button: b, status };
}
