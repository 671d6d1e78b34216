//! Values with one wire name each: the name is written once, in the type's `as_str`, and
//! parsing, printing and serde (behind the `serde` feature) all go through it.

/// For a type with `ALL` (every value) and `as_str` (each one's name): implements
/// `FromStr` (a name not in `ALL` is `$unknown(name)`), `Display` through `as_str`, and
/// with the `serde` feature, `Serialize` through `as_str` and `Deserialize` through
/// `FromStr`, so no second list of names can drift from the first.
macro_rules! wire_name {
    ($type:ty, $unknown:ident) => {
        impl std::str::FromStr for $type {
            type Err = $unknown;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                <$type>::ALL
                    .into_iter()
                    .find(|value| value.as_str() == text)
                    .ok_or_else(|| $unknown(text.to_owned()))
            }
        }

        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use wire_name;
