//! Writing an enum whose values have fixed names on the wire as those names.

/// Implements `serde::Serialize` for each type named, writing a value as the
/// `&'static str` its `strum::IntoStaticStr` gives: the text its `Display` shows, written
/// as one string. Formatting through `Display` instead (what `serde_with`'s
/// `SerializeDisplay` does) makes serde_json escape what `Display` writes piece by piece,
/// about 200 instructions a value, several times in every `state` a room sends.
#[macro_export]
macro_rules! serialize_by_name {
    ($($name:ty),+ $(,)?) => {$(
        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(<&'static str>::from(self))
            }
        }
    )+};
}
