//! Go's `text/template` language, written from its specification: a lexer
//! and parser ([`parse`]), an executor over [`Value`] ([`exec`]), Go's
//! built-in functions and `fmt` printing ([`value`]).
//!
//! The engine knows nothing of Helm: callers add functions with
//! [`Templates::add_func`] and post-process output as they need (Helm, for
//! one, replaces `<no value>` with an empty string).

pub mod exec;
pub(crate) mod memo;
pub mod parse;
pub mod speculate;
pub mod value;

use std::collections::HashSet;

// Template and function names are looked up on every call: foldhash
// (seeded per process, as the YAML maps' index) instead of SipHash.
type HashMap<K, V> = foldhash::HashMap<K, V>;
use std::fmt;
use std::sync::Arc;

pub use exec::{Exec, Func, GoType, Sig};
pub use value::{Json, MAX_VALUE_DEPTH, Map, Object, Value};

/// A parse or execution error, printed the way Go prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// Name of the parsed text the error points into.
    pub name: String,
    pub line: usize,
    /// Byte column (0-based, as Go counts it) for execution errors.
    pub col: Option<usize>,
    /// Name of the template being executed (execution errors only).
    pub executing: Option<String>,
    /// The source text of the node being evaluated (execution errors only).
    pub context: String,
    pub message: String,
}

impl Error {
    pub(crate) fn parse(name: &str, line: usize, message: String) -> Error {
        Error {
            name: name.to_string(),
            line,
            col: None,
            executing: None,
            context: String::new(),
            message,
        }
    }

    /// An error raised outside any template (unknown template name).
    pub(crate) fn plain(message: String) -> Error {
        Error::parse("", 0, message)
    }

    pub fn is_parse_error(&self) -> bool {
        self.executing.is_none()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.executing, self.col) {
            (Some(exec), Some(col)) => write!(
                f,
                "template: {}:{}:{}: executing {} at <{}>: {}",
                self.name,
                self.line,
                col,
                value::go_quote(exec),
                self.context,
                self.message
            ),
            _ if self.name.is_empty() => write!(f, "template: {}", self.message),
            _ => write!(f, "template: {}:{}: {}", self.name, self.line, self.message),
        }
    }
}

impl std::error::Error for Error {}

pub(crate) struct Tree {
    /// Name of the text this template was parsed from.
    pub parse_name: String,
    pub root: Vec<parse::Node>,
    /// The text it was parsed from (its text nodes are ranges of it).
    pub text: Arc<str>,
}

/// A parsed text (its own template and its `define`s), shareable between
/// template sets and threads.
#[derive(Clone)]
pub struct ParsedText {
    pub name: String,
    text: Arc<str>,
    trees: Vec<(String, Arc<Tree>)>,
}

impl fmt::Debug for ParsedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParsedText({:?})", self.name)
    }
}

/// A set of named templates sharing one function registry.
#[derive(Clone)]
pub struct Templates {
    /// The set's own name (Go's `template.New(name)`), shown in "no template" errors.
    pub name: String,
    // Shared maps, copied on write: cloning a set (Helm's `tpl` does, on
    // every call) costs three reference counts.
    pub(crate) trees: Arc<HashMap<String, Arc<Tree>>>,
    pub(crate) texts: Arc<HashMap<String, Arc<str>>>,
    pub(crate) funcs: Arc<HashMap<String, Func>>,
    /// The state of the set's random generator, shared by its clones
    /// (Sprig's random functions read it through [`Exec::templates`]), so
    /// that one function registry can serve sets seeded apart.
    pub(crate) random: Arc<std::sync::atomic::AtomicU64>,
    /// The set this one was layered on ([`Templates::layer`]): its
    /// templates are found when this set has none of the name.
    pub(crate) parent: Option<Arc<Templates>>,
    /// Go's `missingkey=error`: a field of a map that has no such key is
    /// an error ("map has no entry for key"), not no value.
    pub missing_key_error: bool,
}

impl Default for Templates {
    fn default() -> Self {
        Self::new()
    }
}

impl Templates {
    /// An empty set with Go's built-in functions.
    pub fn new() -> Self {
        let mut t = Templates {
            name: String::new(),
            trees: Arc::new(HashMap::default()),
            texts: Arc::new(HashMap::default()),
            funcs: Arc::new(HashMap::default()),
            random: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            parent: None,
            missing_key_error: false,
        };
        exec::add_builtins(&mut t);
        t
    }

    /// Gives the set a random generator of its own, started at `seed`
    /// (its clones made from now on share it).
    pub fn reseed(&mut self, seed: u64) {
        self.random = Arc::new(std::sync::atomic::AtomicU64::new(seed));
    }

    /// Whether the set has a function of this name.
    pub fn has_func(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    /// The state of the set's random generator.
    pub fn random_state(&self) -> &Arc<std::sync::atomic::AtomicU64> {
        &self.random
    }

    /// Adds (or replaces) a function. `min_args`/`max_args` bound the
    /// argument count (`None`: variadic), checked as Go checks them.
    pub fn add_func(
        &mut self,
        name: &str,
        min_args: usize,
        max_args: Option<usize>,
        f: impl Fn(&Exec, &[Value]) -> Result<Value, String> + Send + Sync + 'static,
    ) {
        Arc::make_mut(&mut self.funcs).insert(
            name.to_string(),
            Func {
                min_args,
                max_args,
                keep_objects: exec::keeps_objects(name),
                f: Arc::new(f),
                sig: None,
            },
        );
    }

    /// Gives the functions named in `sigs` their Go parameter types, which
    /// the executor then checks arguments against before calls, as Go
    /// does. Returns the names that are no function of the set.
    pub fn set_signatures(
        &mut self,
        sigs: &[(&'static str, &'static exec::Sig)],
    ) -> Vec<&'static str> {
        let funcs = Arc::make_mut(&mut self.funcs);
        let mut unknown = Vec::new();
        for (name, sig) in sigs {
            match funcs.get_mut(*name) {
                Some(f) => f.sig = Some(sig),
                None => unknown.push(*name),
            }
        }
        unknown
    }

