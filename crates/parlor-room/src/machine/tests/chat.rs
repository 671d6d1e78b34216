//! The room's two chats (PROTOCOL.md §6.17): who hears a line, what is refused, and what
//! a newcomer is given.

use super::*;
use crate::Request;
use crate::chat::ChatChannel;
use crate::records::ChatRecord;

/// Says `text` as `player` on `conn`; the connections that hear it and the record.
fn say(
    fx: &mut Fixture,
    player: &PlayerInfo,
    conn: ConnId,
    text: &str,
) -> Result<(Vec<ConnId>, ChatRecord), Refusal> {
    let step = fx.room.chat(player, conn, text, fx.now(fx.t0))?;
    let [Effect::Chat { to, said }] = step.effects.as_slice() else {
        panic!("one line, one effect: {:?}", step.effects);
    };
    let mut to = to.clone();
    to.sort_unstable();
    Ok((to, (**said).clone()))
}

fn carol() -> PlayerInfo {
    PlayerInfo {
        player_id: "p_carol".into(),
        name: "Carol".into(),
        bot_account: false,
    }
}

#[test]
fn players_hear_the_players_chat_and_spectators_the_spectators() {
    let mut fx = Fixture::playing();
    fx.room.watch(CAROL, None, fx.t0).unwrap();

    let (to, said) = say(&mut fx, &alice(), ALICE, "  good luck ").unwrap();
    assert_eq!(to, vec![ALICE, BOB], "only the players");
    assert_eq!(said.channel, ChatChannel::Players);
    assert_eq!((said.game_id.as_str(), said.number), ("g_test", 0));
    assert_eq!(
        (said.line.text.as_str(), said.line.name.as_str()),
        ("good luck", "Alice"),
        "trimmed, with the speaker's name"
    );

    let (to, said) = say(&mut fx, &carol(), CAROL, "nice opening").unwrap();
    assert_eq!(to, vec![CAROL], "only the spectators");
    assert_eq!((said.channel, said.number), (ChatChannel::Spectators, 1));

    assert_eq!(fx.room.chat_lines(ChatChannel::Players).len(), 1);
    assert_eq!(
        fx.room.chat_lines(ChatChannel::Spectators)[0].text,
        "nice opening"
    );
}

#[test]
fn a_line_records_the_moves_played_when_it_was_said() {
    let mut fx = Fixture::playing();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    let (_, said) = say(&mut fx, &bob(), BOB, "hm").unwrap();
    assert_eq!(said.line.ply, 1);
}

#[test]
fn empty_long_and_multi_line_chat_is_refused_by_name() {
    let mut fx = Fixture::playing();
    let max = settings().chat_max_chars;
    let too_long = "x".repeat(max + 1);
    for (text, why) in [
        ("", Refusal::EmptyChat),
        ("   ", Refusal::EmptyChat),
        ("two\nlines", Refusal::ChatNotOneLine),
        ("Ann\u{202E}rekcah", Refusal::ChatNotOneLine),
        (
            too_long.as_str(),
            Refusal::ChatTooLong {
                max_chars: max,
                chars: max + 1,
            },
        ),
    ] {
        let refused = say(&mut fx, &alice(), ALICE, text).unwrap_err();
        assert_eq!(refused, why, "{text:?}");
    }
    assert!(
        say(&mut fx, &alice(), ALICE, &"é".repeat(max)).is_ok(),
        "characters, not bytes"
    );
    let emoji = "gg \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{2764}\u{FE0F}";
    assert!(
        say(&mut fx, &alice(), ALICE, emoji).is_ok(),
        "emoji joined with zero-width joiners and variation selectors pass"
    );
    assert_eq!(fx.room.chat_lines(ChatChannel::Players).len(), 2);
}

#[test]
fn chat_needs_a_started_game_a_place_in_the_room_and_a_server_that_allows_it() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let waiting = say(&mut fx, &alice(), ALICE, "anyone?").unwrap_err();
    assert_eq!(waiting, Refusal::ChatBeforeStart);

    let mut fx = Fixture::playing();
    let stranger = say(&mut fx, &carol(), CAROL, "hi").unwrap_err();
    assert_eq!(stranger, Refusal::NotInRoom);

    let settings = RoomSettings {
        chat_max_chars: 0,
        ..settings()
    };
    let mut fx = Fixture::with_settings(
        [SeatSpec::Open, SeatSpec::Open],
        RoomOptions::default(),
        settings,
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    let off = say(&mut fx, &alice(), ALICE, "hi").unwrap_err();
    assert_eq!(off, Refusal::ChatOff);
}

#[test]
fn a_rematch_starts_with_an_empty_chat_and_the_finished_game_keeps_talking() {
    let mut fx = Fixture::playing();
    fx.request(Request::Resign, &bob(), BOB, fx.t0).unwrap();
    let (_, said) = say(&mut fx, &bob(), BOB, "gg").unwrap();
    assert_eq!(
        said.game_id, "g_test",
        "said after the end, kept with that game"
    );
    fx.request(Request::Rematch, &alice(), ALICE, fx.t0)
        .unwrap();
    fx.request(Request::Rematch, &bob(), BOB, fx.t0).unwrap();
    assert_eq!(fx.room.status(), crate::views::Status::Playing);
    assert!(fx.room.chat_lines(ChatChannel::Players).is_empty());
    let (_, said) = say(&mut fx, &alice(), ALICE, "again").unwrap();
    assert_eq!(said.number, 0, "numbered afresh in the new game");
}
