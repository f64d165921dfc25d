//! Ranks and ratios: a cell's colour from its rank among a step's rows
//! (`rank_values`, applied per metric by `summary::rank_step`), the base a
//! relative table divides by, and a ratio against it with its class.

use super::metrics::Better;

/// Colour class of a cell from its rank within the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rank {
    /// Top quarter.
    Top,
    /// Bottom quarter, and the worst is not within 80% of the best.
    Bottom,
    Middle,
}

/// The ranking rule of `summary::rank_step` on one list of values.
pub fn rank_values(vals: &[f64], better: Better) -> Vec<Option<Rank>> {
    let n = vals.len();
    if n < 2 || better == Better::Neither {
        return vec![None; n];
    }
    let higher = better == Better::Higher;
    let best = if higher {
        vals.iter().cloned().fold(f64::MIN, f64::max)
    } else {
        vals.iter().cloned().fold(f64::MAX, f64::min)
    };
    let worst = if higher {
        vals.iter().cloned().fold(f64::MAX, f64::min)
    } else {
        vals.iter().cloned().fold(f64::MIN, f64::max)
    };
    if best == worst {
        return vec![None; n];
    }
    let close = if higher { best > 0.0 && worst / best >= 0.8 } else { worst > 0.0 && best / worst >= 0.8 };
    vals.iter()
        .map(|&v| {
            // Rank = number of strictly better values.
            let rank = vals.iter().filter(|&&o| if higher { o > v } else { o < v }).count();
            let pos = rank as f64 / (n - 1) as f64;
            Some(if pos <= 0.25 {
                Rank::Top
            } else if pos >= 0.75 && !close {
                Rank::Bottom
            } else {
                Rank::Middle
            })
        })
        .collect()
}

/// What the relative table divides by.
#[derive(Debug, Clone, PartialEq)]
pub enum Base {
    /// Every row against the same row: a row label (`run/config`) or config name
    /// (its first row in each step).
    Row(String),
    /// Each row against the row of the same config in this run (index into runs).
    Run(usize),
}

/// Ratio cell class: below 0.95, above 1.05 or in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatioClass {
    Below,
    Within,
    Above,
}

pub const RATIO_LOW: f64 = 0.95;
pub const RATIO_HIGH: f64 = 1.05;

pub fn ratio_class(r: f64) -> RatioClass {
    if r < RATIO_LOW {
        RatioClass::Below
    } else if r > RATIO_HIGH {
        RatioClass::Above
    } else {
        RatioClass::Within
    }
}

pub fn ratio(value: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (value, base) {
        (Some(v), Some(b)) if b != 0.0 => Some(v / b),
        (Some(v), Some(b)) if b == 0.0 && v == 0.0 => Some(1.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_quarter_with_the_80_percent_rule() {
        use Rank::*;
        // Higher is better: 100 best, 10 worst (far apart).
        assert_eq!(rank_values(&[100.0, 10.0, 50.0], Better::Higher), vec![Some(Top), Some(Bottom), Some(Middle)]);
        // Worst within 80% of the best: no red.
        assert_eq!(rank_values(&[100.0, 85.0, 90.0], Better::Higher), vec![Some(Top), Some(Middle), Some(Middle)]);
        // Lower is better.
        assert_eq!(
            rank_values(&[1.0, 5.0, 2.0, 3.0, 4.0], Better::Lower),
            vec![Some(Top), Some(Bottom), Some(Top), Some(Middle), Some(Bottom)]
        );
        assert_eq!(rank_values(&[1.0, 1.1], Better::Lower), vec![Some(Top), Some(Middle)]);
        // Ties share the better rank; all equal: no colour.
        assert_eq!(rank_values(&[3.0, 3.0, 1.0], Better::Higher), vec![Some(Top), Some(Top), Some(Bottom)]);
        assert_eq!(rank_values(&[2.0, 2.0], Better::Higher), vec![None, None]);
        assert_eq!(rank_values(&[2.0], Better::Higher), vec![None]);
        assert_eq!(rank_values(&[2.0, 1.0], Better::Neither), vec![None, None]);
    }
}
