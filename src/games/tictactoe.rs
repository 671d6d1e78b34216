//! Tic-tac-toe rules (being written).
