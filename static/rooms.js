// The "Rooms" card: the listed rooms (lobby.js keeps them) drawn as a list, each with
// its seats, ratings and status, and buttons to join an open seat, return to one's own
// or watch. Before the page has signed in it shows the rooms read-only, read from
// `GET /api/rooms` now and then.

import { el, button } from './dom.js';
import { gameTitle } from './boards/index.js';
import { hasClock, timeControlLabel } from './time.js';
import { sideBadge, sideName, seatName, roomLabel, botAccountTag } from './sides.js';
import { fetchListedRooms } from './lobby.js';

const PREVIEW_EVERY_MS = 5000;

/** The rooms card, drawn from a RoomList. */
export class RoomListView {
  /**
   * rooms: the RoomList to show. nodes = { list, empty, filter, template }: the list,
   * the note under it, the game filter select and the template of one entry.
   * hooks = { ready(): signed in and receiving the lobby feed,
   *           me(): the signed-in player ({ player_id }) or null,
   *           current(): the room this page is in ({ id, role }) or null,
   *           join(roomId, seat), watch(roomId) }.
   */
  constructor(rooms, nodes, hooks) {
    this.rooms = rooms;
    this.nodes = nodes;
    this.hooks = hooks;
    this.key = null; // what was last drawn
    this.previewNote = ''; // why the rooms could not be read before signing in
  }

  /** Reads the listed rooms now and every few seconds while the page is not signed in. */
  startPreview() {
    this.preview();
    setInterval(() => this.preview(), PREVIEW_EVERY_MS);
  }

  /** Before the page has signed in (or while it reconnects, unless offline), reads the listed rooms once. */
  async preview() {
    if (this.hooks.ready() || document.hidden || !navigator.onLine) return;
    let rooms = null;
    let note = '';
    try {
      rooms = await fetchListedRooms();
    } catch (err) {
      note = `The rooms could not be loaded (${err.message}).`;
    }
    if (this.hooks.ready()) return;
    if (rooms) this.rooms.reset(rooms);
    this.previewNote = note;
    this.key = null;
    this.render();
  }

  /** Draws the list; rebuilt only when something shown changed, so buttons do not vanish under the pointer. */
  render() {
    const ready = this.hooks.ready();
    const me = this.hooks.me();
    const current = this.hooks.current();
    const filter = this.nodes.filter.value;
    const key = JSON.stringify([ready, me?.player_id, current, this.rooms.version, filter, this.previewNote]);
    if (key === this.key) return;
    this.key = key;
    // Signed in, the server filters the feed; the preview before that is filtered here.
    const rooms = this.rooms.sorted().filter((room) => ready || !filter || room.game === filter);
    const none = filter ? `No ${gameTitle(filter)} rooms right now.` : 'No rooms right now.';
    let text = `${none} Start a game and it shows here.`;
    if (!ready) {
      const act = me ? 'Once reconnected you can join or watch.' : 'Enter your name to join, watch or start a game.';
      text = this.previewNote || (rooms.length ? act : `${none} ${act}`);
    }
    this.nodes.empty.hidden = ready && rooms.length > 0;
    this.nodes.empty.textContent = text;
    this.nodes.list.replaceChildren(...rooms.map((room) => this.item(room, { ready, me, current })));
  }

  /** One room's entry. */
  item(room, { ready, me, current }) {
    const item = this.nodes.template.content.firstElementChild.cloneNode(true);
    item.dataset.room = String(room.room);
    const here = Boolean(current && current.id === room.room);
    item.classList.toggle('current', here);
    const title = item.querySelector('.room-title');
    title.textContent = `${gameTitle(room.game)} ${roomLabel(room.room)}`;
    item.dataset.game = String(room.game ?? '');
    title.title = `Room ${room.room}`;
    const meta = [String(room.status ?? '')];
    const clock = room.time_control ?? null;
    if (hasClock(clock)) meta.push(`clock ${timeControlLabel(clock)}`);
    item.dataset.timeControl = clock ? timeControlLabel(clock) || 'none' : '';
    if (typeof room.moves === 'number') meta.push(`${room.moves} ${room.moves === 1 ? 'move' : 'moves'}`);
    if (typeof room.spectators === 'number' && room.spectators > 0) meta.push(`${room.spectators} watching`);
    item.querySelector('.room-meta').textContent = meta.join(' · ');
    const seatsBox = item.querySelector('.room-seats');
    const seats = Array.isArray(room.seats) ? room.seats : [];
    seats.forEach((seat, i) => {
      if (i > 0) seatsBox.append(el('span', 'vs', 'vs'));
      const who = el('span', 'room-seat');
      who.append(sideBadge(seat.seat, room.game, null));
      who.append(el('span', seat.kind === 'open' ? 'open' : null, seatName(seat)));
      const tag = botAccountTag(seat);
      if (tag) who.append(tag);
      if (typeof seat.rating === 'number') {
        const rating = el('span', 'rating', String(seat.rating));
        rating.setAttribute('aria-label', `rating ${seat.rating}`);
        who.append(rating);
      }
      seatsBox.append(who);
    });
    if (ready) this.actions(item.querySelector('.room-actions'), room, seats, { me, current, here });
    return item;
  }

  /** A room's buttons: join an open seat, return to one's own, watch; or what this page is doing there. */
  actions(box, room, seats, { me, current, here }) {
    if (here) {
      const finished = room.status === 'finished';
      const text = current.role === 'player' ? (finished ? 'your game' : 'you are playing') : 'you are watching';
      box.append(el('span', 'tag you', text));
      return;
    }
    if (room.status !== 'finished') {
      for (const seat of seats) {
        const mine = me && seat.player_id && seat.player_id === me.player_id;
        if (seat.kind !== 'open' && !mine) continue;
        const label = `${mine ? 'Return' : 'Join'} as ${sideName(seat.seat, room.game, null)}`;
        box.append(button(label, `join-${seat.seat}`, () => this.hooks.join(room.room, seat.seat), 'small primary-btn'));
      }
    }
    box.append(button('Watch', 'watch', () => this.hooks.watch(room.room), 'small'));
  }
}
