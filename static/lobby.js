// The live list of rooms: a `lobby` snapshot, then `lobby_update`s applied by room id
// (docs/PROTOCOL.md §6.13), or `GET /api/rooms` before the page has signed in. It holds
// data only; rooms.js draws it.

const STATUS_ORDER = { waiting: 0, playing: 1, finished: 2 };

/** Whether a value looks like a room summary this page can show. */
function isSummary(room) {
  return room !== null && typeof room === 'object' && typeof room.room === 'string';
}

/** The rooms the server lists, kept up to date from its lobby feed. */
export class RoomList {
  constructor() {
    /** room id → summary */
    this.rooms = new Map();
    /** Rises with every change, so the page knows when to draw again. */
    this.version = 0;
  }

  /** Replaces everything with a snapshot (`lobby` or `rooms`). */
  reset(rooms) {
    this.rooms = new Map((Array.isArray(rooms) ? rooms : []).filter(isSummary).map((r) => [r.room, r]));
    this.version += 1;
  }

  /** Applies one `lobby_update`; an update about a room never seen is harmless. */
  apply(update) {
    const room = update?.room;
    if (!isSummary(room)) return;
    if (update.change === 'removed') {
      if (!this.rooms.delete(room.room)) return;
    } else {
      this.rooms.set(room.room, room);
    }
    this.version += 1;
  }

  /** Empties the list (when the connection is lost). */
  clear() {
    this.reset([]);
  }

  /** A room's summary, if listed. */
  get(id) {
    return this.rooms.get(id) ?? null;
  }

  /** The rooms to show: waiting first (people to play), then playing, then finished; newest first within each. */
  sorted() {
    return [...this.rooms.values()].sort((a, b) =>
      (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3) ||
      (Number(b.created_at_ms) || 0) - (Number(a.created_at_ms) || 0) ||
      a.room.localeCompare(b.room));
  }
}

/** The listed rooms from `GET /api/rooms`, for a page that has not signed in yet. */
export async function fetchListedRooms() {
  const res = await fetch('/api/rooms', { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const data = await res.json();
  return Array.isArray(data?.rooms) ? data.rooms : [];
}
