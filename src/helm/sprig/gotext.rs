//! Go's view of characters, for Sprig's string functions: the `unicode`
//! package's categories (`IsUpper` is the category Lu, where Rust's
//! `is_uppercase` is the wider Uppercase property: `Ⅰ`, `Ⓐ`) and its
//! simple case mappings (one character to one: `unicode.ToLower('İ')` is
//! `i`, `ToUpper('ß')` is `ß`, and `Σ` lowers to `σ` at a word's end too,
//! where Rust's string mappings give `i̇`, `SS` and `ς`), and xstrings'
//! word splitting (`snakecase`, `kebabcase`, `camelcase`).

pub use crate::gounicode::{
    is_letter, is_lower, is_number, is_punct, is_space, is_title, is_upper, to_lower, to_title,
    to_upper,
};

/// `strings.ToUpper`.
pub fn upper(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    s.chars().map(to_upper).collect()
}

/// `strings.ToLower`.
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars().map(to_lower).collect()
}

/// Go's `utf8.RuneError`, which xstrings takes for a byte it cannot
/// decode (a Rust string has none, but may hold the character itself).
const RUNE_ERROR: char = '\u{FFFD}';

#[derive(Clone, Copy, PartialEq, Debug)]
enum Word {
    Invalid,
    Number,
    Upper,
    Alphabet,
    Connector,
    Punct,
    Other,
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || is_space(c)
}

/// A letter that is not a CJK ideograph (xstrings' `isAlphabet`).
fn is_alphabet(c: char) -> bool {
    is_letter(c)
        && !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

/// The next character that is not `RUNE_ERROR` and the length up to its
/// end; `prev` when there is none.
fn next_valid(s: &str, prev: char) -> (char, usize) {
    let mut size = 0;
    for c in s.chars() {
        size += c.len_utf8();
        if c != RUNE_ERROR {
            return (c, size);
        }
    }
    (prev, size)
}

/// xstrings' `nextWord`: the kind of the next word, the word and what
/// follows it.
fn next_word(s: &str) -> (Word, &str, &str) {
    if s.is_empty() {
        return (Word::Invalid, "", "");
    }
    let (mut r, mut size) = next_valid(s, RUNE_ERROR);
    let mut offset = size;
    let mut remaining = &s[size..];
    if r == RUNE_ERROR {
        return (Word::Invalid, &s[..offset], remaining);
    }
    // Extends the word while `more` holds for the next character.
    let run =
        |more: &dyn Fn(char) -> bool, r: &mut char, offset: &mut usize, remaining: &mut &str| {
            while !remaining.is_empty() {
                let (c, size) = next_valid(remaining, *r);
                *r = c;
                if !more(c) {
                    break;
                }
                *offset += size;
                *remaining = &remaining[size..];
            }
        };
    let wt;
    if is_connector(r) {
        wt = Word::Connector;
        run(&is_connector, &mut r, &mut offset, &mut remaining);
    } else if is_punct(r) {
        wt = Word::Punct;
        run(&is_punct, &mut r, &mut offset, &mut remaining);
    } else if is_upper(r) {
        wt = Word::Upper;
        if !remaining.is_empty() {
            (r, size) = next_valid(remaining, r);
            if is_upper(r) {
                let mut prev_size = size;
                offset += size;
                remaining = &remaining[size..];
                while !remaining.is_empty() {
                    (r, size) = next_valid(remaining, r);
                    if !is_upper(r) {
                        break;
                    }
                    prev_size = size;
                    offset += size;
                    remaining = &remaining[size..];
                }
                // "HTTPStatus" is "HTTP" and "Status".
                if !remaining.is_empty() && is_alphabet(r) {
                    offset -= prev_size;
                    remaining = &s[offset..];
                }
            } else if is_alphabet(r) {
                offset += size;
                remaining = &remaining[size..];
                run(
                    &|c| is_alphabet(c) && !is_upper(c),
                    &mut r,
                    &mut offset,
                    &mut remaining,
                );
            }
        }
    } else if is_alphabet(r) {
        wt = Word::Alphabet;
        run(
            &|c| is_alphabet(c) && !is_upper(c),
            &mut r,
            &mut offset,
            &mut remaining,
        );
    } else if is_number(r) {
        wt = Word::Number;
        run(&is_number, &mut r, &mut offset, &mut remaining);
    } else {
        wt = Word::Other;
        while !remaining.is_empty() {
            let (c, size) = next_valid(remaining, r);
            if size == 0 || is_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c) {
                break;
            }
            offset += size;
            remaining = &remaining[size..];
        }
    }
    (wt, &s[..offset], remaining)
}

/// xstrings' `toLower`: upper-case words and connectors are lowered (a
/// connector becomes `conn`); other words are written as they are.
fn lower_word(buf: &mut String, wt: Word, s: &str, conn: char) {
    if wt != Word::Upper && wt != Word::Connector {
        buf.push_str(s);
        return;
    }
    for c in s.chars() {
        if is_connector(c) {
            buf.push(conn);
        } else if is_upper(c) {
            buf.push(to_lower(c));
        } else {
            buf.push(c);
        }
    }
}

