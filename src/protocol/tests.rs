//! Tests of the wire: parse order, names and the shapes of replies.

use serde_json::Value;

use super::client::CLIENT_TYPES;
use super::*;

fn code(text: &str) -> ErrorCode {
    parse(text).unwrap_err().error.code
}

#[test]
fn every_client_type_is_read_by_serde_and_documented() {
    assert_eq!(CLIENT_TYPES.len(), 22);
    let protocol = include_str!("../../docs/PROTOCOL.md");
    for kind in CLIENT_TYPES {
        let heading = format!("`{kind}`");
        assert!(
            protocol
                .lines()
                .any(|line| line.starts_with("### 6.") && line.contains(&heading)),
            "{kind} has no section of its own in PROTOCOL.md §6"
        );
        let error = serde_json::from_value::<ClientMsg>(serde_json::json!({ "type": kind }))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(!error.contains("unknown variant"), "{kind}: {error}");
    }
}

#[test]
fn every_error_code_is_sent_by_its_wire_name_and_documented() {
    use strum::VariantArray;
    let protocol = include_str!("../../docs/PROTOCOL.md");
    for &code in ErrorCode::VARIANTS {
        let name = code.as_str();
        assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(name));
        assert!(
            protocol.contains(&format!("`{name}`")),
            "{name} is not in PROTOCOL.md"
        );
    }
    assert_eq!(ErrorCode::NotAPlayer.as_str(), "not_a_player");
}