    /// Parses `text` as the template `name`; the templates it defines
    /// (`define`, `block`) are added too. A later definition replaces an
    /// earlier one of the same name, unless it is empty.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), Error> {
        let parsed = self.parse_text(name, text)?;
        self.add_parsed(&parsed);
        Ok(())
    }

    /// [`Templates::parse`] for actions between other delimiters than
    /// `{{ }}` (Go's `Delims`).
    pub fn parse_delimited(
        &mut self,
        name: &str,
        text: &str,
        delims: parse::Delims,
    ) -> Result<(), Error> {
        let funcs = &self.funcs;
        let parsed = parse::parse_delimited(name, text, &|f: &str| funcs.contains_key(f), delims)?;
        let parsed = Self::parsed_text(name, Arc::from(text), parsed);
        self.add_parsed(&parsed);
        Ok(())
    }

    /// Keeps only the functions whose name `keep` accepts.
    pub fn retain_funcs(&mut self, keep: impl Fn(&str) -> bool) {
        Arc::make_mut(&mut self.funcs).retain(|name, _| keep(name));
    }

    /// Parses `text` (with this set's function names) without adding it:
    /// the result can be kept and added to many sets ([`Templates::add_parsed`]).
    pub fn parse_text(&self, name: &str, text: &str) -> Result<ParsedText, Error> {
        let funcs = &self.funcs;
        Self::parse_text_by(name, text, &|f: &str| funcs.contains_key(f))
    }

    /// [`Templates::parse_text`] with an explicit set of function names.
    pub fn parse_text_with(
        name: &str,
        text: &str,
        funcs: &HashSet<String>,
    ) -> Result<ParsedText, Error> {
        Self::parse_text_by(name, text, &|f: &str| funcs.contains(f))
    }

    /// [`Templates::parse_text_with`] with the function names given as a
    /// predicate.
    pub fn parse_text_by(
        name: &str,
        text: &str,
        funcs: &dyn Fn(&str) -> bool,
    ) -> Result<ParsedText, Error> {
        let parsed = parse::parse_with(name, text, funcs)?;
        Ok(Self::parsed_text(name, Arc::from(text), parsed))
    }

    /// [`Templates::parse_text_by`] for a text already shared: the trees
    /// keep that text, not a copy of it.
    pub fn parse_shared_text_by(
        name: &str,
        text: Arc<str>,
        funcs: &dyn Fn(&str) -> bool,
    ) -> Result<ParsedText, Error> {
        let parsed = parse::parse_with(name, &text, funcs)?;
        Ok(Self::parsed_text(name, text, parsed))
    }

    fn parsed_text(name: &str, text: Arc<str>, parsed: parse::Parsed) -> ParsedText {
        let mut trees = Vec::with_capacity(parsed.defines.len() + 1);
        let mk = |root: Vec<parse::Node>| {
            Arc::new(Tree {
                parse_name: name.to_string(),
                root,
                text: text.clone(),
            })
        };
        trees.push((name.to_string(), mk(parsed.root)));
        for (dname, root) in parsed.defines {
            trees.push((dname, mk(root)));
        }
        ParsedText {
            name: name.to_string(),
            text,
            trees,
        }
    }

    /// Adds a text parsed by [`Templates::parse_text`], as `parse` would.
    pub fn add_parsed(&mut self, p: &ParsedText) {
        Arc::make_mut(&mut self.texts).insert(p.name.clone(), p.text.clone());
        for (i, (tname, tree)) in p.trees.iter().enumerate() {
            let main = i == 0;
            if !main && parse::is_empty_tree(&tree.root, &tree.text) && self.has(tname) {
                continue;
            }
            Arc::make_mut(&mut self.trees).insert(tname.clone(), tree.clone());
        }
    }

    /// A set holding every template of this one, to which more can be
    /// added without copying them (Helm's `tpl` parses into a clone of the
    /// set on every call): templates added to it hide this set's of the
    /// same name.
    pub fn layer(&self) -> Templates {
        Templates {
            name: self.name.clone(),
            trees: Arc::new(HashMap::default()),
            texts: Arc::new(HashMap::default()),
            funcs: self.funcs.clone(),
            random: self.random.clone(),
            parent: Some(Arc::new(self.clone())),
            missing_key_error: self.missing_key_error,
        }
    }

    /// The template of this name (in this set, else in the set it was
    /// layered on).
    pub(crate) fn tree(&self, name: &str) -> Option<&Arc<Tree>> {
        match self.trees.get(name) {
            Some(t) => Some(t),
            None => self.parent.as_deref()?.tree(name),
        }
    }

    /// The source text a template was parsed from.
    pub(crate) fn text(&self, parse_name: &str) -> Option<&Arc<str>> {
        match self.texts.get(parse_name) {
            Some(t) => Some(t),
            None => self.parent.as_deref()?.text(parse_name),
        }
    }

    /// The names of the registered functions.
    pub fn func_names(&self) -> HashSet<String> {
        self.funcs.keys().cloned().collect()
    }

    /// Whether a template of this name is defined.
    pub fn has(&self, name: &str) -> bool {
        self.tree(name).is_some()
    }

    /// Executes template `name` with `data` as dot and `$`.
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, Error> {
        exec::execute(self, name, data)
    }
}
