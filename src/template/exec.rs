//! The executor: walks parsed templates over a [`Value`], and Go's
//! built-in template functions.

use std::cell::Cell;
use std::sync::Arc;

use super::parse::{Arg, Command, Fields, Node, Pipe, Shown, TemplateCall, str_literal};
use super::value::{Map, Value, sprint, sprint_value, sprintf, sprintln};
use super::{Error, Templates, Tree};

/// A registered function: argument bounds and the closure.
#[derive(Clone)]
pub struct Func {
    pub min_args: usize,
    pub max_args: Option<usize>,
    /// Whether the function sees objects as they are ([`keeps_objects`]).
    pub keep_objects: bool,
    #[allow(clippy::type_complexity)]
    pub f: Arc<dyn Fn(&Exec, &[Value]) -> Result<Value, String> + Send + Sync>,
    /// The Go function's parameter types, which Go checks (and converts
    /// constants to) before the call; `None`: every argument is taken.
    pub sig: Option<&'static Sig>,
}

/// A Go parameter type as `text/template` checks an argument against it
/// before a call (Go's `evalArg` and `validateType`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GoType {
    /// `interface {}` (and types flate does not check, such as
    /// `time.Time` or Sprig's certificate struct).
    Any,
    String,
    Int,
    Uint32,
    Float64,
    Bool,
    /// `map[string]interface {}` (Helm's `Values` types are assignable).
    Map,
    /// `[]interface {}`.
    List,
}

impl GoType {
    /// The type as Go's messages spell it.
    pub fn go_name(self) -> &'static str {
        match self {
            GoType::Any => "interface {}",
            GoType::String => "string",
            GoType::Int => "int",
            GoType::Uint32 => "uint32",
            GoType::Float64 => "float64",
            GoType::Bool => "bool",
            GoType::Map => "map[string]interface {}",
            GoType::List => "[]interface {}",
        }
    }

    /// Whether Go's nil converts to the type (its zero value is nil).
    fn nilable(self) -> bool {
        matches!(self, GoType::Any | GoType::Map | GoType::List)
    }

    /// Whether a value (not nil) is assignable to the type. flate's values
    /// have one integer type, so `int` takes Sprig's `int64` results too.
    fn accepts(self, v: &Value) -> bool {
        match (self, v) {
            (GoType::Any, _)
            | (GoType::String, Value::Str(_))
            | (GoType::Int, Value::Int(_))
            | (GoType::Float64, Value::Float(_))
            | (GoType::Bool, Value::Bool(_))
            | (GoType::List, Value::List(_)) => true,
            (GoType::Map, Value::Map(m)) => !matches!(m.type_name(), "map[string]string"),
            (GoType::String, Value::Object(o)) => o.0.type_name() == "string",
            (GoType::Map, Value::Object(o)) => matches!(
                o.0.type_name(),
                "map[string]interface {}" | super::value::HELM_VALUES_TYPE
            ),
            (GoType::List, Value::Object(o)) => o.0.type_name() == "[]interface {}",
            _ => false,
        }
    }
}

/// A Go function's parameters: the fixed ones, then the element type of a
/// variadic last one.
#[derive(Debug)]
pub struct Sig {
    pub fixed: &'static [GoType],
    pub variadic: Option<GoType>,
}

impl Sig {
    /// The type of the `i`th argument.
    fn param(&self, i: usize) -> GoType {
        self.fixed
            .get(i)
            .copied()
            .or(self.variadic)
            .unwrap_or(GoType::Any)
    }
}

/// The functions that see an object (`.Capabilities`, `.Files`, what
/// `.Files.Get` gives for binary data) as it is: those that pass data on
/// to templates, print it with `fmt`, ask its Go type, or encode it as
/// Go's JSON encoder does. The others see its plain data (a Go map or
/// slice to them).
pub fn keeps_objects(name: &str) -> bool {
    matches!(
        name,
        "include"
            | "tpl"
            | "print"
            | "printf"
            | "println"
            | "quote"
            | "squote"
            | "toString"
            | "cat"
            | "len"
            // A binary Go string keeps its bytes for these.
            | "b64enc"
            | "sha1sum"
            | "sha256sum"
            | "sha512sum"
            | "adler32sum"
            // Go types and kinds.
            | "typeOf"
            | "typeIs"
            | "typeIsLike"
            | "kindOf"
            | "kindIs"
            // A struct's fields in their order, a byte slice as base64.
            | "toJson"
            | "mustToJson"
            | "toPrettyJson"
            | "mustToPrettyJson"
            | "toRawJson"
            | "mustToRawJson"
            | "toYaml"
            | "mustToYaml"
            // Values only held, passed on or copied: Go keeps the struct (and a
            // copy of it) in the list or map.
            | "dict"
            | "list"
            | "tuple"
            | "set"
            | "get"
            | "append"
            | "mustAppend"
            | "push"
            | "mustPush"
            | "prepend"
            | "mustPrepend"
            | "first"
            | "mustFirst"
            | "last"
            | "mustLast"
            // Go's reflection sees the value's own type: errors name its
            // kind (`int64`, `ptr`), and an `int64` is not the `int` of the
            // same value (`Value::deep_equal`).
            | "rest"
            | "mustRest"
            | "initial"
            | "mustInitial"
            | "reverse"
            | "mustReverse"
            | "compact"
            | "mustCompact"
            | "uniq"
            | "mustUniq"
            | "without"
            | "mustWithout"
            | "has"
            | "mustHas"
            | "slice"
            | "mustSlice"
            | "chunk"
            | "mustChunk"
            | "default"
            | "ternary"
            | "coalesce"
            | "deepCopy"
            | "mustDeepCopy"
            // A type assertion's error names the value's own type.
            | "dig"
            | "call"
            // An `int64` is a number of seconds (nanoseconds), an `int` 0.
            | "duration"
            | "durationRound"
            // An `int64` compares and indexes as an integer, and errors name
            // its type (`plain_objects`).
            | "eq"
            | "ne"
            | "lt"
            | "le"
            | "gt"
            | "ge"
            | "index"
    )
}

/// What a function sees of the running execution: it can run other
/// templates (Helm's `include` needs that).
pub struct Exec<'a> {
    pub templates: &'a Templates,
    depth: Cell<usize>,
    /// How many [`Exec::execute_in`] calls (Helm's `tpl`) enclose this one.
    nested_sets: usize,
    /// How many calls of each name are running (Helm's `include` limit).
    running: std::cell::RefCell<std::collections::HashMap<String, usize>>,
}

/// Deepest nesting of template calls: `template` actions and the calls
/// functions make through [`Exec::execute`] and [`Exec::execute_in`]
/// (Helm's `include` and `tpl`). Go allows 100,000 levels on a stack that
/// grows to 1 GB; this engine grows its stack on the heap as calls nest (no
/// overflow on any thread) and stops there too, with Go's message. (Helm
/// stops a chain of `include`s of one name earlier, at 1,001: see
/// [`Exec::enter_name`].)
pub const MAX_DEPTH: usize = 100_000;

/// Deepest nesting of [`Exec::execute_in`] calls (Helm's `tpl` of a text
/// that calls `tpl`). Helm has no limit of its own there: each level wraps
/// the error of the one inside (Go's error text grows with the square of
/// the depth), and Helm's stack overflows first, ending the process
/// (`fatal error: stack overflow`). flate stops such a chain at 10,000
/// levels with the depth error, naming this limit.
pub const MAX_NESTED_SETS: usize = 10_000;

