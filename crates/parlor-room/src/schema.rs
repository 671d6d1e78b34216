//! The JSON Schemas of the room's values whose wire names are written by hand rather than
//! derived (seat kinds, seat specs, takeovers, opponents) and of the room options: each lists the
//! names its `Display` writes, so the schema cannot drift from the wire. And the `type`
//! of the frames a room broadcasts, which serde writes as a tag schemars does not see on
//! a struct.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

use crate::options::Takeover;
use crate::scoring::Opponent;
use crate::{RoomOptions, SeatKind, SeatSpec, TimeControl};
use parlor_rules::bots::BotLevel;

/// Adds the frame's `type`, `name`, to a frame's schema, as a required constant.
fn tagged(schema: &mut Schema, name: &str) {
    if let Some(properties) = schema
        .ensure_object()
        .entry("properties")
        .or_insert_with(|| Value::Object(serde_json::Map::new()))
        .as_object_mut()
    {
        properties.insert("type".to_owned(), json!({"type": "string", "const": name}));
    }
    if let Some(required) = schema
        .ensure_object()
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
    {
        required.insert(0, Value::String("type".to_owned()));
    }
}

/// [`crate::views::StateMsg`]'s `type`.
pub(crate) fn tagged_state(schema: &mut Schema) {
    tagged(schema, "state");
}

/// [`crate::views::MovedMsg`]'s `type`.
pub(crate) fn tagged_moved(schema: &mut Schema) {
    tagged(schema, "moved");
}

/// [`crate::views::GameOverMsg`]'s `type`.
pub(crate) fn tagged_game_over(schema: &mut Schema) {
    tagged(schema, "game_over");
}

/// A string that is one of `values`, written by their `Display`.
fn one_of_names<T: ToString>(values: impl IntoIterator<Item = T>, description: &str) -> Schema {
    let names: Vec<Value> = values
        .into_iter()
        .map(|value| Value::String(value.to_string()))
        .collect();
    json_schema!({"type": "string", "enum": names, "description": description})
}

impl JsonSchema for SeatKind {
    fn schema_name() -> Cow<'static, str> {
        "SeatKind".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let kinds = [SeatKind::Open, SeatKind::Human]
            .into_iter()
            .chain(BotLevel::ALL.iter().copied().map(SeatKind::Bot));
        one_of_names(
            kinds,
            "\"open\", \"human\", or \"bot:<level>\" with level random, easy, medium, hard.",
        )
    }
}

impl JsonSchema for Opponent {
    fn schema_name() -> Cow<'static, str> {
        "Opponent".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        one_of_names(
            Opponent::all(),
            "Whom a score was earned against: \"person\", or \"bot:<level>\" with level random, easy, medium, hard (a bot that stood in for an absent person counts as a bot).",
        )
    }
}

impl JsonSchema for SeatSpec {
    fn schema_name() -> Cow<'static, str> {
        "SeatSpec".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let specs = [SeatSpec::Open, SeatSpec::Me]
            .into_iter()
            .chain(BotLevel::ALL.iter().copied().map(SeatSpec::Bot));
        one_of_names(
            specs,
            "A seat spec: \"open\" (anyone may join), \"me\" (the creator sits here; at most one), \"bot:random\", \"bot:easy\", \"bot:medium\" or \"bot:hard\". Case-sensitive.",
        )
    }
}

impl JsonSchema for Takeover {
    fn schema_name() -> Cow<'static, str> {
        "Takeover".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let takeovers = [Takeover::None]
            .into_iter()
            .chain(BotLevel::ALL.iter().copied().map(Takeover::Bot));
        one_of_names(
            takeovers,
            "What happens when a player stays away longer than the reconnect grace: with \"none\" they lose by `abandoned`; with a level, a bot of that level plays for them until they come back. Without it the server's `rooms.takeover` applies.",
        )
    }
}

impl JsonSchema for RoomOptions {
    fn schema_name() -> Cow<'static, str> {
        "RoomOptions".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let takeover = generator.subschema_for::<Takeover>();
        let time_control = generator.subschema_for::<TimeControl>();
        json_schema!({
            "type": "object",
            "description": "Room options; any other key is refused with `bad_option`.",
            "properties": {
                "start": {
                    "type": "string",
                    "description": "A position to start from, in the same form as `state.position` for the game (not accepted for tictactoe). A game started from a position is never scored or rated.",
                },
                "takeover": takeover,
                "time_control": time_control,
                "private": {
                    "type": "boolean",
                    "description": "`true` keeps the room out of every listing (`list_rooms`, the lobby, `GET /api/rooms`) and out of `quick_join`: it is reached by its id alone. `false`, the default, lists it.",
                },
                "bot_fill": {
                    "type": "boolean",
                    "description": "Whether an open seat opposite a connected person is given a bot (`bots.fill_level`) after `bots.fill_after_secs`. Default: `true` in a public room, `false` in a private one, which waits for the person its link was sent to. A seated player may still ask for a bot at once with `fill_with_bot`.",
                },
            },
            "additionalProperties": false,
        })
    }
}
