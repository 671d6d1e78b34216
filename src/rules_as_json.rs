//! Tests of the rules' values in their JSON forms: game settings as the config gives them,
//! boards as clients draw them, and the bound on what a `state` carries. They live in the
//! server because JSON is the server's business; the rules crate has no JSON library.

use parlor_rules::GameKind;
use parlor_rules::catalog::{AnyGame, GameSettings, new_game};
use parlor_rules::games::{checkers, fox_geese};
use proptest::prelude::*;

/// The most a `state`'s board and legal moves may take as JSON, for any position play
/// can reach in any game (docs/RELIABILITY.md): the longest Fox & Geese list known,
/// 1,576 jumps, takes about 40 KB.
const STATE_BYTES: usize = 64 * 1024;

/// The bytes of what a `state` carries for the game: its board and legal moves.
fn state_bytes(game: &dyn AnyGame) -> usize {
    serde_json::to_vec(&game.board()).map_or(usize::MAX, |v| v.len())
        + serde_json::to_vec(&game.legal_moves()).map_or(usize::MAX, |v| v.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rooms at random reachable positions (random play from the start, the position
    /// written out and read back as `options.start` would be) keep their state small.
    #[test]
    fn reachable_positions_have_small_states(
        game_index in 0..GameKind::ALL.len(),
        picks in proptest::collection::vec(any::<usize>(), 0..200),
    ) {
        let id = GameKind::ALL[game_index];
        let settings = GameSettings::default();
        let mut game = new_game(id, &settings, None).unwrap();
        for pick in picks {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(&moves[pick % moves.len()]).unwrap();
        }
        let room = new_game(id, &settings, Some(&game.position())).unwrap_or(game);
        let bytes = state_bytes(room.as_ref());
        prop_assert!(bytes <= STATE_BYTES, "{} {}: {} bytes", id, room.position(), bytes);
    }
}

#[test]
fn the_longest_known_fox_list_fits_the_state_bound() {
    let worst = "F:F25:G10,12,16,17,18,19,20,24,26,28,29,30,32";
    let game = new_game(GameKind::FoxGeese, &GameSettings::default(), Some(worst)).unwrap();
    assert_eq!(game.legal_moves().len(), 1_576);
    assert!(state_bytes(game.as_ref()) <= STATE_BYTES);
}

#[test]
fn a_fox_geese_board_is_sent_as_a_7x7_grid() {
    let game = new_game(GameKind::FoxGeese, &GameSettings::default(), None).unwrap();
    let json = serde_json::to_string(&game.board()).unwrap();
    assert!(json.starts_with(r#"{"layout":"grid","rows":7,"cols":7,"cells":[null,null,null"#));
}

#[test]
fn kinds_levels_and_end_reasons_travel_by_their_names() {
    use parlor_rules::bots::BotLevel;
    use parlor_rules::games::EndReason;
    for &kind in GameKind::ALL {
        let json = serde_json::to_value(kind).unwrap();
        assert_eq!(json, serde_json::json!(kind.as_str()));
        assert_eq!(serde_json::from_value::<GameKind>(json).unwrap(), kind);
    }
    for &level in BotLevel::ALL {
        let json = serde_json::to_value(level).unwrap();
        assert_eq!(json, serde_json::json!(level.as_str()));
        assert_eq!(serde_json::from_value::<BotLevel>(json).unwrap(), level);
    }
    for &reason in EndReason::ALL {
        assert_eq!(
            serde_json::to_value(reason).unwrap(),
            serde_json::json!(reason.as_str())
        );
        assert_eq!(reason.as_str().parse::<EndReason>(), Ok(reason));
    }
    assert!(serde_json::from_value::<GameKind>(serde_json::json!("go")).is_err());
    assert!(serde_json::from_value::<BotLevel>(serde_json::json!("Hard")).is_err());
}

#[test]
fn checkers_settings_read_from_config() {
    let settings: checkers::Settings = serde_json::from_str("{}").unwrap();
    assert_eq!(settings, checkers::Settings { quiet_moves: 40 });
    let settings: checkers::Settings = serde_json::from_str(r#"{"quiet_moves": 25}"#).unwrap();
    assert_eq!(settings.quiet_moves, 25);
    assert!(serde_json::from_str::<checkers::Settings>(r#"{"quiet": 25}"#).is_err());
}

#[test]
fn fox_geese_settings_read_from_config_with_defaults() {
    use fox_geese::{Settings, Side};
    let empty: Settings = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, Settings::default());
    let fox: Settings = serde_json::from_str(r#"{"first":"fox","quiet_moves":25}"#).unwrap();
    assert_eq!(
        fox,
        Settings {
            quiet_moves: 25,
            first: Side::Fox,
            ..Settings::default()
        }
    );
    assert!(serde_json::from_str::<Settings>(r#"{"first":"Fox"}"#).is_err());
    assert!(serde_json::from_str::<Settings>(r#"{"threshold":3}"#).is_err());
    assert_eq!(
        serde_json::to_string(&Settings::default()).unwrap(),
        r#"{"fox_wins_below":4,"quiet_moves":40,"first":"geese"}"#
    );
}
