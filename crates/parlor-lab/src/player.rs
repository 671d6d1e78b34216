//! One side of a game between our own bots: a level at the run's budget, or the search
//! at a fixed node budget (a rung between levels too far apart to compare directly).

use std::fmt;
use std::str::FromStr;

use parlor_rules::bots::{BotLevel, Limits, Strength};
use serde::Serialize;

use crate::play::Budget;

/// A player in self-play: `random`, `easy`, `medium`, `hard`, or `nodes:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub(crate) enum Player {
    /// A level, with the run's budget for it.
    Level(BotLevel),
    /// `bot:hard`'s search stopped after this many positions a move, with no time
    /// limit: its strength depends on the seed alone, not on the machine.
    Nodes(u64),
}

impl Player {
    /// The level whose move-picking this player uses.
    pub(crate) fn level(self) -> BotLevel {
        match self {
            Player::Level(level) => level,
            Player::Nodes(_) => BotLevel::Hard,
        }
    }

    /// The limits of one move, thinking from now on the real clock.
    pub(crate) fn limits(self, budget: &Budget) -> Limits {
        match self {
            Player::Level(level) => budget.limits(level),
            Player::Nodes(nodes) => Limits {
                max_depth: Strength::HARD.max_depth,
                max_nodes: nodes.max(1),
                deadline: None,
            },
        }
    }

    /// The player and its budget, in words.
    pub(crate) fn describe(self, budget: &Budget) -> String {
        match self {
            Player::Level(level) => format!("{level} ({})", budget.describe_level(level)),
            Player::Nodes(nodes) => format!("nodes:{nodes} (hard's search, ≤ {nodes} nodes)"),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Level(level) => write!(f, "{level}"),
            Player::Nodes(nodes) => write!(f, "nodes:{nodes}"),
        }
    }
}

impl From<Player> for String {
    fn from(player: Player) -> String {
        player.to_string()
    }
}

impl FromStr for Player {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Some(nodes) = text.strip_prefix("nodes:") {
            return nodes
                .parse()
                .ok()
                .filter(|&nodes| nodes > 0)
                .map(Player::Nodes)
                .ok_or_else(|| format!("`{text}`: nodes:N needs a positive whole number"));
        }
        text.parse()
            .map(Player::Level)
            .map_err(|_| format!("no player `{text}`; use random, easy, medium, hard or nodes:N"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_read_and_print_as_written() {
        for text in ["random", "easy", "medium", "hard", "nodes:300"] {
            let player: Player = text.parse().unwrap();
            assert_eq!(player.to_string(), text);
        }
        assert_eq!("nodes:30".parse::<Player>(), Ok(Player::Nodes(30)));
        assert!("nodes:0".parse::<Player>().is_err());
        assert!("nodes:x".parse::<Player>().is_err());
        assert!("grandmaster".parse::<Player>().is_err());
    }

    #[test]
    fn a_node_budget_has_no_deadline() {
        let budget = crate::play::BudgetArgs::default().budget();
        let limits = Player::Nodes(300).limits(&budget);
        assert_eq!(limits.max_nodes, 300);
        assert!(limits.deadline.is_none());
        assert_eq!(Player::Nodes(300).level(), BotLevel::Hard);
    }
}