/// Stack kept free before a call nests deeper, and the size of each new
/// stack segment when it is not.
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// Stack a thread may use below the shallowest point it ran a template
/// from before its calls are checked (a template level takes a few KiB):
/// most charts never get that deep, and checking needs the thread's stack
/// bounds, which glibc finds by reading `/proc/self/maps` (three system
/// calls and some 57,000 instructions, once per thread).
const UNCHECKED_STACK: usize = 128 * 1024;

thread_local! {
    /// The shallowest point of this thread's own stack a template ran from.
    static STACK_START: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Whether a call checked by stacker is running on this thread: code
    /// inside it (perhaps on a stack segment stacker allocated) is checked.
    static CHECKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with at least [`STACK_RED_ZONE`] of stack left.
fn with_stack<T>(f: impl FnOnce() -> T) -> T {
    if CHECKED.get() {
        return stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f);
    }
    let here = {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    };
    // Stacks grow down.
    let start = STACK_START.get();
    if here >= start {
        STACK_START.set(here);
        return f();
    }
    if start - here < UNCHECKED_STACK {
        return f();
    }
    CHECKED.set(true);
    let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f);
    CHECKED.set(false);
    r
}

fn depth_error() -> Error {
    Error::plain(format!("exceeded maximum template depth ({MAX_DEPTH})"))
}

fn nested_sets_error() -> Error {
    Error::plain(format!(
        "exceeded maximum template depth ({MAX_NESTED_SETS})"
    ))
}

impl Exec<'_> {
    /// Executes template `name` with `data` (for `include`-like
    /// functions), one level deeper than the caller.
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, Error> {
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            return Err(depth_error());
        }
        self.depth.set(depth + 1);
        let r = with_stack(|| self.run(name, data));
        self.depth.set(depth);
        r
    }

    /// Counts one more running call of `name` and returns how many run now
    /// (Helm's `include` refuses more than 1,001 of one name); pair with
    /// [`Exec::leave_name`].
    pub fn enter_name(&self, name: &str) -> usize {
        let mut running = self.running.borrow_mut();
        let n = running.entry(name.to_string()).or_insert(0);
        *n += 1;
        *n
    }

    /// Ends a call counted by [`Exec::enter_name`].
    pub fn leave_name(&self, name: &str) {
        if let Some(n) = self.running.borrow_mut().get_mut(name) {
            *n = n.saturating_sub(1);
        }
    }

    /// Executes template `name` of another set (for `tpl`-like functions,
    /// which parse into a copy of the set), one level deeper than the
    /// caller.
    pub fn execute_in(&self, set: &Templates, name: &str, data: &Value) -> Result<String, Error> {
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            return Err(depth_error());
        }
        if self.nested_sets >= MAX_NESTED_SETS {
            return Err(nested_sets_error());
        }
        if !set.has(name) {
            return Err(Error::plain(format!(
                "no template {name:?} associated with template {:?}",
                set.name
            )));
        }
        let ex = Exec {
            templates: set,
            depth: Cell::new(depth + 1),
            nested_sets: self.nested_sets + 1,
            running: std::cell::RefCell::new(self.running.borrow().clone()),
        };
        let r = with_stack(|| ex.run(name, data));
        // Names counted inside the other set end there; what is still
        // running here is as before.
        r
    }

    fn run(&self, name: &str, data: &Value) -> Result<String, Error> {
        let tree = self.templates.tree(name).ok_or_else(|| {
            Error::plain(format!(
                "no template {:?} associated with template {:?}",
                name, self.templates.name
            ))
        })?;
        let mut st = State::new(self, name, tree, data.clone());
        // The output is sized for the template's text at first (a
        // template's output is mostly its text): a large one is not grown
        // by doubling, each growth a copy into fresh memory.
        if let Some(text) = self.templates.text(&tree.parse_name) {
            st.out.reserve(text.len());
        }
        let r = st.walk_list(data, &tree.root);
        match r {
            Ok(()) => Ok(st.out),
            Err(Flow::Err(e)) => Err(*e),
            Err(_) => Ok(st.out),
        }
    }

    /// The current nesting depth of template calls.
    pub fn depth(&self) -> usize {
        self.depth.get()
    }
}

pub(crate) fn execute(t: &Templates, name: &str, data: &Value) -> Result<String, Error> {
    let ex = Exec {
        templates: t,
        depth: Cell::new(0),
        nested_sets: 0,
        running: Default::default(),
    };
    if !t.has(name) {
        return Err(Error::plain(format!(
            "no template {name:?} associated with template {:?}",
            t.name
        )));
    }
    super::memo::scope(t as *const Templates as usize, || ex.run(name, data))
}

enum Flow {
    Err(Box<Error>),
    Break,
    Continue,
}

type R<T> = Result<T, Flow>;

