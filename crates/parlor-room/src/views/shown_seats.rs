//! Both seats of a room as shown in its `state` and listing, shared, and encoded as JSON
//! at most once: a room's seats rarely change, while it sends a `state` at every move.

use std::fmt;
use std::sync::Arc;

use parlor_rules::Encoded;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::SeatView;

/// Both seats, seat 0 then seat 1, written on the wire as the array of their views.
/// Cloning one shares it, with its encoding.
#[derive(Clone)]
pub struct ShownSeats(Arc<Encoded<Vec<SeatView>>>);

impl ShownSeats {
    /// The seats `views`, in seat order.
    pub fn new(views: Vec<SeatView>) -> ShownSeats {
        ShownSeats(Arc::new(Encoded::new(views)))
    }

    /// Whether `self` and `other` are the same shared seats (and so equal).
    pub fn same(&self, other: &ShownSeats) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for ShownSeats {
    type Target = [SeatView];

    fn deref(&self) -> &[SeatView] {
        self.0.as_slice()
    }
}

impl PartialEq for ShownSeats {
    fn eq(&self, other: &ShownSeats) -> bool {
        self.same(other) || self.0 == other.0
    }
}

impl Eq for ShownSeats {}

impl fmt::Debug for ShownSeats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl From<Vec<SeatView>> for ShownSeats {
    fn from(views: Vec<SeatView>) -> ShownSeats {
        ShownSeats::new(views)
    }
}

impl Serialize for ShownSeats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ShownSeats {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ShownSeats, D::Error> {
        Vec::<SeatView>::deserialize(deserializer).map(ShownSeats::new)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ShownSeats {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Encoded<Vec<SeatView>>>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Encoded<Vec<SeatView>>>::json_schema(generator)
    }

    fn inline_schema() -> bool {
        <Encoded<Vec<SeatView>>>::inline_schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeatKind;
    use parlor_rules::games::Seat;

    fn open(seat: Seat) -> SeatView {
        SeatView {
            seat,
            kind: SeatKind::Open,
            name: None,
            player_id: None,
            connected: false,
            rating: None,
            bot_account: false,
            stand_in_for: None,
            grace_left_ms: None,
            claim_left_ms: None,
        }
    }

    #[test]
    fn written_as_the_views_are_and_read_back() {
        let views = vec![open(Seat::First), open(Seat::Second)];
        let seats = ShownSeats::new(views.clone());
        let written = serde_json::to_string(&seats).unwrap();
        assert_eq!(written, serde_json::to_string(&views).unwrap());
        // A second write uses the JSON kept, inside another message too.
        let wrapped = serde_json::to_value(serde_json::json!({ "seats": seats.clone() }));
        assert_eq!(wrapped.unwrap()["seats"][1]["seat"], 1);
        let read: ShownSeats = serde_json::from_str(&written).unwrap();
        assert_eq!(read, seats);
        assert!(!read.same(&seats));
    }
}
