//! The YAML layer: a node model with resolved scalars, a parser built on
//! yaml-rust2, and a writer that prints exactly what kustomize prints.

pub mod emit;
pub mod fast;
pub mod goerr;
pub mod node;
pub mod parse;
pub mod resolve;

pub use emit::{stream_to_string, to_string};
pub use node::{Map, Node, PRINT_FLOW, PRINT_FOLDED, PRINT_LITERAL, node_text};
pub use parse::{Document, ParseError, parse_one, parse_stream};