#[derive(Clone, Copy)]
enum At<'a> {
    None,
    Pipe(&'a Pipe),
    Cmd(&'a Command),
    Arg(&'a Arg),
    Tmpl(&'a TemplateCall),
}

struct State<'a, 'e> {
    ex: &'e Exec<'a>,
    name: &'e str,
    tree: &'a Tree,
    /// The variables in scope, innermost last (names borrowed from the
    /// tree), each with whether it holds an element of a list or map being
    /// ranged over (see `dot_iface`).
    vars: Vec<(&'a str, Value, bool)>,
    /// Whether dot is an element of a list or map being ranged over: Go's
    /// `range` passes it on as an `interface {}` value (not unwrapped as a
    /// pipeline's result is). A typed parameter refuses such a nil as a
    /// wrong type rather than as no value, a field of such a nil is an
    /// error (of a nil pipeline result, no value), and a field of such a
    /// number is an error naming `interface {}`.
    dot_iface: bool,
    at: At<'a>,
    out: String,
}

impl<'a, 'e> State<'a, 'e> {
    fn new(ex: &'e Exec<'a>, name: &'e str, tree: &'a Tree, data: Value) -> Self {
        State {
            ex,
            name,
            tree,
            vars: vec![("$", data, false)],
            dot_iface: false,
            at: At::None,
            out: String::new(),
        }
    }

    fn err(&self, msg: String) -> Flow {
        let src = self.src();
        let (pos, context) = match self.at {
            At::None => (0, String::new()),
            At::Pipe(p) => (p.pos, p.show(src).to_string()),
            At::Cmd(c) => (c.pos, c.show(src).to_string()),
            At::Arg(a) => (a.pos(), a.show(src).to_string()),
            At::Tmpl(t) => (t.pos, t.show(src).to_string()),
        };
        let text = self
            .ex
            .templates
            .text(&self.tree.parse_name)
            .cloned()
            .unwrap_or_else(|| Arc::from(""));
        let before = &text[..pos.min(text.len())];
        let line = 1 + before.matches('\n').count();
        let col = match before.rfind('\n') {
            Some(i) => pos - (i + 1),
            None => pos,
        };
        Flow::Err(Box::new(Error {
            name: self.tree.parse_name.clone(),
            line,
            col: Some(col),
            executing: Some(self.name.to_string()),
            context,
            message: msg,
        }))
    }

    /// The text the tree was parsed from (its names and literals are
    /// ranges of it).
    fn src(&self) -> &'a str {
        &self.tree.text
    }

    fn walk_list(&mut self, dot: &Value, list: &'a [Node]) -> R<()> {
        for n in list {
            self.walk(dot, n)?;
        }
        Ok(())
    }

    /// Walks one node.
    fn walk(&mut self, dot: &Value, node: &'a Node) -> R<()> {
        self.walk_node(dot, node)
    }

    fn walk_node(&mut self, dot: &Value, node: &'a Node) -> R<()> {
        match node {
            Node::Text(a, b) => self.out.push_str(&self.tree.text[*a..*b]),
            Node::Action(p) => {
                let v = self.eval_pipeline(dot, p)?;
                if p.decl().is_empty() {
                    match v {
                        Value::Nil => self.out.push_str("<no value>"),
                        Value::Object(o) => self.out.push_str(&o.0.print_action()),
                        v => self.out.push_str(&sprint_value(&v)),
                    }
                }
            }
            Node::If(c) | Node::With(c) => {
                let (pipe, list, else_list) = (&c.pipe, &c.list, &c.else_list);
                let mark = self.vars.len();
                let v = self.eval_pipeline(dot, pipe)?;
                let r = if v.is_true() {
                    if matches!(node, Node::With { .. }) {
                        let outer = std::mem::replace(&mut self.dot_iface, false);
                        let r = self.walk_list(&v, list);
                        self.dot_iface = outer;
                        r
                    } else {
                        self.walk_list(dot, list)
                    }
                } else {
                    self.walk_list(dot, else_list)
                };
                self.vars.truncate(mark);
                r?;
            }
            Node::Range(c) => {
                let (pipe, list, else_list) = (&c.pipe, &c.list, &c.else_list);
                let mark = self.vars.len();
                let v = self.eval_pipeline_value(dot, pipe)?;
                // Go ranges over an integer of any type with values of
                // that type.
                let int_type = match &v {
                    Value::Object(o) if o.0.as_int().is_some() => Some(o.0.type_name()),
                    _ => None,
                };
                // The elements of a slice or map of a concrete element type
                // (Sprig's `[]int`, Helm's `[]string`) are not `interface {}`
                // values.
                let concrete = matches!(v, Value::Object(_));
                let v = match v {
                    Value::Object(o) => o.0.plain(),
                    v => v,
                };
                let items: Vec<(Value, Value)> = match &v {
                    Value::List(l) => l
                        .iter()
                        .enumerate()
                        .map(|(i, e)| (Value::Int(i as i64), e.clone()))
                        .collect(),
                    // Go ranges over the keys and values as they are
                    // when the range starts (`fmtsort.Sort`), in key order.
                    Value::Map(m) => m
                        .entries()
                        .into_iter()
                        .map(|(k, e)| (Value::Str(k), e))
                        .collect(),
                    Value::Int(n) => {
                        if pipe.decl().len() > 1 {
                            return Err(self.err(format!(
                                "can't use {n} to iterate over more than one variable"
                            )));
                        }
                        let of = |i| match int_type {
                            Some("uint8") => Value::uint8(i as u8),
                            Some(_) => Value::int64(i),
                            None => Value::Int(i),
                        };
                        (0..*n).map(|i| (of(i), of(i))).collect()
                    }
                    Value::Nil => Vec::new(),
                    other => {
                        return Err(
                            self.err(format!("range can't iterate over {}", sprint_value(other)))
                        );
                    }
                };
                if items.is_empty() {
                    let r = self.walk_list(dot, else_list);
                    self.vars.truncate(mark);
                    return r;
                }
                // The elements of a list or map (an integer's are numbers).
                let elements_iface = !concrete && matches!(v, Value::List(_) | Value::Map(_));
                let outer = self.dot_iface;
                for (idx, elem) in items {
                    self.vars.truncate(mark);
                    let vals: Vec<(Value, bool)> = match pipe.decl().len() {
                        0 => vec![],
                        1 => vec![(elem.clone(), elements_iface)],
                        _ => vec![(idx, false), (elem.clone(), elements_iface)],
                    };
                    for (name, (val, iface)) in pipe.decl().iter().zip(vals) {
                        let name = name.of(self.src());
                        if pipe.is_assign {
                            self.set_var(name, val, iface)?;
                        } else {
                            self.vars.push((name, val, iface));
                        }
                    }
                    self.dot_iface = elements_iface;
                    let r = self.walk_list(&elem, list);
                    self.dot_iface = outer;
                    match r {
                        Ok(()) | Err(Flow::Continue) => {}
                        Err(Flow::Break) => break,
                        Err(e) => return Err(e),
                    }
                }
                self.vars.truncate(mark);
            }
            Node::Template(call) => {
                self.at = At::Tmpl(call);
                let templates = self.ex.templates;
                let tree = match templates.tree(&call.name) {
                    Some(t) => t,
                    None => return Err(self.err(format!("template {:?} not defined", call.name))),
                };
                // Go checks the depth before it evaluates the argument.
                let depth = self.ex.depth.get();
                if depth >= MAX_DEPTH {
                    return Err(self.err(depth_error().message));
                }
                let data = match &call.pipe {
                    Some(p) => self.eval_pipeline(dot, p)?,
                    None => Value::Nil,
                };
                self.ex.depth.set(depth + 1);
                let mut sub = State::new(self.ex, &call.name, tree, data.clone());
                // The called template writes where this one does (its
                // output is kept when it fails, as Go's writer keeps it).
                sub.out = std::mem::take(&mut self.out);
                let r = with_stack(|| sub.walk_list(&data, &tree.root));
                self.ex.depth.set(depth);
                self.out = sub.out;
                r?;
            }
            Node::Break => return Err(Flow::Break),
            Node::Continue => return Err(Flow::Continue),
        }
        Ok(())
    }

    /// Assigns to the innermost variable `name` (`$x = ...`); Go's parser
    /// lets an assignment to a variable never declared through, and its
    /// execution fails.
    fn set_var(&mut self, name: &str, v: Value, iface: bool) -> R<()> {
        match self.vars.iter_mut().rev().find(|(n, _, _)| *n == name) {
            Some(slot) => {
                slot.1 = v;
                slot.2 = iface;
                Ok(())
            }
            None => Err(self.err(format!("undefined variable: {name}"))),
        }
    }

    fn var(&self, name: &str) -> R<Value> {
        let i = self.var_index(name)?;
        Ok(self.vars[i].1.clone())
    }

    fn var_index(&self, name: &str) -> R<usize> {
        match self.vars.iter().rposition(|(n, _, _)| *n == name) {
            Some(i) => Ok(i),
            None => Err(self.err(format!("undefined variable: {name}"))),
        }
    }

    /// Evaluates the commands of a pipeline, without its declarations.
    fn eval_pipeline_value(&mut self, dot: &Value, pipe: &'a Pipe) -> R<Value> {
        self.at = At::Pipe(pipe);
        let mut v = None;
        for c in &pipe.cmds {
            v = Some(self.eval_command(dot, c, v)?);
        }
        Ok(v.unwrap_or_default())
    }

    fn eval_pipeline(&mut self, dot: &Value, pipe: &'a Pipe) -> R<Value> {
        let v = self.eval_pipeline_value(dot, pipe)?;
        for name in pipe.decl() {
            let name = name.of(self.src());
            if pipe.is_assign {
                self.set_var(name, v.clone(), false)?;
            } else {
                self.vars.push((name, v.clone(), false));
            }
        }
        Ok(v)
    }

    fn not_a_function(&self, cmd: &Command, fin: &Option<Value>) -> R<()> {
        if cmd.args.len() > 1 || fin.is_some() {
            return Err(self.err(format!(
                "can't give argument to non-function {}",
                cmd.args[0].show(self.src())
            )));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Value, cmd: &'a Command, fin: Option<Value>) -> R<Value> {
        let first = &cmd.args[0];
        let has_args = cmd.args.len() > 1 || fin.is_some();
        match first {
            Arg::Field { names, .. } => {
                self.at = At::Arg(first);
                if !has_args {
                    return self.walk_fields(dot, self.dot_iface, *names, None);
                }
                let iface = self.dot_iface;
                return self.call_method(dot, cmd, fin, dot, iface, *names, At::Arg(first));
            }
            Arg::Chain { node, fields, .. } => {
                // (Go reports a field's error where the evaluation of the
                // operand, or of the method's arguments, left the
                // position: `<2>` in `(list 1 2).x`.)
                self.at = At::Arg(first);
                let recv = self.eval_arg(dot, node)?;
                let at = self.at;
                if !has_args {
                    return self.walk_fields(&recv, false, *fields, None);
                }
                return self.call_method(dot, cmd, fin, &recv, false, *fields, at);
            }
            Arg::Ident { name, .. } => {
                let name = name.of(self.src());
                return self.eval_function(dot, first, name, &cmd.args[1..], At::Cmd(cmd), fin);
            }
            Arg::Pipe(p) => {
                self.not_a_function(cmd, &fin)?;
                return self.eval_pipeline(dot, p);
            }
            Arg::Var { name, fields, .. } => {
                let name = name.of(self.src());
                self.at = At::Arg(first);
                if fields.is_empty() {
                    let v = self.var(name)?;
                    self.not_a_function(cmd, &fin)?;
                    return Ok(v);
                }
                let i = self.var_index(name)?;
                if !has_args {
                    return self.walk_fields(&self.vars[i].1, self.vars[i].2, *fields, None);
                }
                let (recv, iface) = (self.vars[i].1.clone(), self.vars[i].2);
                return self.call_method(dot, cmd, fin, &recv, iface, *fields, At::Arg(first));
            }
            _ => {}
        }
        self.at = At::Arg(first);
        self.not_a_function(cmd, &fin)?;
        match first {
            Arg::Bool(_, b) => Ok(Value::Bool(*b)),
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Err(self.err("nil is not a command".into())),
            Arg::Number { value, .. } => Ok(value.clone()),
            Arg::Str {
                quoted, unquoted, ..
            } => Ok(Value::Str(
                str_literal(self.src(), *quoted, unquoted).to_string(),
            )),
            _ => Err(self.err(format!("can't evaluate command {}", first.show(self.src())))),
        }
    }

    /// A command whose first word is the field chain `names` of `recv`
    /// (`iface`: see [`State::walk_fields`]) and which has arguments: its
    /// last field called as a method. As Go's `evalFieldChain` and
    /// `evalCall`, the receiver is reached first, then the arguments are
    /// evaluated, each checked against the method's parameter type where
    /// it declares them ([`Object::method_sig`]: the error is at the
    /// argument). `at`: the position a field's error is reported at.
    #[allow(clippy::too_many_arguments)]
    fn call_method(
        &mut self,
        dot: &Value,
        cmd: &'a Command,
        fin: Option<Value>,
        recv: &Value,
        iface: bool,
        names: Fields,
        at: At<'a>,
    ) -> R<Value> {
        let (receiver, iface, last) = self.walk_to_last(recv, iface, names)?;
        let sig = match &receiver {
            Value::Object(o) => o.0.method_sig(last),
            Value::Map(m) if m.is_helm_values() && matches!(last, "Table" | "PathValue") => {
                Some(&ONE_STRING)
            }
            _ => None,
        };
        let args = &cmd.args[1..];
        let nargs = args.len() + usize::from(fin.is_some());
        // (A wrong number of arguments is reported before any is
        // evaluated, by the call.)
        let sig = sig.filter(|s| s.variadic.is_some() || s.fixed.len() == nargs);
        let mut vals = Vec::with_capacity(nargs);
        for (i, a) in args.iter().enumerate() {
            let v = match sig.map_or(GoType::Any, |s| s.param(i)) {
                GoType::Any => self.eval_arg(dot, a)?,
                ty => self.eval_typed_arg(dot, a, ty)?,
            };
            vals.push(v);
        }
        if let Some(f) = fin {
            let v = match sig.map_or(GoType::Any, |s| s.param(args.len())) {
                GoType::Any => f,
                ty => self.validate(f, ty, false)?,
            };
            vals.push(v);
        }
        self.at = at;
        Ok(self
            .field_step(&receiver, last, iface, Some(&vals))?
            .into_owned())
    }

    /// The value the field chain `names` of `recv` reaches before its last
    /// field, whether it is an `interface {}` value, and that last name.
    fn walk_to_last(&self, recv: &Value, iface: bool, names: Fields) -> R<(Value, bool, &'a str)> {
        use std::borrow::Cow;
        let mut cur: Cow<'_, Value> = Cow::Borrowed(recv);
        let mut iface = iface;
        let mut last_name = "";
        for (name, last) in names.names(self.src()) {
            if last {
                last_name = name;
                break;
            }
            let from_value = !matches!(*cur, Value::Nil);
            cur = match cur {
                Cow::Borrowed(v) => self.field_step(v, name, iface, None)?,
                Cow::Owned(v) => Cow::Owned(self.field_step(&v, name, iface, None)?.into_owned()),
            };
            iface = from_value;
        }
        Ok((cur.into_owned(), iface, last_name))
    }

    /// One step of a field chain: field `name` of `recv`.
    fn field_step<'v>(
        &self,
        recv: &'v Value,
        name: &str,
        iface: bool,
        call: Option<&[Value]>,
    ) -> R<std::borrow::Cow<'v, Value>> {
        use std::borrow::Cow;
        match recv {
            Value::Map(m) => {
                if m.is_helm_values()
                    && let Some(r) = helm_values_method(m, name, call.unwrap_or(&[]))
                {
                    return r
                        .map(Cow::Owned)
                        .map_err(|e| self.err(method_error(name, e)));
                }
                if call.is_some() {
                    return Err(self.err(format!("{name} is not a method but has arguments")));
                }
                if self.ex.templates.missing_key_error && m.get(name).is_none() {
                    return Err(self.err(format!("map has no entry for key {name:?}")));
                }
                Ok(Cow::Owned(m.get_or_zero(name)))
            }
            Value::Object(o) => {
                if let Some(r) = o.0.call(name, call.unwrap_or(&[])) {
                    return r
                        .map(Cow::Owned)
                        .map_err(|e| self.err(method_error(name, e)));
                }
                match o.0.field(name) {
                    Some(_) if call.is_some() => {
                        Err(self.err(format!("{name} is not a method but has arguments")))
                    }
                    Some(v) => Ok(Cow::Owned(v)),
                    None => Err(self.err(format!(
                        "can't evaluate field {name} in type {}",
                        o.0.type_name()
                    ))),
                }
            }
            Value::Nil if iface => {
                Err(self.err(format!("nil pointer evaluating interface {{}}.{name}")))
            }
            Value::Nil => Ok(Cow::Owned(Value::Nil)),
            other => {
                let ty = if iface {
                    "interface {}"
                } else {
                    other.type_name()
                };
                Err(self.err(format!("can't evaluate field {name} in type {ty}")))
            }
        }
    }

    /// `receiver.f1.f2...`; `call` holds the arguments of the last field
    /// when it is called as a method.
    /// `iface`: whether the receiver is an `interface {}` value (an element
    /// being ranged over, `dot_iface`). A field found in a map or object is
    /// one, for the next step; a field of no value (nil that is not an
    /// `interface {}`) is again no value, as Go's `evalField` returns for an
    /// invalid receiver.
    fn walk_fields(
        &self,
        recv: &Value,
        iface: bool,
        names: Fields,
        call: Option<Vec<Value>>,
    ) -> R<Value> {
        Ok(self.walk_fields_iface(recv, iface, names, call)?.0)
    }

    /// [`State::walk_fields`], and whether the value found is an
    /// `interface {}` value (a nil one is then Go's nil interface, not no
    /// value).
    fn walk_fields_iface(
        &self,
        recv: &Value,
        iface: bool,
        names: Fields,
        call: Option<Vec<Value>>,
    ) -> R<(Value, bool)> {
        use std::borrow::Cow;
        let mut cur: Cow<'_, Value> = Cow::Borrowed(recv);
        let mut iface = iface;
        for (name, last) in names.names(self.src()) {
            let args = if last { call.as_deref() } else { None };
            let from_value = !matches!(*cur, Value::Nil);
            cur = match cur {
                Cow::Borrowed(v) => self.field_step(v, name, iface, args)?,
                Cow::Owned(v) => Cow::Owned(self.field_step(&v, name, iface, args)?.into_owned()),
            };
            iface = from_value;
        }
        Ok((cur.into_owned(), iface))
    }

    fn eval_arg(&mut self, dot: &Value, arg: &'a Arg) -> R<Value> {
        self.at = At::Arg(arg);
        match arg {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Value::Nil),
            Arg::Field { names, .. } => self.walk_fields(dot, self.dot_iface, *names, None),
            Arg::Var { name, fields, .. } => {
                let i = self.var_index(name.of(self.src()))?;
                self.walk_fields(&self.vars[i].1, self.vars[i].2, *fields, None)
            }
            Arg::Pipe(p) => self.eval_pipeline(dot, p),
            Arg::Ident { name, .. } => {
                let name = name.of(self.src());
                self.eval_function(dot, arg, name, &[], At::Arg(arg), None)
            }
            Arg::Chain { node, fields, .. } => {
                let recv = self.eval_arg(dot, node)?;
                self.walk_fields(&recv, false, *fields, None)
            }
            Arg::Bool(_, b) => Ok(Value::Bool(*b)),
            Arg::Number { value, .. } => Ok(value.clone()),
            Arg::Str {
                quoted, unquoted, ..
            } => Ok(Value::Str(
                str_literal(self.src(), *quoted, unquoted).to_string(),
            )),
        }
    }

    /// An argument's value, and whether a nil there is Go's nil
    /// `interface {}` (read from a map, or an element being ranged over)
    /// rather than no value at all (see [`State::validate`]).
    fn eval_arg_iface(&mut self, dot: &Value, arg: &'a Arg) -> R<(Value, bool)> {
        self.at = At::Arg(arg);
        match arg {
            Arg::Field { names, .. } => self.walk_fields_iface(dot, self.dot_iface, *names, None),
            Arg::Chain { node, fields, .. } => {
                let recv = self.eval_arg(dot, node)?;
                self.walk_fields_iface(&recv, false, *fields, None)
            }
            Arg::Var { name, fields, .. } => {
                let i = self.var_index(name.of(self.src()))?;
                self.walk_fields_iface(&self.vars[i].1, self.vars[i].2, *fields, None)
            }
            Arg::Dot(_) => Ok((dot.clone(), self.dot_iface)),
            _ => Ok((self.eval_arg(dot, arg)?, false)),
        }
    }

    /// An argument for a parameter of type `ty`, as Go's `evalArg`
    /// evaluates it: a constant must fit the type (and an integral
    /// number becomes an `int`), another value must be assignable to it.
    #[inline(never)]
    fn eval_typed_arg(&mut self, dot: &Value, arg: &'a Arg, ty: GoType) -> R<Value> {
        self.at = At::Arg(arg);
        let src = self.src();
        let found = match arg {
            Arg::Field { .. }
            | Arg::Chain { .. }
            | Arg::Var { .. }
            | Arg::Dot(_)
            | Arg::Pipe(_)
            | Arg::Ident { .. } => {
                let (v, iface) = self.eval_arg_iface(dot, arg)?;
                return self.validate(v, ty, iface);
            }
            Arg::Nil(_) => {
                if ty.nilable() {
                    return Ok(Value::Nil);
                }
                return Err(self.err(format!("cannot assign nil to {}", ty.go_name())));
            }
            Arg::Bool(_, b) => {
                if ty == GoType::Bool {
                    return self.eval_arg(dot, arg);
                }
                if *b { "true" } else { "false" }
            }
            Arg::Number { text, value, .. } => {
                let int = match value {
                    Value::Int(i) => Some(*i),
                    // Go's integral constants (`1e3`, `2.0`) are integers too.
                    Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
                    _ => None,
                };
                match (ty, int) {
                    (GoType::Int, Some(i)) => return Ok(Value::Int(i)),
                    (GoType::Uint32, Some(i)) if (0..=u32::MAX as i64).contains(&i) => {
                        return Ok(Value::Int(i));
                    }
                    (GoType::Float64, _) => {
                        return Ok(match value {
                            Value::Int(i) => Value::Float(*i as f64),
                            v => v.clone(),
                        });
                    }
                    _ => text.of(src),
                }
            }
            Arg::Str { quoted, .. } => {
                if ty == GoType::String {
                    return self.eval_arg(dot, arg);
                }
                quoted.of(src)
            }
        };
        let msg = match ty {
            GoType::Bool => format!("expected bool; found {found}"),
            GoType::String => format!("expected string; found {found}"),
            GoType::Int => format!("expected integer; found {found}"),
            GoType::Uint32 => format!("expected unsigned integer; found {found}"),
            GoType::Float64 => format!("expected float; found {found}"),
            GoType::Any | GoType::Map | GoType::List => {
                format!("can't handle {found} for arg of type {}", ty.go_name())
            }
        };
        Err(self.err(msg))
    }

    /// Go's `validateType`: `v` for a parameter of type `ty`. A nil read
    /// from a map, or a nil element of a list or map being ranged over (as
    /// dot or a range variable), is Go's nil `interface {}` (`nil_iface`: a
    /// wrong type for any other type); one from a pipeline, or a variable
    /// a pipeline set, is no value at all (the zero value of a type that
    /// can be nil).
    fn validate(&mut self, v: Value, ty: GoType, nil_iface: bool) -> R<Value> {
        if !matches!(v, Value::Nil) && ty.accepts(&v) {
            return Ok(v);
        }
        let got = match &v {
            Value::Nil if nil_iface => "interface {}",
            Value::Nil if ty.nilable() => return Ok(v),
            Value::Nil => {
                return Err(self.err(format!("invalid value; expected {}", ty.go_name())));
            }
            v => v.type_name(),
        };
        Err(self.err(format!(
            "wrong type for value; expected {}; got {got}",
            ty.go_name()
        )))
    }

    fn eval_function(
        &mut self,
        dot: &Value,
        ident: &'a Arg,
        name: &str,
        args: &'a [Arg],
        call_at: At<'a>,
        fin: Option<Value>,
    ) -> R<Value> {
        self.at = At::Arg(ident);
        let templates = self.ex.templates;
        let Some(func) = templates.funcs.get(name) else {
            return Err(self.err(format!("{name:?} is not a defined function")));
        };
        let nargs = args.len() + usize::from(fin.is_some());
        let arity_ok = nargs >= func.min_args && func.max_args.is_none_or(|m| nargs <= m);
        if !arity_ok {
            let want = match func.max_args {
                None => format!("at least {}", func.min_args),
                Some(m) if m == func.min_args => m.to_string(),
                Some(m) => format!("{}..{}", func.min_args, m),
            };
            return Err(self.err(format!(
                "wrong number of args for {name}: want {want} got {nargs}"
            )));
        }
        if name == "and" || name == "or" {
            let want = name == "or";
            let mut last = Value::Nil;
            for a in args {
                last = self.eval_arg(dot, a)?;
                if last.is_true() == want {
                    return Ok(last);
                }
            }
            if let Some(f) = fin {
                last = f;
            }
            return Ok(last);
        }
        // Go's `len` of a nil that is no `interface {}` value (a
        // pipeline's or function's result, a variable a pipeline set,
        // `nil`) fails in reflection; of a nil read from a map, or a nil
        // element being ranged over, it is "len of nil pointer".
        if nargs == 1 && func.sig.is_none() && name == "len" {
            let (v, nil_iface) = match args.first() {
                Some(a) => self.eval_arg_iface(dot, a)?,
                None => (fin.clone().unwrap_or_default(), false),
            };
            if matches!(v, Value::Nil) && !nil_iface {
                self.at = call_at;
                return Err(self.err(
                    "error calling len: reflect: call of reflect.Value.Type on zero Value".into(),
                ));
            }
            return self.finish_call(name, func, args, call_at, vec![v]);
        }
        let mut vals = Vec::with_capacity(nargs);
        match func.sig {
            None => {
                for a in args {
                    vals.push(self.eval_arg(dot, a)?);
                }
                if let Some(f) = fin {
                    vals.push(f);
                }
            }
            Some(sig) => {
                for (i, a) in args.iter().enumerate() {
                    let v = match sig.param(i) {
                        GoType::Any => self.eval_arg(dot, a)?,
                        ty => self.eval_typed_arg(dot, a, ty)?,
                    };
                    vals.push(v);
                }
                if let Some(f) = fin {
                    // Go checks the piped value where the last argument
                    // left its position.
                    let v = match sig.param(args.len()) {
                        GoType::Any => f,
                        ty => self.validate(f, ty, false)?,
                    };
                    vals.push(v);
                }
            }
        }
        self.finish_call(name, func, args, call_at, vals)
    }

    /// Calls function `func` (named `name`) with the values `vals` of its
    /// arguments `args`, as [`State::eval_function`] does.
    fn finish_call(
        &mut self,
        name: &str,
        func: &Func,
        args: &'a [Arg],
        call_at: At<'a>,
        mut vals: Vec<Value>,
    ) -> R<Value> {
        if !func.keep_objects {
            for v in vals.iter_mut() {
                if let Value::Object(o) = v {
                    *v = o.0.plain();
                }
            }
        }
        match (func.f)(self.ex, &vals) {
            // An abandoned speculative run stops at once: nothing it
            // produces is kept.
            Ok(_) if super::speculate::abandoned() => {
                Err(self.err("speculative run abandoned".to_string()))
            }
            Ok(v) => Ok(v),
            Err(msg) => {
                self.at = call_at;
                // `call`'s error names its callee as written (see
                // `NOT_A_FUNCTION`).
                let msg = match msg.strip_prefix(NOT_A_FUNCTION) {
                    Some(ty) => {
                        let callee = match (args.first(), &vals[0]) {
                            (Some(a), _) => a.show(self.src()).to_string(),
                            (None, Value::Str(s)) => s.clone(),
                            (None, v) => format!("<{} Value>", v.type_name()),
                        };
                        format!("non-function {callee} of type {ty}")
                    }
                    None => msg,
                };
                Err(self.err(format!("error calling {name}: {msg}")))
            }
        }
    }
}

/// What the builtin `call` returns for a value that is not a function
/// (nothing in Helm's data is one), before the value's type: the caller
/// adds the callee's text, which Go's message names.
const NOT_A_FUNCTION: &str = "\u{0}not a function: ";

/// A method of one `string` parameter (Helm's `Values.Table` and
/// `Values.PathValue`).
const ONE_STRING: Sig = Sig {
    fixed: &[GoType::String],
    variadic: None,
};

/// A method of Helm's `Values` map type (`.Values.AsMap`, `.Table`,
/// `.PathValue`, `.YAML`), which Go finds before a key of the same name;
/// `None` when `name` is no method.
fn helm_values_method(m: &Map, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
    let want = |n: usize| -> Result<(), String> {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "wrong number of args for {name}: want {n} got {}",
                args.len()
            ))
        }
    };
    let str_arg = || -> Result<String, String> {
        want(1)?;
        match &args[0] {
            Value::Str(s) => Ok(s.clone()),
            other => Err(format!(
                "wrong type for value; expected string; got {}",
                other.type_name()
            )),
        }
    };
    // `Values.Table`: the table at a dotted path, or `"KEY" is not a table`.
    let table = |path: &str| -> Result<Map, String> {
        let mut cur = m.clone();
        for key in path.split('.') {
            cur = match cur.get(key) {
                Some(Value::Map(t)) => t,
                _ => return Err(format!("{key:?} is not a table")),
            };
        }
        Ok(cur)
    };
    Some(match name {
        "AsMap" => want(0).map(|()| Value::Map(m.as_plain())),
        "YAML" => want(0).map(|()| {
            Value::Str(format!(
                "{}\n",
                crate::helm::funcs::to_yaml(&Value::Map(m.as_plain()))
            ))
        }),
        "Table" => str_arg().and_then(|p| table(&p).map(|t| Value::Map(t.as_helm_values()))),
        "PathValue" => str_arg().and_then(|p| {
            if p.is_empty() {
                return Err("YAML path cannot be empty".into());
            }
            let (parent, key) = match p.rsplit_once('.') {
                Some((a, k)) => (table(a).map_err(|_| format!("{k:?} is not a value"))?, k),
                None => (m.clone(), p.as_str()),
            };
            match parent.get(key) {
                Some(Value::Map(_)) | None => Err(format!("{key:?} is not a value")),
                Some(v) => Ok(v),
            }
        }),
        "Encode" => Err(format!(
            "wrong number of args for Encode: want 1 got {}",
            args.len()
        )),
        _ => return None,
    })
}