/// xstrings' `ToSnakeCase` (`conn` `_`) and `ToKebabCase` (`-`).
pub fn connected_lower(s: &str, conn: char) -> String {
    use Word::*;
    let mut buf = String::with_capacity(s.len() + 4);
    if s.is_empty() {
        return buf;
    }
    let (mut wt, mut word, mut remaining) = next_word(s);
    while !remaining.is_empty() {
        if wt != Connector {
            lower_word(&mut buf, wt, word, conn);
        }
        let (prev, last) = (wt, word);
        (wt, word, remaining) = next_word(remaining);
        match prev {
            Number => {
                while wt == Alphabet || wt == Number {
                    lower_word(&mut buf, wt, word, conn);
                    (wt, word, remaining) = next_word(remaining);
                }
                if !matches!(wt, Invalid | Punct | Connector) {
                    buf.push(conn);
                }
            }
            Connector => lower_word(&mut buf, prev, last, conn),
            Punct => {}
            _ => {
                if wt != Number {
                    if !matches!(wt, Connector | Punct) {
                        buf.push(conn);
                    }
                    continue;
                }
                if remaining.is_empty() {
                    continue;
                }
                let number = word;
                (wt, word, remaining) = next_word(remaining);
                // A number is part of the word before it ("Bld4Floor" is
                // "bld4_floor") unless letters follow it ("HTTP2xx" is
                // "http_2xx").
                if wt != Alphabet {
                    lower_word(&mut buf, Number, number, conn);
                    if !matches!(wt, Connector | Punct) {
                        buf.push(conn);
                    }
                    continue;
                }
                buf.push(conn);
                lower_word(&mut buf, Number, number, conn);
                while wt == Alphabet || wt == Number {
                    lower_word(&mut buf, wt, word, conn);
                    (wt, word, remaining) = next_word(remaining);
                }
                if !matches!(wt, Invalid | Connector | Punct) {
                    buf.push(conn);
                }
            }
        }
    }
    lower_word(&mut buf, wt, word, conn);
    buf
}

/// Sprig's `camelcase` (xstrings' `ToCamelCase` as Helm v4.1.4 has it):
/// connectors (`-`, `_`, spaces) dropped and the character after each
/// upper-cased; leading connectors and all but the last of a run of
/// connectors kept; a word that starts with a capital has the capitals
/// right after it lowered (`HTTPServer` is `Httpserver`, `NoHTTPS` stays).
pub fn camel(s: &str) -> String {
    let mut buf = String::with_capacity(s.len());
    let mut chars = s.chars();
    let mut r0 = '\0';
    let mut read = false;
    let mut rest_empty = true;
    let mut lowering = false;
    for c in chars.by_ref() {
        read = true;
        if !is_connector(c) {
            lowering = is_upper(c);
            r0 = to_upper(c);
            rest_empty = chars.as_str().is_empty();
            break;
        }
        buf.push(c);
        r0 = c;
    }
    if rest_empty {
        // Go writes the last character read once more here: a string of
        // connectors only ends with one more of them.
        if read {
            buf.push(r0);
        }
        return buf;
    }
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            buf.push(r1);
            continue;
        }
        if is_connector(r1) {
            lowering = is_upper(r0);
            r0 = to_upper(r0);
        } else {
            if lowering {
                if is_upper(r0) {
                    r0 = to_lower(r0);
                } else {
                    lowering = false;
                }
            }
            buf.push(r1);
        }
    }
    buf.push(r0);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xstrings_examples() {
        // The examples of xstrings' own documentation.
        for (s, snake) in [
            ("FirstName", "first_name"),
            ("HTTPServer", "http_server"),
            ("NoHTTPS", "no_https"),
            ("GO_PATH", "go_path"),
            ("GO PATH", "go_path"),
            ("GO-PATH", "go_path"),
            ("http2xx", "http_2xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
        ] {
            assert_eq!(connected_lower(s, '_'), snake, "{s}");
        }
        for (s, c) in [
            ("some_words", "SomeWords"),
            ("http_server", "HttpServer"),
            ("no_https", "NoHttps"),
            ("_complex__case_", "_Complex_Case_"),
            ("some words", "SomeWords"),
            // Recorded from Helm v4.1.4.
            ("HTTPServer", "Httpserver"),
            ("NoHTTPS", "NoHTTPS"),
            ("aBC", "ABC"),
            ("A BCdE", "ABcdE"),
            ("__", "___"),
        ] {
            assert_eq!(camel(s), c, "{s}");
        }
    }

    #[test]
    fn simple_case_mappings() {
        assert_eq!(lower("İΣ"), "iσ");
        assert_eq!(upper("ßﬁᾳ"), "ßﬁᾼ");
        assert_eq!(to_title('ǆ'), 'ǅ');
        assert!(!is_upper('Ⅰ') && 'Ⅰ'.is_uppercase());
        assert!(is_title('ǅ') && !is_upper('ǅ'));
    }
}