#[test]
fn errors_are_checked_in_order() {
    assert_eq!(code("{"), ErrorCode::BadJson);
    assert_eq!(code("[1]"), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"type":"fly"}"#), ErrorCode::UnknownType);
    assert_eq!(code(r#"{"type":7}"#), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"room":"a"}"#), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"type":"move","room":"a"}"#), ErrorCode::BadMessage);
    assert_eq!(
        code(r#"{"type":"move","room":"a","move":4}"#),
        ErrorCode::BadMessage
    );
    assert_eq!(
        code(r#"{"type":"join","room":"a","seat":-1}"#),
        ErrorCode::BadMessage
    );
    assert_eq!(
        code(r#"{"type":"fill_with_bot","room":"a","level":"genius"}"#),
        ErrorCode::BadMessage
    );
}

#[test]
fn a_bot_for_the_open_seat_names_its_level_or_takes_the_servers() {
    use parlor_rules::bots::BotLevel;
    let named = parse(r#"{"type":"fill_with_bot","room":"a","level":"hard"}"#).unwrap();
    assert_eq!(
        named.msg,
        ClientMsg::FillWithBot {
            room: "a".into(),
            level: Some(BotLevel::Hard)
        }
    );
    let unnamed = parse(r#"{"type":"fill_with_bot","room":"a"}"#).unwrap();
    assert_eq!(
        unnamed.msg,
        ClientMsg::FillWithBot {
            room: "a".into(),
            level: None
        }
    );
}

#[test]
fn a_ping_is_answered_with_a_pong_carrying_its_ref() {
    let ping = parse(r#"{"type":"ping","ref":"hb1"}"#).unwrap();
    assert_eq!(ping.msg, ClientMsg::Ping {});
    let pong = ServerMsg::Pong {
        reference: ping.reference,
    };
    assert_eq!(
        serde_json::to_value(&pong).unwrap(),
        serde_json::json!({"type": "pong", "ref": "hb1"})
    );
}

#[test]
fn a_ref_is_read_however_its_key_is_written_and_absent_without_one() {
    let escaped = parse(r#"{"type":"ping","r\u0065f":"hb2"}"#).unwrap();
    assert_eq!(escaped.reference, Some(Value::from("hb2")));
    let null = parse(r#"{"type":"ping","ref":null}"#).unwrap();
    assert_eq!(null.reference, Some(Value::Null));
    let none = parse(r#"{"type":"move","room":"r1","move":"4"}"#).unwrap();
    assert_eq!(none.reference, None);
    let in_a_value = parse(r#"{"type":"move","room":"ref","move":"4"}"#).unwrap();
    assert_eq!(in_a_value.reference, None);
}

#[test]
fn ref_is_kept_even_when_the_message_is_refused() {
    let rejected = parse(r#"{"type":"fly","ref":"r1"}"#).unwrap_err();
    assert_eq!(rejected.reference, Some(Value::from("r1")));
    let ok = parse(r#"{"type":"list_rooms","ref":7,"extra":true}"#).unwrap();
    assert_eq!(ok.msg, ClientMsg::ListRooms {});
    assert_eq!(ok.reference, Some(Value::from(7)));
}

#[test]
fn statuses_are_sent_by_their_documented_names() {
    let statuses = [Status::Waiting, Status::Playing, Status::Finished];
    let wire = statuses.map(|status| serde_json::to_string(&status).unwrap());
    assert_eq!(wire, ["\"waiting\"", "\"playing\"", "\"finished\""]);
}

#[test]
fn replies_serialize_as_documented() {
    let welcome = ServerMsg::Welcome {
        player_id: "p".into(),
        name: "Ann".into(),
        token: Some("t".into()),
        signed_in: false,
        protocol: PROTOCOL_VERSION,
        room_settings: None,
        reference: None,
    };
    assert_eq!(
        serde_json::to_string(&welcome).unwrap(),
        r#"{"type":"welcome","player_id":"p","name":"Ann","token":"t","protocol":1}"#
    );
    let signed_in = ServerMsg::Welcome {
        player_id: "p".into(),
        name: "Ann".into(),
        token: None,
        signed_in: true,
        protocol: PROTOCOL_VERSION,
        room_settings: None,
        reference: None,
    };
    assert_eq!(
        serde_json::to_string(&signed_in).unwrap(),
        r#"{"type":"welcome","player_id":"p","name":"Ann","signed_in":true,"protocol":1}"#
    );
    let secs = std::time::Duration::from_secs;
    let settings = parlor_room::RoomSettings {
        games: parlor_rules::GameSettings::default(),
        idle: secs(300),
        reconnect_grace: secs(60),
        claim_after: std::time::Duration::from_millis(15_500),
        takeover: parlor_room::options::Takeover::None,
        first_move: secs(30),
        chat_max_chars: 140,
        spectators_per_room: 1_000,
        fill_after: secs(20),
        fill_level: parlor_rules::bots::BotLevel::Easy,
        bot_min_delay: secs(0),
        scoring: parlor_room::scoring::ScoringConfig::default(),
    };
    let told = ServerMsg::Welcome {
        player_id: "p".into(),
        name: "Ann".into(),
        token: None,
        signed_in: true,
        protocol: PROTOCOL_VERSION,
        room_settings: Some((&settings).into()),
        reference: None,
    };
    assert_eq!(
        serde_json::to_value(&told).unwrap()["room_settings"],
        serde_json::json!({
            "bot_fill_after_ms": 20_000,
            "bot_fill_level": "easy",
            "reconnect_grace_ms": 60_000,
            "claim_after_ms": 15_500,
            "first_move_ms": 30_000,
            "takeover": "none",
        })
    );
    let error = ServerMsg::error(
        ClientError::new(ErrorCode::IllegalMove, "no"),
        Some(Value::from("x")),
    );
    assert_eq!(
        serde_json::to_string(&error).unwrap(),
        r#"{"type":"error","code":"illegal_move","message":"no","ref":"x"}"#
    );
}

#[test]
fn a_ref_is_echoed_as_sent_or_refused_when_it_cannot_be() {
    for sent in [
        r#""r1""#,
        "7",
        "-7",
        "18446744073709551615",
        "0.5",
        "null",
        r#"{"n":[1,2]}"#,
    ] {
        let text = format!(r#"{{"type":"list_rooms","ref":{sent}}}"#);
        let echoed = serde_json::to_string(&parse(&text).unwrap().reference).unwrap();
        assert_eq!(echoed, sent);
    }
    for too_large in [
        "18446744073709551616",
        "123456789012345678901234",
        r#"{"n":[1e30]}"#,
    ] {
        let text = format!(r#"{{"type":"list_rooms","ref":{too_large}}}"#);
        let refused = parse(&text).unwrap_err();
        assert_eq!(refused.error.code, ErrorCode::BadMessage, "{too_large}");
        assert_eq!(refused.reference, None);
    }
    // A key sent twice is read as JSON reads it, the last one standing.
    let twice = parse(r#"{"type":"list_rooms","ref":1,"ref":2}"#).unwrap();
    assert_eq!(twice.reference, Some(serde_json::json!(2)));
}