/// The value of a number or character literal, as Go's parser types it.
pub fn number_value(text: &str) -> Option<Value> {
    // Most literals are short decimal integers: read them directly (what
    // the general reading below gives them, without its copies).
    let b = text.as_bytes();
    if (1..=18).contains(&b.len())
        && (b.len() == 1 || b[0] != b'0')
        && b.iter().all(u8::is_ascii_digit)
    {
        let n = b.iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        return Some(Value::Int(n));
    }
    if text.starts_with('\'') {
        return super::parse::unquote_char(text).map(Value::Int);
    }
    if text.ends_with('i') {
        return None;
    }
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let (neg, body) = match clean.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, clean.trim_start_matches('+').to_string()),
    };
    let lower = body.to_ascii_lowercase();
    let int = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else if lower.contains(['.', 'e']) {
        None
    } else if lower.len() > 1 && lower.starts_with('0') {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else {
        lower.parse::<i64>().ok()
    };
    if let Some(i) = int {
        return Some(Value::Int(if neg { -i } else { i }));
    }
    let f = match lower.strip_prefix("0x") {
        Some(h) => hex_float(h)?,
        None => lower.parse().ok()?,
    };
    // Go's `ParseFloat` refuses a value past the largest float (`1e400`),
    // so the literal is no number; one too small to represent is 0.
    if f.is_infinite() {
        return None;
    }
    Some(Value::Float(if neg { -f } else { f }))
}

