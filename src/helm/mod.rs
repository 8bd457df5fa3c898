//! Helm's template environment on top of [`crate::template`].
//!
//! So far: the most used of Helm's own and Sprig's functions
//! ([`funcs::add_funcs`]). Chart loading and rendering come later.

pub mod chart;
pub mod funcs;
pub mod gonet;
pub mod json;
pub mod semver;
pub mod signatures;
pub mod sprig;
pub mod toml;
pub(crate) mod yaml_json;

use crate::template::Error;

/// One step of Helm's error trace (`TraceableError` in Helm's engine).
fn trace_step(go: &str) -> Option<String> {
    let rest = go.strip_prefix("template: ")?;
    if rest.starts_with("no template ") {
        return Some(format!("{go}\n"));
    }
    let cut = |m: &str| {
        m.find(" template:")
            .map_or(m.to_string(), |i| m[..i].to_string())
    };
    if let Some((loc, after)) = rest.split_once(": executing \"") {
        let (func, after) = after.split_once('"')?;
        let after = after.strip_prefix(" at <")?;
        let (ctx, msg) = after.split_once(">: ")?;
        return Some(format!(
            "{loc}\n  executing \"{func}\" at <{ctx}>:\n    {}\n",
            cut(msg)
        ));
    }
    let sep = rest.rfind(": ")?;
    Some(format!("{}\n  {}\n", &rest[..sep], cut(&rest[sep + 2..])))
}

/// The text `helm template` prints for a template error: Helm rewrites
/// Go's messages (`cleanupParseError`, `reformatExecErrorMsg` in Helm's
/// engine).
pub fn error_text(e: &Error) -> String {
    let go = e.to_string();
    if e.is_parse_error() {
        let tokens: Vec<&str> = go.split(": ").collect();
        if tokens.len() < 2 {
            return go;
        }
        return format!(
            "parse error at ({}): {}",
            tokens[1],
            tokens[tokens.len() - 1]
        );
    }
    if let (Some(s), Some(end)) = (go.find(funcs::ERR_START), go.find(funcs::ERR_END)) {
        let loc = go.split(": ").nth(1).unwrap_or("");
        return format!(
            "execution error at ({loc}): {}",
            &go[s + funcs::ERR_START.len()..end]
        );
    }
    // The chain of wrapped errors: Go's message, then for `error calling
    // F: <inner>` the inner error, as long as each is a template error.
    let mut steps = Vec::new();
    let mut current = go.clone();
    loop {
        let Some(step) = trace_step(&current) else {
            return go;
        };
        if steps.last() != Some(&step) {
            steps.push(step);
        }
        let inner = current
            .split_once(">: error calling ")
            .and_then(|(_, r)| r.split_once(": "))
            .map(|(_, inner)| inner.to_string());
        match inner {
            Some(i) => current = i,
            None => break,
        }
    }
    steps.concat().trim().to_string()
}
