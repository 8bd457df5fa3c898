//! The YAML layer: a node model with resolved scalars, a parser built on
//! yaml-rust2, and a writer that prints exactly what kustomize prints.

pub mod emit;
pub mod fast;
pub mod goerr;
pub mod node;
pub mod parse;
pub mod resolve;

pub use emit::{stream_to_string, to_string};

/// How many bytes at the start of `b` satisfy `ok` (a run of characters
/// the readers and the emitter take whole).
pub(crate) fn run_len(b: &[u8], ok: impl Fn(u8) -> bool) -> usize {
    b.iter().take_while(|&&c| ok(c)).count()
}

/// Whether any byte of `b` satisfies `f`: in blocks without a branch per
/// byte, which the compiler makes vector code of (for the checks that look
/// at every byte of a text; `f` must be branch-free too).
pub(crate) fn any_byte(b: &[u8], f: impl Fn(u8) -> bool) -> bool {
    b.chunks(64)
        .any(|c| c.iter().fold(false, |acc, &x| acc | f(x)))
}
pub use node::{Map, Node, PRINT_FLOW, PRINT_FOLDED, PRINT_LITERAL, node_text};
pub use parse::{Document, ParseError, parse_one, parse_stream};