/// A hexadecimal float's text after `0x` (`1.8p1`, `.8p-2`; underscores
/// removed), rounded to the nearest float as Go's `strconv.ParseFloat`
/// rounds it (ties to even); `None` without the `p` exponent Go requires
/// or without a digit. Past the largest float it is infinite.
fn hex_float(h: &str) -> Option<f64> {
    let (mant, exp) = h.split_once('p')?;
    let exp: i64 = match exp.strip_prefix('-') {
        Some(d) if !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()) => {
            -(d.parse::<i64>().unwrap_or(100_000).min(100_000))
        }
        _ => {
            let d = exp.strip_prefix('+').unwrap_or(exp);
            if d.is_empty() || !d.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            d.parse::<i64>().unwrap_or(100_000).min(100_000)
        }
    };
    // The digits as an integer `m` (its first 60 bits; `sticky` when a
    // later digit was not zero) times 2^`e`.
    let (mut m, mut e, mut sticky, mut point, mut any) = (0u64, exp, false, false, false);
    for c in mant.chars() {
        if c == '.' {
            if point {
                return None;
            }
            point = true;
            continue;
        }
        let d = u64::from(c.to_digit(16)?);
        any = true;
        if m < 1 << 60 {
            m = m * 16 + d;
            if point {
                e -= 4;
            }
        } else {
            sticky |= d != 0;
            if !point {
                e += 4;
            }
        }
    }
    if !any {
        return None;
    }
    if m == 0 {
        return Some(0.0);
    }
    let bits = 64 - i64::from(m.leading_zeros());
    // The value is in [2^top, 2^(top+1)); a normal float keeps 53 bits, a
    // subnormal one fewer (its last bit is 2^-1074).
    let top = bits - 1 + e;
    if top > 1023 {
        return Some(f64::INFINITY);
    }
    let keep = if top >= -1022 { 53 } else { top + 1075 };
    if keep < 0 {
        return Some(0.0);
    }
    let shift = bits - keep;
    let (mut q, mut k) = (m, e);
    if shift > 0 {
        let wide = u128::from(m);
        let rem = wide & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        q = (wide >> shift) as u64;
        k += shift;
        if rem > half || (rem == half && (sticky || q & 1 == 1)) {
            q += 1;
        }
    }
    if q == 0 {
        return Some(0.0);
    }
    // q < 2^54 and q·2^k lies within the floats: two exact products.
    let pow2 = |k: i64| {
        if k >= -1022 {
            f64::from_bits(((k + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (k + 1074))
        }
    };
    let (k1, k2) = if k < -1022 { (k + 60, -60) } else { (k, 0) };
    let v = q as f64 * pow2(k1) * pow2(k2);
    Some(v)
}

// ------------------------------------------------------------ builtins

/// `text/template`'s `evalArgs` (for `html`, `js`, `urlquery`): one string
/// as it is, else `fmt.Sprint` of the arguments with a nil one printed as
/// `<no value>`.
fn eval_args(args: &[Value]) -> String {
    match args {
        [Value::Str(s)] => s.clone(),
        _ if args.iter().any(|a| matches!(a, Value::Nil)) => {
            let args: Vec<Value> = args
                .iter()
                .map(|a| match a {
                    Value::Nil => Value::Str("<no value>".into()),
                    a => a.clone(),
                })
                .collect();
            sprint(&args)
        }
        _ => sprint(args),
    }
}

/// The error of a method call: Go checks the number and types of the
/// arguments before the call (those errors stand alone); an error the
/// method returns is `error calling NAME: ...`.
fn method_error(name: &str, e: String) -> String {
    if e.starts_with("wrong number of args for ") || e.starts_with("wrong type for value; ") {
        e
    } else {
        format!("error calling {name}: {e}")
    }
}

/// The arguments with every object as its plain data, but for integers of
/// another Go type than `int` (Sprig's `int64`), which Go compares and
/// indexes with as integers and names by their own type in errors.
fn plain_objects(args: &[Value]) -> std::borrow::Cow<'_, [Value]> {
    use std::borrow::Cow;
    let other = |v: &Value| matches!(v, Value::Object(o) if o.0.as_int().is_none());
    if !args.iter().any(other) {
        return Cow::Borrowed(args);
    }
    Cow::Owned(
        args.iter()
            .map(|v| match v {
                Value::Object(o) if o.0.as_int().is_none() => o.0.plain(),
                v => v.clone(),
            })
            .collect(),
    )
}

