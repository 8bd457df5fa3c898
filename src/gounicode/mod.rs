//! Go's view of characters: the Unicode 15.0 data of Go's `unicode` and
//! `strconv` packages (Go 1.21 and later: Helm v4, Flux's controllers),
//! not the newer data of Rust's `char` methods and of the `regex` crate.
//!
//! A character assigned after Unicode 15.0 (new emoji, new scripts, new
//! letters of old ones) is unassigned to Go: `strconv.Quote` (`quote`,
//! `%q`) escapes it, `unicode.IsLetter` and the case mappings ignore it.
//! The tables ([`tables`]) are generated from ICU 72 by
//! `tools/gen_go_unicode.py`.

mod tables;

use tables::*;

/// The general category of `c` (ICU's numbering: [`tables::LU`] and the
/// like; [`tables::CN`] for an unassigned character).
fn category(c: char) -> u8 {
    let n = c as u32;
    if n < 0x80 {
        return ascii_category(n as u8);
    }
    let i = RUN_STARTS.partition_point(|&s| s <= n);
    CATEGORIES[i - 1]
}

fn ascii_category(b: u8) -> u8 {
    match b {
        b'A'..=b'Z' => LU,
        b'a'..=b'z' => LL,
        b'0'..=b'9' => ND,
        b' ' => ZS,
        0..=0x1f | 0x7f => CC,
        b'$' | b'+' | b'<' | b'=' | b'>' | b'^' | b'`' | b'|' | b'~' => match b {
            b'$' => SC,
            b'^' | b'`' => SK,
            _ => SM,
        },
        b'(' | b'[' | b'{' => PS,
        b')' | b']' | b'}' => PE,
        b'-' => PD,
        b'_' => PC,
        _ => PO,
    }
}

/// `unicode.IsLetter`: category L.
pub fn is_letter(c: char) -> bool {
    matches!(category(c), LU | LL | LT | LM | LO)
}

/// `unicode.IsUpper`: category Lu.
pub fn is_upper(c: char) -> bool {
    category(c) == LU
}

/// `unicode.IsLower`: category Ll.
pub fn is_lower(c: char) -> bool {
    category(c) == LL
}

/// `unicode.IsTitle`: category Lt.
pub fn is_title(c: char) -> bool {
    category(c) == LT
}

/// `unicode.IsDigit`: category Nd.
pub fn is_digit(c: char) -> bool {
    category(c) == ND
}

/// `unicode.IsNumber`: category N.
pub fn is_number(c: char) -> bool {
    matches!(category(c), ND | NL | NO)
}

/// `unicode.IsPunct`: category P.
pub fn is_punct(c: char) -> bool {
    matches!(category(c), PD | PS | PE | PC | PO | PI | PF)
}

/// `strconv.IsPrint` (and `unicode.IsPrint`): letters, marks, numbers,
/// punctuation, symbols, and the ASCII space (no other space).
pub fn is_print(c: char) -> bool {
    c == ' '
        || matches!(
            category(c),
            LU | LL
                | LT
                | LM
                | LO
                | MN
                | ME
                | MC
                | ND
                | NL
                | NO
                | PD
                | PS
                | PE
                | PC
                | PO
                | PI
                | PF
                | SM
                | SC
                | SK
                | SO
        )
}

/// `unicode.IsSpace`: Latin-1's white space, and the White_Space
/// property past it (unchanged since Unicode 6: Rust's is the same).
pub fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// What `table` maps `c` to, if it maps it.
fn mapped(c: char, table: &[(u32, u32, i32, u32)]) -> Option<char> {
    let n = c as u32;
    let i = table.partition_point(|&(_, hi, _, _)| hi < n);
    match table.get(i) {
        Some(&(lo, _, delta, step)) if lo <= n && (n - lo).is_multiple_of(step) => {
            char::from_u32(n.wrapping_add_signed(delta))
        }
        _ => None,
    }
}

fn map(c: char, table: &[(u32, u32, i32, u32)]) -> char {
    mapped(c, table).unwrap_or(c)
}

/// `unicode.ToLower`: the simple (one character) mapping.
pub fn to_lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    map(c, &TO_LOWER)
}

/// `unicode.ToUpper`: the simple (one character) mapping.
pub fn to_upper(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    map(c, &TO_UPPER)
}

/// `unicode.ToTitle`: the simple (one character) mapping.
pub fn to_title(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    mapped(c, &TITLE_NOT_UPPER).unwrap_or_else(|| to_upper(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_categories_agree_with_the_table_rules() {
        // Go's `unicode.IsPunct` and `IsSymbol` split ASCII's punctuation
        // as Unicode does.
        let punct: String = (0u8..0x80)
            .map(char::from)
            .filter(|&c| is_punct(c))
            .collect();
        assert_eq!(punct, "!\"#%&'()*,-./:;?@[\\]_{}");
        assert!(
            (0u8..0x80)
                .map(char::from)
                .all(|c| is_print(c) == (' '..='~').contains(&c))
        );
    }

    #[test]
    fn characters_assigned_after_unicode_15_are_unassigned() {
        // U+1C89, CYRILLIC CAPITAL LETTER TJE (Unicode 16), and an emoji
        // of Unicode 16 (U+1FAE9): Helm quotes them as "\u1c89" and
        // "\U0001fae9" and does not case them.
        for c in ['\u{1c89}', '\u{1c8a}', '\u{1fae9}', '\u{3134b}', '\u{378}'] {
            assert!(!is_print(c) && !is_letter(c), "{c:?}");
            assert_eq!(to_lower(c), c);
            assert_eq!(to_upper(c), c);
        }
        // And what Unicode 15 has: U+1FAE8 (SHAKING FACE), U+31350 (CJK
        // Extension H).
        assert!(is_print('\u{1fae8}') && is_print('\u{31350}') && is_letter('\u{31350}'));
    }

    #[test]
    fn simple_case_mappings() {
        assert_eq!(to_lower('\u{130}'), 'i');
        assert_eq!(to_upper('ß'), 'ß');
        assert_eq!(to_upper('ÿ'), 'Ÿ');
        assert_eq!(to_lower('Σ'), 'σ');
        assert_eq!(to_upper('ς'), 'Σ');
        assert_eq!(to_title('ǆ'), 'ǅ');
        assert_eq!(to_upper('ǆ'), 'Ǆ');
        assert_eq!(to_lower('Ā'), 'ā');
        assert_eq!(to_upper('ā'), 'Ā');
        assert_eq!(to_lower('ā'), 'ā');
        assert_eq!(to_upper('\u{1f80}'), '\u{1f88}');
        assert_eq!(to_upper('\u{10428}'), '\u{10400}');
    }
}
