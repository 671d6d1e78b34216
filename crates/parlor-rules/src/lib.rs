//! Parlor's rules: every game, every bot, and the object-safe text face rooms use.
//!
//! Nothing here does I/O, reads a clock or spawns a task; the compiler enforces it, as
//! this crate depends on no runtime or database (and on a JSON library only with its
//! `serde` feature, to keep what it writes encoded). Dependencies point one way:
//! [`games`] (pure rules) ← [`bots`] (strategies generic over a game) ← [`catalog`] (the
//! games behind one object-safe, text-in/text-out interface).
#![forbid(unsafe_code)]

pub mod bots;
mod by_name;
pub mod catalog;
pub mod encoded;
pub mod games;

pub use catalog::GameSettings;
pub use encoded::Encoded;
pub use games::GameKind;