/// The integer an `int` or an integer of another type holds.
fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Object(o) => o.0.as_int(),
        _ => None,
    }
}

fn index_of(v: &Value, what: &str) -> Result<i64, String> {
    if let Some(i) = int_of(v) {
        return Ok(i);
    }
    match v {
        Value::Nil => Err(format!("cannot index {what} with nil")),
        other => Err(format!(
            "cannot index {what} with type {}",
            other.type_name()
        )),
    }
}

/// Whether `i` indexes a slice or string of `len` elements, as Go's
/// `index` finds: its own check lets the length itself through, which
/// reflection then refuses (a panic, reported as the error).
fn in_range(i: i64, len: usize, what: &str) -> Result<(), String> {
    if i < 0 || i as usize > len {
        return Err(format!("index out of range: {i}"));
    }
    if i as usize == len {
        return Err(format!("reflect: {what} index out of range"));
    }
    Ok(())
}

fn index(args: &[Value]) -> Result<Value, String> {
    // Go: nil given (checked before any index, so `index nil` alone fails
    // too), or nil found (a missing key, a nil element).
    if matches!(args[0], Value::Nil) {
        return Err("index of untyped nil".into());
    }
    let mut item = args[0].clone();
    for ix in &args[1..] {
        item = match item {
            Value::Nil => return Err("index of nil pointer".into()),
            Value::List(mut l) => {
                let i = index_of(ix, "slice/array")?;
                in_range(i, l.len(), "slice")?;
                l.swap_remove(i as usize)
            }
            Value::Str(s) => {
                let i = index_of(ix, "slice/array")?;
                in_range(i, s.len(), "string")?;
                // A Go string's element is a byte.
                Value::uint8(s.as_bytes()[i as usize])
            }
            Value::Map(m) => match ix {
                Value::Str(k) => m.get_or_zero(k),
                Value::Nil => return Err("value is nil; should be of type string".into()),
                other => {
                    return Err(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    ));
                }
            },
            other => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(item)
}

fn slice(args: &[Value]) -> Result<Value, String> {
    let item = &args[0];
    let len = match item {
        Value::Nil => return Err("slice of untyped nil".into()),
        Value::List(l) => l.len(),
        Value::Str(s) => s.len(),
        other => return Err(format!("can't slice item of type {}", other.type_name())),
    };
    if args.len() > 3 {
        return Err(format!("too many slice indexes: {}", args.len() - 1));
    }
    if args.len() > 3 || (args.len() == 4 && matches!(item, Value::Str(_))) {
        return Err("cannot 3-index slice a string".into());
    }
    let mut idx = [0usize, len];
    for (k, a) in args[1..].iter().enumerate() {
        let i = index_of(a, "slice/array")?;
        if i < 0 || i as usize > len {
            return Err(format!("index out of range: {i}"));
        }
        idx[k] = i as usize;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    Ok(match item {
        Value::List(l) => Value::List(l[idx[0]..idx[1]].to_vec()),
        Value::Str(s) => {
            Value::Str(String::from_utf8_lossy(&s.as_bytes()[idx[0]..idx[1]]).into_owned())
        }
        _ => unreachable!("checked above"),
    })
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Float,
    Str,
    Other,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) => Kind::Int,
        Value::Object(o) if o.0.as_int().is_some() => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Str(_) => Kind::Str,
        _ => Kind::Other,
    }
}

