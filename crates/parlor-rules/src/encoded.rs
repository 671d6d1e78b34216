//! A value written on the wire from JSON encoded the first time it is written, and kept:
//! for the parts of a frame that are sent again and again unchanged (a game's cell
//! labels, a room's seats).

use std::fmt;
use std::ops::Deref;
#[cfg(feature = "serde")]
use std::sync::OnceLock;

/// `T`, read as itself, and written as the JSON it gave the first time it was written.
pub struct Encoded<T> {
    value: T,
    /// The value as JSON, once first written.
    #[cfg(feature = "serde")]
    json: OnceLock<Box<serde_json::value::RawValue>>,
}

impl<T> Encoded<T> {
    /// `value`, not encoded yet.
    pub const fn new(value: T) -> Encoded<T> {
        Encoded {
            value,
            #[cfg(feature = "serde")]
            json: OnceLock::new(),
        }
    }
}

impl<T> Deref for Encoded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Encoded<T> {
    fn eq(&self, other: &Encoded<T>) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Encoded<T> {}

impl<T: fmt::Debug> fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value, f)
    }
}

/// Written from the JSON kept, which serde_json writes as it is (the values kept so are
/// only ever written by serde_json); encoded the first time. Should encoding ever fail,
/// the value is written as it is.
#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Encoded<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(json) = self.json.get() {
            return json.serialize(serializer);
        }
        match serde_json::value::to_raw_value(&self.value) {
            Ok(json) => self.json.get_or_init(|| json).serialize(serializer),
            Err(_) => self.value.serialize(serializer),
        }
    }
}

/// Described as `T` is: the wire form is the same.
#[cfg(feature = "schema")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Encoded<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }

    fn inline_schema() -> bool {
        T::inline_schema()
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn written_as_the_value_every_time() {
        let encoded = Encoded::new(vec![None, Some("a\"1".to_owned())]);
        let plain = serde_json::to_string(&*encoded).unwrap();
        assert_eq!(serde_json::to_string(&encoded).unwrap(), plain);
        assert_eq!(serde_json::to_string(&encoded).unwrap(), plain);
        let inside = serde_json::to_value(serde_json::json!({ "v": encoded })).unwrap();
        assert_eq!(inside["v"][1], "a\"1");
    }
}
