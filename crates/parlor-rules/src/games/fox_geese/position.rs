//! The position text `side:Ffox:Ggeese`, and which positions play can reach.

use super::Side;
use super::board::{GEESE_START, POINTS, Point};

/// Reads `side:Ffox:Ggeese` into the side to move, the fox's point and the geese as a
/// bit set, refusing any position play could not reach (see [`check_reachable`]). The
/// error says what is wrong.
pub(super) fn parse(position: &str) -> Result<(Side, Point, u64), String> {
    let mut parts = position.split(':');
    let (Some(side), Some(fox), Some(geese), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("expected three fields, `side:Ffox:Ggeese`".to_owned());
    };
    let to_move = match side {
        "G" => Side::Geese,
        "F" => Side::Fox,
        _ => return Err("the side to move must be `G` or `F`".to_owned()),
    };
    let fox = fox
        .strip_prefix('F')
        .and_then(Point::parse)
        .ok_or("the fox must be `F` and a point from 1 to 33")?;
    let list = geese
        .strip_prefix('G')
        .ok_or("the geese must be `G` and a list of points")?;
    let mut set = 0u64;
    let mut last: Option<Point> = None;
    if !list.is_empty() {
        for text in list.split(',') {
            let p = Point::parse(text).ok_or("each goose must be a point from 1 to 33")?;
            if last.is_some_and(|last| p <= last) {
                return Err("the geese must be listed in ascending order, once".to_owned());
            }
            if p == fox {
                return Err("a goose cannot stand on the fox's point".to_owned());
            }
            set |= p.bit();
            last = Some(p);
        }
    }
    check_reachable(set)?;
    Ok((to_move, fox, set))
}

/// Refuses geese no game can reach. A game never gains a goose, and a goose never moves
/// down, so no more geese can stand on or below any row than start there (derived from
/// the start: 13 on points 21–33, 6 on 28–33, 3 on 31–33). On this board each of those
/// is also the number of points there, so in practice the total of 13 is what refuses a
/// position; the row check stays so that the rule holds if the start ever changes.
/// Any placement of at most 13 geese is otherwise reachable as far as the geese are
/// concerned, since they step sideways and up freely and the fox can take any of them,
/// and the fox may stand on any empty point. Not checked, because they bound nothing:
/// tempo (geese still on all their start points have never moved, so the fox is near
/// 17) and positions the rules would already have ended, which start finished.
pub(super) fn check_reachable(geese: u64) -> Result<(), String> {
    check_against(geese, GEESE_START)
}

/// [`check_reachable`] for a game whose geese start on `start`.
fn check_against(geese: u64, start: u64) -> Result<(), String> {
    let most = start.count_ones();
    if geese.count_ones() > most {
        return Err(format!(
            "{} geese, but the game starts with {most} and never gains one",
            geese.count_ones()
        ));
    }
    let rows = (0..POINTS as u8)
        .map(|i| Point(i).coords().1)
        .max()
        .unwrap_or(0);
    for row in (0..=rows).rev() {
        let below = |set: u64| {
            (0..POINTS as u8)
                .map(Point)
                .filter(|p| set & p.bit() != 0 && p.coords().1 >= row)
                .count()
        };
        let (here, there) = (below(geese), below(start));
        if here > there {
            let first = (0..POINTS as u8)
                .map(Point)
                .find(|p| p.coords().1 >= row)
                .map_or(1, Point::number);
            return Err(format!(
                "{here} geese on points {first}–{POINTS}, but only {there} start there and \
                 geese never move down"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_more_geese_below_a_row_than_start_there() {
        // On the real board each row's limit is also its number of points, so try a
        // start on points 1–13 (rows 0–2): geese may then never stand lower than row 2.
        let high = (1 << 13) - 1;
        assert_eq!(check_against(high, high), Ok(()));
        assert_eq!(check_against(0b111 << 10, high), Ok(()));
        assert_eq!(
            check_against(1 << 13 | 1, high),
            Err(
                "1 geese on points 14–33, but only 0 start there and geese never move down"
                    .to_owned()
            )
        );
        assert_eq!(check_against(GEESE_START, GEESE_START), Ok(()));
    }
}