fn incompatible(a: &Value, b: &Value) -> String {
    format!(
        "incompatible types for comparison: {} and {}",
        a.type_name(),
        b.type_name()
    )
}

/// Go's `eq` of the arguments (objects as they are: errors name their
/// types; compared as their plain data).
fn eq(args: &[Value]) -> Result<Value, String> {
    let plain = plain_objects(args);
    let a = &plain[0];
    if args.len() < 2 {
        return Err("missing argument for comparison".into());
    }
    for (i, b) in plain.iter().enumerate().skip(1) {
        let (ka, kb) = (kind(a), kind(b));
        let truth = if ka != kb {
            if !matches!(a, Value::Nil) && !matches!(b, Value::Nil) {
                return Err(incompatible(&args[0], &args[i]));
            }
            false
        } else {
            match (a, b) {
                (Value::Nil, Value::Nil) => true,
                (Value::Nil, _) | (_, Value::Nil) => false,
                // Go's `canCompare`: two values of different kinds (a list
                // and a map) are refused before either is looked at.
                (Value::List(_), Value::Map(_)) | (Value::Map(_), Value::List(_)) => {
                    let (a, b) = (&args[0], &args[i]);
                    return Err(format!(
                        "non-comparable types {}, {}",
                        crate::template::value::sprintf(
                            "%s: %v",
                            &[a.clone(), a.type_name().into()]
                        ),
                        crate::template::value::sprintf(
                            "%v: %v",
                            &[b.type_name().into(), b.clone()]
                        ),
                    ));
                }
                // (Go formats the reflect.Value with `%s`.)
                (Value::List(_) | Value::Map(_), _) | (_, Value::List(_) | Value::Map(_)) => {
                    let b = &args[i];
                    return Err(format!(
                        "non-comparable type {}: {}",
                        crate::template::value::sprintf("%s", std::slice::from_ref(b)),
                        b.type_name()
                    ));
                }
                _ if ka == Kind::Int => int_of(a) == int_of(b),
                _ => a == b,
            }
        };
        if truth {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

fn less(a: &Value, b: &Value) -> Result<bool, String> {
    // Go's `lt`: a value of no basic kind (nil, a map, a list) first;
    // then different kinds; then kinds with no order (bool).
    let (ka, kb) = (kind(a), kind(b));
    if ka == Kind::Other || kb == Kind::Other {
        return Err("invalid type for comparison".into());
    }
    if ka != kb {
        return Err(incompatible(a, b));
    }
    if ka == Kind::Bool {
        return Err("invalid type for comparison".into());
    }
    if ka == Kind::Int {
        return Ok(int_of(a) < int_of(b));
    }
    Ok(match (a, b) {
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::Str(x), Value::Str(y)) => x < y,
        _ => false,
    })
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if (c as u32) >= 0x80 && !super::value::go_is_print(c) => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

fn url_query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn len_of(v: &Value) -> Result<Value, String> {
    match v {
        Value::Str(s) => Ok(Value::Int(s.len() as i64)),
        Value::List(l) => Ok(Value::Int(l.len() as i64)),
        Value::Map(m) => Ok(Value::Int(m.len() as i64)),
        Value::Nil => Err("len of nil pointer".into()),
        other => Err(format!("len of type {}", other.type_name())),
    }
}

pub(crate) fn add_builtins(t: &mut Templates) {
    // `and`/`or` are evaluated lazily by the executor; these bodies only
    // register the names and arities.
    t.add_func("and", 1, None, |_, a| {
        Ok(a.last().cloned().unwrap_or_default())
    });
    t.add_func("or", 1, None, |_, a| {
        Ok(a.last().cloned().unwrap_or_default())
    });
    t.add_func("not", 1, Some(1), |_, a| Ok(Value::Bool(!a[0].is_true())));
    t.add_func("len", 1, Some(1), |_, a| match &a[0] {
        // A Go string's length is its bytes' (kept for one that is not
        // UTF-8); other objects count as their plain data.
        Value::Object(o) => match o.0.bytes() {
            Some(b) => Ok(Value::Int(b.len() as i64)),
            None if o.0.as_int().is_some() => Err(format!("len of type {}", o.0.type_name())),
            None => len_of(&o.0.plain()),
        },
        other => len_of(other),
    });
    t.add_func("index", 1, None, |_, a| index(&plain_objects(a)));
    // Go's `call` of a function value: Helm's data holds none.
    t.add_func("call", 1, None, |_, a| match &a[0] {
        Value::Nil => Err("call of nil".into()),
        v => Err(format!("{NOT_A_FUNCTION}{}", v.type_name())),
    });
    t.add_func("slice", 1, None, |_, a| slice(a));
    t.add_func("print", 0, None, |_, a| Ok(Value::Str(sprint(a))));
    t.add_func("println", 0, None, |_, a| Ok(Value::Str(sprintln(a))));
    t.add_func("printf", 1, None, |_, a| match &a[0] {
        Value::Str(f) => Ok(Value::Str(sprintf(f, &a[1..]))),
        other => Err(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        )),
    });
    t.add_func("eq", 1, None, |_, a| eq(a));
    t.add_func("ne", 2, Some(2), |_, a| {
        eq(a).map(|v| Value::Bool(!v.is_true()))
    });
    t.add_func("lt", 2, Some(2), |_, a| {
        let a = plain_objects(a);
        less(&a[0], &a[1]).map(Value::Bool)
    });
    t.add_func("le", 2, Some(2), |_, a| {
        let a = plain_objects(a);
        let lt = less(&a[0], &a[1])?;
        Ok(Value::Bool(lt || eq(&a)?.is_true()))
    });
    t.add_func("gt", 2, Some(2), |_, a| {
        let a = plain_objects(a);
        let lt = less(&a[0], &a[1])?;
        Ok(Value::Bool(!lt && !eq(&a)?.is_true()))
    });
    t.add_func("ge", 2, Some(2), |_, a| {
        let a = plain_objects(a);
        Ok(Value::Bool(!less(&a[0], &a[1])?))
    });
    t.add_func("html", 0, None, |_, a| {
        Ok(Value::Str(html_escape(&eval_args(a))))
    });
    t.add_func("js", 0, None, |_, a| {
        Ok(Value::Str(js_escape(&eval_args(a))))
    });
    t.add_func("urlquery", 0, None, |_, a| {
        Ok(Value::Str(url_query_escape(&eval_args(a))))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_literals_read_directly_as_the_general_reading_does() {
        let mut texts: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
        texts.extend(["999999999999999999", "123456789012345678", "5"].map(String::from));
        for t in &texts {
            assert_eq!(number_value(t), Some(Value::Int(t.parse().unwrap())), "{t}");
        }
        // Not decimal integers of the short form: the general reading.
        assert_eq!(number_value("010"), Some(Value::Int(8)));
        assert_eq!(number_value("1_000"), Some(Value::Int(1000)));
        assert_eq!(
            number_value("9223372036854775807"),
            Some(Value::Int(i64::MAX))
        );
        assert_eq!(number_value("1.5"), Some(Value::Float(1.5)));
    }
}
