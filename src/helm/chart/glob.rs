//! The two glob dialects charts meet: Go's `filepath.Match` (`.helmignore`)
//! and gobwas/glob with `/` as separator (`.Files.Glob`: `**`, `{a,b}`).

/// Go's `filepath.Match` on `/`-separated names; `Err` for a bad pattern.
pub fn go_match(pattern: &str, name: &str) -> Result<bool, ()> {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Validate the whole pattern (Go reports a bad pattern even when the
    // name fails to match earlier).
    validate(&p)?;
    Ok(match_here(&p, &n, false))
}

fn validate(p: &[char]) -> Result<(), ()> {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' => {
                if i + 1 >= p.len() {
                    return Err(());
                }
                i += 2;
            }
            '[' => {
                let (_, next) = class(p, i, &'a').ok_or(())?;
                i = next;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Parses the class at `p[i] == '['`; returns whether `c` matches and the
/// index after `]`. `None` for a malformed class.
fn class(p: &[char], i: usize, c: &char) -> Option<(bool, usize)> {
    let mut j = i + 1;
    let negate = j < p.len() && (p[j] == '^' || p[j] == '!');
    if negate {
        j += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        if j >= p.len() {
            return None;
        }
        if p[j] == ']' && !first {
            j += 1;
            break;
        }
        first = false;
        let lo = if p[j] == '\\' {
            j += 1;
            *p.get(j)?
        } else {
            p[j]
        };
        j += 1;
        let mut hi = lo;
        if j + 1 < p.len() && p[j] == '-' && p[j + 1] != ']' {
            j += 1;
            hi = if p[j] == '\\' {
                j += 1;
                *p.get(j)?
            } else {
                p[j]
            };
            j += 1;
        }
        if lo <= *c && *c <= hi {
            matched = true;
        }
    }
    Some((matched != negate, j))
}

/// Matches `p` against `n`; `*` never crosses `/` unless `double` handling
/// (`**`) is on.
fn match_here(p: &[char], n: &[char], gobwas: bool) -> bool {
    if p.is_empty() {
        return n.is_empty();
    }
    match p[0] {
        '*' => {
            let super_star = gobwas && p.get(1) == Some(&'*');
            let rest = if super_star { &p[2..] } else { &p[1..] };
            for k in 0..=n.len() {
                if match_here(rest, &n[k..], gobwas) {
                    return true;
                }
                if k < n.len() && n[k] == '/' && !super_star {
                    return false;
                }
            }
            false
        }
        '?' => !n.is_empty() && n[0] != '/' && match_here(&p[1..], &n[1..], gobwas),
        '[' => {
            if n.is_empty() || n[0] == '/' {
                return false;
            }
            match class(p, 0, &n[0]) {
                Some((true, next)) => match_here(&p[next..], &n[1..], gobwas),
                _ => false,
            }
        }
        '\\' if p.len() > 1 => {
            !n.is_empty() && n[0] == p[1] && match_here(&p[2..], &n[1..], gobwas)
        }
        c => !n.is_empty() && n[0] == c && match_here(&p[1..], &n[1..], gobwas),
    }
}

/// Expands `{a,b}` alternatives (nested allowed) into plain patterns.
fn expand(p: &str) -> Vec<String> {
    let chars: Vec<char> = p.chars().collect();
    let mut depth = 0;
    let mut start = None;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => {
                if depth == 0 {
                    start = Some(i);
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let s = start.unwrap_or(0);
                    let prefix: String = chars[..s].iter().collect();
                    let suffix: String = chars[i + 1..].iter().collect();
                    let inner = &chars[s + 1..i];
                    let mut alts = Vec::new();
                    let mut cur = String::new();
                    let mut d = 0;
                    let mut k = 0;
                    while k < inner.len() {
                        let c = inner[k];
                        match c {
                            '\\' => {
                                cur.push(c);
                                if k + 1 < inner.len() {
                                    cur.push(inner[k + 1]);
                                }
                                k += 1;
                            }
                            '{' => {
                                d += 1;
                                cur.push(c);
                            }
                            '}' => {
                                d -= 1;
                                cur.push(c);
                            }
                            ',' if d == 0 => alts.push(std::mem::take(&mut cur)),
                            _ => cur.push(c),
                        }
                        k += 1;
                    }
                    alts.push(cur);
                    let mut out = Vec::new();
                    for a in alts {
                        out.extend(expand(&format!("{prefix}{a}{suffix}")));
                    }
                    return out;
                }
            }
            _ => {}
        }
        i += 1;
    }
    vec![p.to_string()]
}

/// A compiled `.Files.Glob` pattern.
pub struct FilesGlob {
    alts: Vec<Vec<char>>,
}

impl FilesGlob {
    /// Compiles a pattern; an invalid one matches everything (as Helm
    /// falls back to `**`).
    pub fn new(pattern: &str) -> Self {
        let alts: Vec<Vec<char>> = expand(pattern)
            .iter()
            .map(|a| a.chars().collect())
            .collect();
        if alts.iter().any(|a| validate(a).is_err()) {
            return FilesGlob {
                alts: vec!["**".chars().collect()],
            };
        }
        FilesGlob { alts }
    }

    pub fn matches(&self, name: &str) -> bool {
        let n: Vec<char> = name.chars().collect();
        self.alts.iter().any(|a| match_here(a, &n, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_filepath_match() {
        assert_eq!(go_match("*.txt", "a.txt"), Ok(true));
        assert_eq!(go_match("*.txt", "d/a.txt"), Ok(false));
        assert_eq!(go_match("a?c", "abc"), Ok(true));
        assert_eq!(go_match("[a-c]x", "bx"), Ok(true));
        assert_eq!(go_match("[^a-c]x", "bx"), Ok(false));
        assert_eq!(go_match("[", "a"), Err(()));
        assert_eq!(go_match("templates/.?*", "templates/.x"), Ok(true));
        assert_eq!(go_match("templates/.?*", "templates/x"), Ok(false));
    }

    #[test]
    fn files_glob() {
        let g = FilesGlob::new("files/*.conf");
        assert!(g.matches("files/a.conf"));
        assert!(!g.matches("files/d/a.conf"));
        let g = FilesGlob::new("files/**");
        assert!(g.matches("files/d/a.conf"));
        let g = FilesGlob::new("{a,b}/*.{yaml,json}");
        assert!(g.matches("b/x.json"));
        assert!(!g.matches("c/x.json"));
    }
}
