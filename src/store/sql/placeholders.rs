//! The parameters of statements generated per batch: SQLite's anonymous `?` or
//! PostgreSQL's numbered `$N`, written row by row.

use std::fmt::Write as _;

/// How a generated statement writes its parameters for the connected database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Placeholders {
    /// `?`: SQLite's anonymous parameters, bound in order. sqlx asks SQLite for the name
    /// of every parameter it binds, and SQLite finds a named one (`$N`) by scanning the
    /// statement's list of names, so binding N named parameters takes time N²: for a
    /// batch of 256 moves (2,048 parameters) that scan was most of the `INSERT`'s cost.
    Anonymous,
    /// `$1, $2, …`: what PostgreSQL needs.
    Numbered,
}

impl Placeholders {
    /// Appends `rows` parenthesised rows of `columns` parameters each, comma-separated,
    /// numbered from 1 where numbers are needed.
    pub(super) fn push_rows(self, sql: &mut String, rows: usize, columns: usize) {
        self.push_rows_cast(sql, rows, columns, |_| None);
    }

    /// Like [`Placeholders::push_rows`], with each parameter cast to its column's SQL
    /// type, one per entry of `types`: for a `VALUES` list that is not an `INSERT`'s,
    /// whose types PostgreSQL cannot infer.
    pub(super) fn push_typed_rows(self, sql: &mut String, rows: usize, types: &[&str]) {
        self.push_rows_cast(sql, rows, types.len(), |column| Some(types[column]));
    }

    fn push_rows_cast<'t>(
        self,
        sql: &mut String,
        rows: usize,
        columns: usize,
        cast: impl Fn(usize) -> Option<&'t str>,
    ) {
        for row in 0..rows {
            sql.push_str(if row > 0 { ", (" } else { "(" });
            for column in 0..columns {
                if column > 0 {
                    sql.push_str(", ");
                }
                let cast = cast(column);
                if cast.is_some() {
                    sql.push_str("CAST(");
                }
                match self {
                    Placeholders::Anonymous => sql.push('?'),
                    // Writing to a String cannot fail.
                    Placeholders::Numbered => {
                        let _ = write!(sql, "${}", row * columns + column + 1);
                    }
                }
                if let Some(sql_type) = cast {
                    let _ = write!(sql, " AS {sql_type})");
                }
            }
            sql.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Placeholders;

    #[test]
    fn generated_rows_use_the_databases_placeholders() {
        let mut sqlite = String::new();
        Placeholders::Anonymous.push_rows(&mut sqlite, 2, 3);
        assert_eq!(sqlite, "(?, ?, ?), (?, ?, ?)");
        let mut postgres = String::new();
        Placeholders::Numbered.push_rows(&mut postgres, 2, 3);
        assert_eq!(postgres, "($1, $2, $3), ($4, $5, $6)");
    }
}
