//! The room's two chats: a line is checked, sent only to its own side (the players'
//! chat to the seated players, the spectators' to the spectators) and kept with the
//! current game, so that whoever joins or watches later is given what was said.

use super::{Effect, Now, RoomState, Step};
use crate::chat::{ChatChannel, ChatLine};
use crate::records::{ChatRecord, StoredChatLine};
use crate::{ConnId, PlayerInfo, Refusal};

/// The most lines a room keeps of each chat for newcomers; the store keeps them all.
const KEPT_LINES: usize = 100;

/// The current game's chat lines, as newcomers are given them.
#[derive(Debug, Default)]
pub(super) struct ChatLog {
    players: Vec<ChatLine>,
    spectators: Vec<ChatLine>,
    /// Lines said in this game so far, both chats: the next line's number.
    said: u64,
}

impl ChatLog {
    /// The chat of a game resumed from the store: its last lines kept for newcomers, and
    /// the next line numbered after every stored one.
    pub(super) fn resumed(stored: &[StoredChatLine]) -> ChatLog {
        let mut log = ChatLog::default();
        for said in stored {
            log.keep(said.channel, said.line.clone());
        }
        log.said = stored.iter().map(|said| said.number + 1).max().unwrap_or(0);
        log
    }

    fn lines_mut(&mut self, channel: ChatChannel) -> &mut Vec<ChatLine> {
        match channel {
            ChatChannel::Players => &mut self.players,
            ChatChannel::Spectators => &mut self.spectators,
        }
    }

    /// The lines kept of one chat, oldest first.
    pub(super) fn lines(&self, channel: ChatChannel) -> &[ChatLine] {
        match channel {
            ChatChannel::Players => &self.players,
            ChatChannel::Spectators => &self.spectators,
        }
    }

    /// Keeps `line`; returns its number in the game (both chats counted).
    fn keep(&mut self, channel: ChatChannel, line: ChatLine) -> u64 {
        let lines = self.lines_mut(channel);
        if lines.len() == KEPT_LINES {
            lines.remove(0);
        }
        lines.push(line);
        self.said += 1;
        self.said - 1
    }
}

impl RoomState {
    /// The chat `conn` talks in: the players' from a seat, the spectators' when watching.
    pub fn chat_channel_of(&self, conn: ConnId) -> Option<ChatChannel> {
        if self.seats.iter().any(|seat| seat.conn() == Some(conn)) {
            Some(ChatChannel::Players)
        } else if self.spectators.contains(&conn) {
            Some(ChatChannel::Spectators)
        } else {
            None
        }
    }

    /// The lines of the current game's chat `channel` kept for newcomers.
    pub fn chat_lines(&self, channel: ChatChannel) -> &[ChatLine] {
        self.chat.lines(channel)
    }

    /// `player` on connection `conn` says `text`: sent to their side of the room and
    /// kept with the current game. Refused when chat is off, before the game has
    /// started, from a connection that is not in the room, or for a line that is empty,
    /// too long or holds control characters.
    pub fn chat(
        &mut self,
        player: &PlayerInfo,
        conn: ConnId,
        text: &str,
        now: Now,
    ) -> Result<Step, Refusal> {
        let max_chars = self.settings.chat_max_chars;
        if max_chars == 0 {
            return Err(Refusal::ChatOff);
        }
        let channel = self.chat_channel_of(conn).ok_or(Refusal::NotInRoom)?;
        let Some(started) = &self.started else {
            return Err(Refusal::ChatBeforeStart);
        };
        let game_id = started.game_id.clone();
        let text = checked_line(text, max_chars)?;
        let line = ChatLine {
            player_id: player.player_id.clone(),
            name: player.name.clone(),
            text,
            at_ms: now.unix_ms,
            ply: self.history.len(),
        };
        let number = self.chat.keep(channel, line.clone());
        let to = match channel {
            ChatChannel::Players => self.seats.iter().filter_map(|seat| seat.conn()).collect(),
            ChatChannel::Spectators => self.spectators.iter().copied().collect(),
        };
        Ok(Step::done(vec![Effect::Chat {
            to,
            said: Box::new(ChatRecord {
                game_id,
                number,
                channel,
                line,
            }),
        }]))
    }

    /// A new game begins: its chat starts empty.
    pub(super) fn clear_chat(&mut self) {
        self.chat = ChatLog::default();
    }
}

/// The line as it is kept: trimmed, at least one and at most `max_chars` characters,
/// with no control characters (a line is one line) and no bidirectional controls (a
/// `U+202E` would make the rest of the line, and the next name shown, read backwards).
/// Unlike names (players.rs), other invisible characters pass: emoji are built with
/// zero-width joiners and variation selectors.
fn checked_line(text: &str, max_chars: usize) -> Result<String, Refusal> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(Refusal::EmptyChat);
    }
    if chars > max_chars {
        return Err(Refusal::ChatTooLong { max_chars, chars });
    }
    if text.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return Err(Refusal::ChatNotOneLine);
    }
    Ok(text.to_owned())
}

/// Unicode's bidirectional formatting characters: marks, embeddings, overrides and
/// isolates.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}
