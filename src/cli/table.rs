//! Tables that fit the terminal: columns marked wide are shown with
//! `-o wide` only, and on a terminal (or with `COLUMNS` set) the widest
//! cells are cut with '…' so that a line fits.

use std::io::IsTerminal;

/// One column: its header and whether only `-o wide` shows it.
pub struct Col {
    pub header: &'static str,
    pub wide: bool,
}

pub const fn col(header: &'static str) -> Col {
    Col {
        header,
        wide: false,
    }
}

pub const fn wide(header: &'static str) -> Col {
    Col { header, wide: true }
}

/// The width to fit: `COLUMNS`, else the terminal's when standard output
/// is one, else none.
pub fn width() -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
    {
        return Some(c);
    }
    if std::io::stdout().is_terminal() {
        return terminal_size::terminal_size().map(|(w, _)| w.0 as usize);
    }
    None
}

/// The table text: the columns shown (all with `wide`), cut to `limit`.
pub fn render(cols: &[Col], rows: &[Vec<String>], wide: bool, limit: Option<usize>) -> String {
    let shown: Vec<usize> = (0..cols.len()).filter(|&i| wide || !cols[i].wide).collect();
    let mut widths: Vec<usize> = shown.iter().map(|&i| cols[i].header.len()).collect();
    for r in rows {
        for (j, &i) in shown.iter().enumerate() {
            widths[j] = widths[j].max(r.get(i).map_or(0, |c| c.chars().count()));
        }
    }
    if let Some(limit) = limit.filter(|_| !wide) {
        // Shrink the widest columns until the line fits (none below its
        // header, nor below 8 characters).
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
        while total(&widths) > limit {
            let floor = |j: usize| cols[shown[j]].header.len().max(8);
            // One character at a time from the widest column that can
            // still shrink, so that wide columns shrink together.
            let Some(j) = (0..widths.len())
                .filter(|&j| widths[j] > floor(j))
                .max_by_key(|&j| widths[j])
            else {
                break;
            };
            widths[j] -= 1;
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (j, c) in cells.iter().enumerate() {
            let cut = cut(c, widths[j]);
            if j + 1 == cells.len() {
                s.push_str(&cut);
            } else {
                s.push_str(&format!("{:w$}  ", cut, w = widths[j]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(shown.iter().map(|&i| cols[i].header).collect());
    for r in rows {
        out.push_str(&line(
            shown
                .iter()
                .map(|&i| r.get(i).map_or("", String::as_str))
                .collect(),
        ));
    }
    out
}

fn cut(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_the_width_and_hides_wide_columns() {
        let cols = [col("NAME"), col("MESSAGE"), wide("EXTRA")];
        let rows = vec![vec![
            "podinfo".to_string(),
            "x".repeat(200),
            "more".to_string(),
        ]];
        let t = render(&cols, &rows, false, Some(60));
        assert!(t.lines().all(|l| l.chars().count() <= 60), "{t}");
        assert!(!t.contains("EXTRA"), "{t}");
        assert!(t.contains('…'), "{t}");
        let w = render(&cols, &rows, true, Some(60));
        assert!(w.contains("EXTRA") && w.contains(&"x".repeat(200)), "{w}");
        let none = render(&cols, &rows, false, None);
        assert!(none.contains(&"x".repeat(200)), "{none}");
    }
}
