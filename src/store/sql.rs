//! SQL implementation of the store (being written).
