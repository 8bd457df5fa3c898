//! The data a template works on, and Go's `fmt` printing of it.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::{memo, speculate};

/// A Go value with fields and methods (Helm's `.Files`, `.Capabilities`):
/// what a template can reach in it, and how `fmt` prints it.
pub trait Object: Send + Sync + std::fmt::Debug {
    /// The Go type name (`%T`, error messages).
    fn type_name(&self) -> &'static str;
    /// `fmt.Sprint` of the value.
    fn print(&self) -> String;
    /// What an action (`{{ x }}`) prints for the value: `text/template`
    /// calls a `String` method declared on the pointer type when the value
    /// is addressable (a field reached from the data, kept in a variable
    /// or as dot), which flate takes every object an action prints to be.
    fn print_action(&self) -> String {
        self.print()
    }
    /// A field (or niladic method) `name`; `None` when there is none.
    fn field(&self, name: &str) -> Option<Value>;
    /// A method call; `None` when there is no method `name`.
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>>;
    /// The parameter types of method `name`, which Go checks (at each
    /// argument) before the call; `None`: its arguments are taken as
    /// they are (and [`Object::call`] checks them).
    fn method_sig(&self, _name: &str) -> Option<&'static super::exec::Sig> {
        None
    }
    /// The value as plain data (for comparisons and the functions that
    /// see Go maps and slices).
    fn plain(&self) -> Value;
    /// Go's `reflect.Kind` of the value (Sprig's `kindOf`): most objects
    /// are pointers to structs.
    fn kind(&self) -> &'static str {
        "ptr"
    }
    /// What Go's `encoding/json` writes for the value (`toJson`, and
    /// `toYaml`, which Helm encodes through JSON): `None` when that is its
    /// plain data.
    fn json(&self) -> Option<Json> {
        None
    }
    /// Go's truth of the value.
    fn is_true(&self) -> bool {
        true
    }
    /// The bytes of a Go string that is not valid UTF-8 (what a chart's
    /// binary file read with `.Files.Get` is); `None` for other objects.
    fn bytes(&self) -> Option<&[u8]> {
        None
    }
    /// The result of the type's `String` method, which `fmt` uses for
    /// `%s` and `%q` (and `%v`, see [`Object::print`]); `None` when the
    /// type has none.
    fn string_method(&self) -> Option<String> {
        None
    }
    /// Whether the value is a nil slice or map (`%#v` prints `T(nil)`).
    fn is_nil(&self) -> bool {
        false
    }
    /// The elements of a slice of another type than `[]interface {}`
    /// ([`TypedSlice`]); `None` for other objects.
    fn slice_items(&self) -> Option<&[Value]> {
        None
    }
    /// The integer a Go integer of another type than `int` holds
    /// ([`GoInt`]): `fmt` formats it as an integer.
    fn as_int(&self) -> Option<i64> {
        None
    }
    /// The bytes of a Go `[]byte` ([`ByteSlice`]); `None` for other
    /// objects.
    fn byte_slice(&self) -> Option<&[u8]> {
        None
    }
}

/// The JSON form of an [`Object`].
#[derive(Debug)]
pub enum Json {
    /// A struct: its members in the order Go writes them (the fields' order).
    Struct(Vec<(&'static str, Value)>),
    /// Data written as any value is (a map's keys sorted).
    Value(Value),
}

/// A shared [`Object`]; two are equal when they are the same object.
#[derive(Clone, Debug)]
pub struct Obj(pub Arc<dyn Object>);

impl PartialEq for Obj {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A Go `map[string]interface{}`: shared, as Go maps are references. A
/// clone is the same map; what `set`, `unset` or `merge` change through
/// one clone, every other clone sees (a map read from `.Values`, put in a
/// `dict`, passed to `include` and changed there is changed in
/// `.Values`). [`Map::deep_copy`] makes an independent copy.
///
/// The lock is never held while template code runs: every operation here
/// takes it for one read or one change and releases it (a map is used by
/// one render, on one thread; a chart's default values may be read by
/// several renders at once and are copied before a render changes them).
///
/// A handle may carry Helm's named map type `Values` (what `.Values` is in
/// a chart's templates): the same map, with the methods `AsMap`, `Table`,
/// `PathValue` and `YAML`, and a type Go's type assertions to
/// `map[string]interface {}` reject (Sprig's `dig`).
///
/// A handle may also be a `map[string]string` of Helm's chart metadata
/// (`.Chart.Annotations`), which Go keeps nil when the chart has none, or a
/// nil `map[string]interface {}` (what `fromJson "null"` gives): a nil map
/// reads as an empty one, but Go's JSON encoder writes it `null`, and
/// `%#v` names it nil.
#[derive(Clone)]
pub struct Map {
    inner: Arc<Shared>,
    ty: MapType,
    /// The speculative run that made the map, 0 for none
    /// ([`super::speculate`]): only that run may change it.
    run: u32,
}

/// What the handles of one map share.
struct Shared {
    /// When the map was made ([`super::memo`]).
    serial: u64,
    entries: RwLock<BTreeMap<String, Value>>,
}

impl Shared {
    fn new(m: BTreeMap<String, Value>) -> Arc<Shared> {
        Arc::new(Shared {
            serial: memo::next_serial(),
            entries: RwLock::new(m),
        })
    }
}

impl Default for Map {
    fn default() -> Map {
        Map::new(BTreeMap::new())
    }
}

/// The Go type of a [`Map`] handle.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
enum MapType {
    /// `map[string]interface {}`.
    #[default]
    Any,
    /// A nil `map[string]interface {}`.
    NilAny,
    /// Helm's `Values`.
    HelmValues,
    /// `map[string]string`, nil when `true`.
    Strings(bool),
}

/// The Go type name of Helm's `Values` map type.
pub const HELM_VALUES_TYPE: &str = "common.Values";

impl Map {
    pub fn new(m: BTreeMap<String, Value>) -> Map {
        Map {
            inner: Shared::new(m),
            ty: MapType::Any,
            run: speculate::current(),
        }
    }

    /// A `map[string]string` of these entries; `None` is a nil one (Go's
    /// zero value, as a struct field left unset has it).
    pub fn strings(m: Option<BTreeMap<String, String>>) -> Map {
        let nil = m.is_none();
        Map {
            inner: Shared::new(
                m.unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, Value::Str(v)))
                    .collect(),
            ),
            ty: MapType::Strings(nil),
            run: speculate::current(),
        }
    }

    /// A nil `map[string]interface {}`: it reads as an empty map; nothing
    /// is to be stored in it (Go panics on that: see Sprig's `set`).
    pub fn nil() -> Map {
        Map {
            inner: Shared::new(BTreeMap::new()),
            ty: MapType::NilAny,
            run: speculate::current(),
        }
    }

    /// The same map, typed as Helm's `Values`.
    pub fn as_helm_values(&self) -> Map {
        Map {
            inner: self.inner.clone(),
            ty: MapType::HelmValues,
            run: self.run,
        }
    }

    /// The same map, typed `map[string]interface {}` (a nil one stays nil).
    pub fn as_plain(&self) -> Map {
        Map {
            inner: self.inner.clone(),
            ty: match self.ty {
                MapType::NilAny => MapType::NilAny,
                _ => MapType::Any,
            },
            run: self.run,
        }
    }

    /// A new map of these entries, of this handle's type.
    fn of_same_type(&self, m: BTreeMap<String, Value>) -> Map {
        Map {
            inner: Shared::new(m),
            ty: self.ty,
            run: speculate::current(),
        }
    }

    /// Whether this handle is typed as Helm's `Values`.
    pub fn is_helm_values(&self) -> bool {
        self.ty == MapType::HelmValues
    }

    /// Whether this is a nil Go map (written `null` by JSON encoders).
    pub fn is_nil(&self) -> bool {
        matches!(self.ty, MapType::Strings(true) | MapType::NilAny)
    }

    /// The entry `k`, or the zero value of the map's element type when
    /// there is none (what Go's `index` and, under Helm's
    /// `missingkey=zero`, a field lookup give): `""` in a
    /// `map[string]string`, nil otherwise.
    pub fn get_or_zero(&self, k: &str) -> Value {
        self.get(k).unwrap_or_else(|| match self.ty {
            MapType::Strings(_) => Value::Str(String::new()),
            _ => Value::Nil,
        })
    }

    /// Whether `other` is of the same Go type, nil-ness included.
    pub(crate) fn same_type(&self, other: &Map) -> bool {
        self.ty == other.ty
    }

    /// The entries, for reading; `None` while the map is being changed.
    pub(crate) fn try_read(&self) -> Option<RwLockReadGuard<'_, BTreeMap<String, Value>>> {
        memo::read(self.inner.serial);
        self.inner.entries.try_read()
    }

    /// [`Map::try_read`] without telling [`super::memo`] (for its own
    /// comparisons).
    pub(crate) fn peek(&self) -> Option<RwLockReadGuard<'_, BTreeMap<String, Value>>> {
        self.inner.entries.try_read()
    }

    /// Whether `other` is this map, or a map of the same Go type with the
    /// same keys, whose values `same` finds the same; `noted`: whether the
    /// two maps are read as [`Map::try_read`] reads (else as
    /// [`Map::peek`]). A map being changed is the same as no other.
    pub(crate) fn same_entries(
        &self,
        other: &Map,
        noted: bool,
        same: impl Fn(&Value, &Value) -> bool,
    ) -> bool {
        if !self.same_type(other) {
            return false;
        }
        if self.ptr_eq(other) {
            return true;
        }
        fn read(m: &Map, noted: bool) -> Option<RwLockReadGuard<'_, BTreeMap<String, Value>>> {
            if noted { m.try_read() } else { m.peek() }
        }
        let (Some(x), Some(y)) = (read(self, noted), read(other, noted)) else {
            return false;
        };
        x.len() == y.len()
            && x.iter()
                .zip(y.iter())
                .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
    }

    /// The Go type name.
    pub fn type_name(&self) -> &'static str {
        match self.ty {
            MapType::Any | MapType::NilAny => "map[string]interface {}",
            MapType::HelmValues => HELM_VALUES_TYPE,
            MapType::Strings(_) => "map[string]string",
        }
    }

    /// The entries, for reading. Do not call into template code, or change
    /// this map, while holding it.
    pub fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Value>> {
        self.try_read()
            .expect("a template map was read while it was being changed")
    }

    /// The entries, for changing. Do not call into template code, or read
    /// this map through another clone, while holding it.
    ///
    /// In a speculative run ([`super::speculate`]), a map the run did not
    /// make is not changed: the run is abandoned, and what is written goes
    /// to a scratch map.
    pub fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Value>> {
        let run = speculate::current();
        if run != self.run && run != 0 {
            speculate::order_matters();
            return speculate::scratch();
        }
        memo::changed(self.inner.serial);
        self.inner
            .entries
            .try_write()
            .expect("a template map was changed while it was being read")
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.read().get(key).cloned()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.read().contains_key(key)
    }

    pub fn insert(&self, key: impl Into<String>, v: Value) -> Option<Value> {
        self.write().insert(key.into(), v)
    }

    /// Sprig's `set`: [`Map::insert`], except that storing a scalar (nil,
    /// a boolean, a number, a string) where the same one is (the same kind
    /// of value, the same bits) is no change, and writes nothing (a
    /// template setting what it set before leaves the texts
    /// [`super::memo`] keeps, and a speculative run, undisturbed).
    pub fn set(&self, key: &str, v: Value) {
        let same = matches!(
            v,
            Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_)
        ) && self
            .try_read()
            .is_some_and(|m| m.get(key).is_some_and(|old| old.same_content(&v)));
        if !same {
            self.insert(key, v);
        }
    }

    pub fn remove(&self, key: &str) -> Option<Value> {
        self.write().remove(key)
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// The entries at this moment, in key order (the values are the same
    /// shared maps as in this map).
    pub fn entries(&self) -> Vec<(String, Value)> {
        self.read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// A shallow copy of the entries, as a new Rust map.
    pub fn to_btree(&self) -> BTreeMap<String, Value> {
        self.read().clone()
    }

    /// The same map (not only equal contents).
    /// The map's identity (its address): two clones of one map have the
    /// same.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.inner) as *const () as usize
    }

    pub fn ptr_eq(&self, other: &Map) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// An independent copy, nested maps and lists included.
    pub fn deep_copy(&self) -> Map {
        Map::new(self.deep_btree())
    }

    /// An independent copy of the entries, nested maps and lists included.
    pub fn deep_btree(&self) -> BTreeMap<String, Value> {
        deep_copy_guarded(self, 0)
    }
}

/// How deep [`Map::deep_copy`] and the printers follow nested maps: deeper
/// data can only be a map that contains itself.
pub const MAX_VALUE_DEPTH: usize = 10_000;

/// Runs one level of a walk over nested values at `depth`: past 128
/// levels (a map that holds itself, most likely), every 8th level makes
/// sure of 128 KiB of stack, growing it on the heap, so that a walk
/// thousands of levels deep ends as it should on any thread, in any build.
pub fn nested<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    if depth >= 128 && depth.is_multiple_of(8) {
        stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
    } else {
        f()
    }
}

/// Go's JSON encoder looks for cycles once this many maps and lists
/// enclose the value (`startDetectingCyclesAfter`).
pub const CYCLES_AFTER: usize = 1000;

/// The maps and lists a walk over nested values is inside, kept from
/// [`CYCLES_AFTER`] levels down as Go's JSON encoder keeps them: one met
/// again inside itself is a map or list that holds itself. `offset`: the
/// levels Go counts above the walk's value.
#[derive(Default)]
pub struct OpenContainers {
    ids: Vec<usize>,
    offset: usize,
}

impl OpenContainers {
    pub fn with_offset(offset: usize) -> OpenContainers {
        OpenContainers {
            ids: Vec::new(),
            offset,
        }
    }

    /// Walks into the container `id` (its address) at `depth` with `f`,
    /// given the walk `w` whose tracker `open` reaches: `None`, without
    /// calling `f`, when the container is already open (a cycle).
    pub fn enter<W, R>(
        w: &mut W,
        open: fn(&mut W) -> &mut OpenContainers,
        depth: usize,
        id: usize,
        f: impl FnOnce(&mut W) -> R,
    ) -> Option<R> {
        let o = open(w);
        if depth + o.offset <= CYCLES_AFTER {
            return Some(f(w));
        }
        if o.ids.contains(&id) {
            return None;
        }
        o.ids.push(id);
        let r = f(w);
        open(w).ids.pop();
        Some(r)
    }
}

fn deep_copy_guarded(m: &Map, depth: usize) -> BTreeMap<String, Value> {
    if depth > MAX_VALUE_DEPTH {
        return BTreeMap::new();
    }
    m.read()
        .iter()
        .map(|(k, v)| (k.clone(), deep_value(v, depth + 1)))
        .collect()
}

fn deep_value(v: &Value, depth: usize) -> Value {
    nested(depth, || deep_value_level(v, depth))
}

fn deep_value_level(v: &Value, depth: usize) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.of_same_type(deep_copy_guarded(m, depth))),
        Value::List(l) => Value::List(l.iter().map(|e| deep_value(e, depth + 1)).collect()),
        // A `[]byte` is never changed in place.
        Value::Object(o) if o.0.byte_slice().is_some() => v.clone(),
        Value::Object(o) if let Some(items) = o.0.slice_items() => Value::typed_list(
            items.iter().map(|e| deep_value(e, depth + 1)).collect(),
            o.0.type_name(),
        ),
        other => other.clone(),
    }
}

impl From<BTreeMap<String, Value>> for Map {
    fn from(m: BTreeMap<String, Value>) -> Map {
        Map::new(m)
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        Map::new(iter.into_iter().collect())
    }
}

impl PartialEq for Map {
    fn eq(&self, other: &Self) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        let (a, b) = (self.entries(), other.entries());
        a == b
    }
}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        thread_local!(static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });
        let d = DEPTH.with(|c| c.get());
        if d > 64 {
            return f.write_str("{...}");
        }
        DEPTH.with(|c| c.set(d + 1));
        let r = f.debug_map().entries(self.entries()).finish();
        DEPTH.with(|c| c.set(d));
        r
    }
}

/// A template value: the shapes Helm's data takes once decoded from YAML or
/// JSON (`interface{}` holding nil, bool, int64, float64, string,
/// `[]interface{}` or `map[string]interface{}`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// A nil `interface{}` (a missing map key, a YAML null, the `nil` literal).
    #[default]
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    /// Keys are kept sorted, as Go prints and ranges over maps. Shared:
    /// see [`Map`].
    Map(Map),
    /// A value with fields and methods ([`Object`]).
    Object(Obj),
}

impl Value {
    /// A new map value holding `m`.
    pub fn map(m: BTreeMap<String, Value>) -> Value {
        Value::Map(Map::new(m))
    }

    /// A hash of the value's content, for [`Value::same_content`]; `None`
    /// for a value holding an object or nested deeper than `MAX` levels
    /// (a map may hold itself).
    pub fn content_hash(&self) -> Option<u64> {
        use std::hash::{BuildHasher, Hash, Hasher};
        const MAX: usize = 64;
        fn walk(v: &Value, depth: usize, h: &mut impl Hasher) -> Option<()> {
            if depth > MAX {
                return None;
            }
            match v {
                Value::Nil => 0u8.hash(h),
                Value::Bool(b) => (1u8, b).hash(h),
                Value::Int(i) => (2u8, i).hash(h),
                Value::Float(f) => (3u8, f.to_bits()).hash(h),
                Value::Str(s) => (4u8, s).hash(h),
                Value::List(l) => {
                    (5u8, l.len()).hash(h);
                    for x in l {
                        walk(x, depth + 1, h)?;
                    }
                }
                Value::Map(m) => {
                    (6u8, m.type_name()).hash(h);
                    let entries = m.try_read()?;
                    entries.len().hash(h);
                    for (k, x) in entries.iter() {
                        k.hash(h);
                        walk(x, depth + 1, h)?;
                    }
                }
                Value::Object(o) => {
                    let items = o.0.slice_items()?;
                    (7u8, o.0.type_name(), items.len()).hash(h);
                    for x in items {
                        walk(x, depth + 1, h)?;
                    }
                }
            }
            Some(())
        }
        let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
        walk(self, 0, &mut h)?;
        Some(h.finish())
    }

    /// Whether `self` and `other` hold the same content: the same kinds
    /// of values (an integer is not a float), the same bits of each float,
    /// maps of the same Go type with the same entries. (Objects never.)
    pub fn same_content(&self, other: &Value) -> bool {
        self.same_by(
            other,
            &|a: &Map, b: &Map| a.same_entries(b, true, Value::same_content),
            false,
        )
    }

    /// Whether `self` and `other` are the same: nil, booleans, numbers and
    /// strings by content (the same kind of value, the same bits of a
    /// float), lists element by element, maps as `maps` says, objects by
    /// identity when `objects` (else never).
    pub(crate) fn same_by(
        &self,
        other: &Value,
        maps: &impl Fn(&Map, &Map) -> bool,
        objects: bool,
    ) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_by(y, maps, objects))
            }
            (Value::Map(a), Value::Map(b)) => maps(a, b),
            (Value::Object(a), Value::Object(b)) => {
                if objects && a == b {
                    return true;
                }
                match (a.0.slice_items(), b.0.slice_items()) {
                    (Some(x), Some(y)) => {
                        a.0.type_name() == b.0.type_name()
                            && x.len() == y.len()
                            && x.iter().zip(y).all(|(x, y)| x.same_by(y, maps, objects))
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// An independent copy: nested maps are new maps.
    pub fn deep_copy(&self) -> Value {
        deep_value(self, 0)
    }

    /// The Go type name, as `fmt` and `text/template` print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(m) => m.type_name(),
            Value::Object(o) => o.0.type_name(),
        }
    }

    /// Go's `text/template` truth: false, 0, "", nil, empty list or map are false.
    pub fn is_true(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Object(o) => o.0.is_true(),
        }
    }

    /// An object value.
    pub fn object(o: impl Object + 'static) -> Value {
        Value::Object(Obj(Arc::new(o)))
    }

    /// The value with every object replaced by its plain data (maps that
    /// hold objects are copied; others stay the same shared maps).
    pub fn to_plain(&self) -> std::borrow::Cow<'_, Value> {
        use std::borrow::Cow;
        if has_object(self, 0) {
            Cow::Owned(plain_copy(self, 0))
        } else {
            Cow::Borrowed(self)
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A nil Go slice: what Sprig's `rest`, `initial`, `concat`,
/// `regexFindAll` and `regexSplit` return when they have nothing to return.
/// It reads, prints, ranges and counts as an empty list; `toJson` (and
/// Helm's `toYaml`, which encodes through JSON) writes `null`, and `%#v`
/// names it nil. The name is its Go type.
#[derive(Debug)]
pub struct NilSlice(pub &'static str);

impl Object for NilSlice {
    fn type_name(&self) -> &'static str {
        self.0
    }
    fn print(&self) -> String {
        "[]".into()
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::List(Vec::new())
    }
    fn kind(&self) -> &'static str {
        "slice"
    }
    fn json(&self) -> Option<Json> {
        Some(Json::Value(Value::Nil))
    }
    fn is_true(&self) -> bool {
        false
    }
    fn is_nil(&self) -> bool {
        true
    }
}

/// A Go slice of another element type than `interface {}`, not nil: what
/// Sprig's `splitList`, `toStrings`, `sortAlpha`, `regexFindAll`,
/// `regexSplit` and `keys` (`[]string`), `until` and `untilStep`
/// (`[]int`) and `chunk` (`[][]interface {}`) return, and Helm's
/// `.Files.Lines` (`[]string`). It prints, ranges, indexes and counts as a
/// list and functions that take any value see its elements; its type
/// shows where Go names it (`typeOf`, `%T`, `%#v`, errors such as `can't
/// evaluate field x in type []int`), a parameter of type `[]interface {}`
/// or `map[string]interface {}` refuses it, and `reflect.DeepEqual`
/// (`has`, `uniq`, `without`) tells it from a `[]interface {}` of the same
/// elements.
#[derive(Debug)]
pub struct TypedSlice {
    pub type_name: &'static str,
    pub items: Vec<Value>,
}

impl Object for TypedSlice {
    fn type_name(&self) -> &'static str {
        self.type_name
    }
    fn print(&self) -> String {
        let mut out = String::new();
        write_list(&mut out, &self.items, 0);
        out
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::List(self.items.clone())
    }
    fn kind(&self) -> &'static str {
        "slice"
    }
    fn is_true(&self) -> bool {
        !self.items.is_empty()
    }
    fn slice_items(&self) -> Option<&[Value]> {
        Some(&self.items)
    }
}

/// A Go integer of another type than `int`: an `int64`, what Sprig's
/// integer arithmetic (`add`, `sub`, `mul`, `div`, `mod`, `add1`, `max`,
/// `min`) and `int64` and `toDecimal` return, or a `uint8` (a byte: what
/// `index` gives of a string or a `[]byte`). Go does not pass such a value
/// to an `int` parameter: `indent (add 1 1) "x"` fails with `expected int;
/// got int64`. It prints, formats, compares and encodes as the integer it
/// holds, and functions that take any value see that integer.
#[derive(Debug)]
pub struct GoInt {
    /// `int64` or `uint8`.
    pub ty: &'static str,
    pub n: i64,
}

impl Object for GoInt {
    fn type_name(&self) -> &'static str {
        self.ty
    }
    fn print(&self) -> String {
        self.n.to_string()
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::Int(self.n)
    }
    fn kind(&self) -> &'static str {
        self.ty
    }
    fn json(&self) -> Option<Json> {
        Some(Json::Value(Value::Int(self.n)))
    }
    fn is_true(&self) -> bool {
        self.n != 0
    }
    fn as_int(&self) -> Option<i64> {
        Some(self.n)
    }
}

/// A Go `[]byte`: what Helm's `.Files.GetBytes` returns. It indexes,
/// ranges and counts as a list of `uint8`, prints as one with `%v` and
/// `%d`, and as text with `%s`, `%q`, `%x` and `%X`; Sprig's string
/// conversions (`toString`, `quote`, `join`) read it as text, and Go's
/// JSON encoder (`toJson`, `toYaml`) writes it as its base64 text.
#[derive(Debug)]
pub struct ByteSlice {
    bytes: Arc<[u8]>,
    items: std::sync::OnceLock<Vec<Value>>,
}

impl Object for ByteSlice {
    fn type_name(&self) -> &'static str {
        "[]uint8"
    }
    fn print(&self) -> String {
        let parts: Vec<String> = self.bytes.iter().map(u8::to_string).collect();
        format!("[{}]", parts.join(" "))
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::List(self.elements().to_vec())
    }
    fn kind(&self) -> &'static str {
        "slice"
    }
    fn json(&self) -> Option<Json> {
        use base64::Engine;
        Some(Json::Value(Value::Str(
            base64::engine::general_purpose::STANDARD.encode(&self.bytes),
        )))
    }
    fn is_true(&self) -> bool {
        !self.bytes.is_empty()
    }
    fn slice_items(&self) -> Option<&[Value]> {
        Some(self.elements())
    }
    fn byte_slice(&self) -> Option<&[u8]> {
        Some(&self.bytes)
    }
}

impl ByteSlice {
    fn elements(&self) -> &[Value] {
        self.items
            .get_or_init(|| self.bytes.iter().map(|&b| Value::uint8(b)).collect())
    }
}

impl Value {
    /// A Go `int64` ([`GoInt`]).
    pub fn int64(i: i64) -> Value {
        Value::Object(Obj(Arc::new(GoInt { ty: "int64", n: i })))
    }

    /// A Go `uint8` ([`GoInt`]).
    pub fn uint8(b: u8) -> Value {
        Value::Object(Obj(Arc::new(GoInt {
            ty: "uint8",
            n: i64::from(b),
        })))
    }

    /// A Go `[]byte` holding `bytes` ([`ByteSlice`]).
    pub fn byte_slice(bytes: Arc<[u8]>) -> Value {
        Value::Object(Obj(Arc::new(ByteSlice {
            bytes,
            items: std::sync::OnceLock::new(),
        })))
    }

    /// The integer a Go `int64` ([`GoInt`]) holds; `None` for any other
    /// value, an `int` among them.
    pub fn as_int64(&self) -> Option<i64> {
        match self {
            Value::Object(o) if o.0.type_name() == "int64" => o.0.as_int(),
            _ => None,
        }
    }

    /// The bytes of a Go `[]byte` ([`ByteSlice`]); `None` for any other
    /// value.
    pub fn as_byte_slice(&self) -> Option<&[u8]> {
        match self {
            Value::Object(o) => o.0.byte_slice(),
            _ => None,
        }
    }

    /// A slice of Go type `type_name` holding `items` ([`TypedSlice`]).
    pub fn typed_list(items: Vec<Value>, type_name: &'static str) -> Value {
        Value::Object(Obj(Arc::new(TypedSlice { type_name, items })))
    }

    /// The elements of a list, or of a slice of another Go type
    /// ([`TypedSlice`]); `None` for other values.
    pub fn list_items(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            Value::Object(o) => o.0.slice_items(),
            _ => None,
        }
    }

    /// A nil slice of Go type `type_name` ([`NilSlice`]).
    pub fn nil_slice(type_name: &'static str) -> Value {
        Value::Object(Obj(Arc::new(NilSlice(type_name))))
    }

    /// Go's `reflect.DeepEqual` of two values, as Sprig's `has`, `without`
    /// and `uniq` compare: values of different Go types differ (an `int64`
    /// from `add` is not the `int` 2, a nil map not an empty one), two
    /// `int64`s of the same value are equal, lists and maps element by
    /// element.
    pub fn deep_equal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Object(a), Value::Object(b)) => {
                if a == b {
                    return true;
                }
                if a.0.type_name() != b.0.type_name() || a.0.is_nil() != b.0.is_nil() {
                    return false;
                }
                if let (Some(x), Some(y)) = (a.0.slice_items(), b.0.slice_items()) {
                    return x.len() == y.len() && x.iter().zip(y).all(|(x, y)| x.deep_equal(y));
                }
                match (a.0.as_int(), b.0.as_int()) {
                    (Some(x), Some(y)) => x == y,
                    _ => a.0.plain().deep_equal(&b.0.plain()),
                }
            }
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.deep_equal(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.ptr_eq(b) {
                    return true;
                }
                if a.type_name() != b.type_name() || a.is_nil() != b.is_nil() {
                    return false;
                }
                let (a, b) = (a.entries(), b.entries());
                a.len() == b.len()
                    && a.iter()
                        .zip(&b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.deep_equal(vb))
            }
            (a, b) => a == b,
        }
    }

    /// A list, or a nil slice of Go type `type_name` when `items` is empty.
    pub fn list_or_nil(items: Vec<Value>, type_name: &'static str) -> Value {
        if items.is_empty() {
            Value::nil_slice(type_name)
        } else if type_name == "[]interface {}" {
            Value::List(items)
        } else {
            Value::typed_list(items, type_name)
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}

/// `fmt.Sprint(v)` (the `%v` verb).
pub fn sprint_value(v: &Value) -> String {
    let mut s = String::new();
    write_v(&mut s, v);
    s
}

fn has_object(v: &Value, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match v {
        Value::Object(_) => true,
        Value::List(l) => l.iter().any(|e| has_object(e, depth + 1)),
        Value::Map(m) => m.read().values().any(|e| has_object(e, depth + 1)),
        _ => false,
    }
}

fn plain_copy(v: &Value, depth: usize) -> Value {
    if depth > MAX_VALUE_DEPTH {
        return Value::Nil;
    }
    match v {
        Value::Object(o) => o.0.plain(),
        Value::List(l) => Value::List(l.iter().map(|e| plain_copy(e, depth + 1)).collect()),
        Value::Map(m) if has_object(v, depth) => Value::map(
            m.read()
                .iter()
                .map(|(k, e)| (k.clone(), plain_copy(e, depth + 1)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn write_v(out: &mut String, v: &Value) {
    write_v_at(out, v, 0)
}

fn write_v_at(out: &mut String, v: &Value, depth: usize) {
    nested(depth, || write_v_level(out, v, depth))
}

fn write_v_level(out: &mut String, v: &Value, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        out.push_str("...");
        return;
    }
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&format_float_g(*f, None, false)),
        Value::Str(s) => out.push_str(s),
        Value::List(l) => write_list(out, l, depth),
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, e)) in m.read().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v_at(out, e, depth + 1);
            }
            out.push(']');
        }
        Value::Object(o) => out.push_str(&o.0.print()),
    }
}

/// `%v` of a list's elements, at `depth`.
fn write_list(out: &mut String, l: &[Value], depth: usize) {
    out.push('[');
    for (i, e) in l.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_v_at(out, e, depth + 1);
    }
    out.push(']');
}

/// `fmt.Sprint(args...)`: a space between operands when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, Value::Str(_)) && !matches!(args[i - 1], Value::Str(_)) {
            out.push(' ');
        }
        write_v(&mut out, a);
    }
    out
}

/// `fmt.Sprintln(args...)`: always a space between operands, then a newline.
pub fn sprintln(args: &[Value]) -> String {
    let parts: Vec<String> = args.iter().map(sprint_value).collect();
    let mut s = parts.join(" ");
    s.push('\n');
    s
}

/// Shortest decimal digits and exponent of a finite non-zero float:
/// value = 0.d1d2d3... * 10^dp.
fn shortest_digits(f: f64) -> (String, i32) {
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0').to_string();
    let digits = if digits.is_empty() {
        "0".into()
    } else {
        digits
    };
    (digits, exp + 1)
}

/// Go's `%g` (precision None = shortest, `%v` style); `upper` for `%G`.
pub fn format_float_g(f: f64, prec: Option<usize>, upper: bool) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let neg = f < 0.0;
    let (digits, dp, eprec) = match prec {
        None => {
            let (d, dp) = shortest_digits(f);
            (d, dp, 6)
        }
        Some(p) => {
            let p = p.max(1);
            let s = format!("{:.*e}", p - 1, f.abs());
            let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
            let exp: i32 = exp.parse().unwrap_or(0);
            let d: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
            let d = d.trim_end_matches('0').to_string();
            let d = if d.is_empty() { "0".into() } else { d };
            let nd = d.len() as i32;
            let mut eprec = p as i32;
            if eprec > nd && nd > exp {
                eprec = nd;
            }
            (d, exp + 1, eprec)
        }
    };
    let exp = dp - 1;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= eprec {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        push_exponent(&mut out, if upper { 'E' } else { 'e' }, exp as i64);
    } else if dp <= 0 {
        out.push_str("0.");
        for _ in 0..(-dp) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let dpu = dp as usize;
        if digits.len() <= dpu {
            out.push_str(&digits);
            for _ in digits.len()..dpu {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..dpu]);
            out.push('.');
            out.push_str(&digits[dpu..]);
        }
    }
    out
}

/// Go's `unicode.IsPrint` (as `strconv.IsPrint`, which `%q` and
/// `quote` escape by): letters, marks, numbers, punctuation, symbols and
/// the ASCII space, as of Unicode 15.0 (Go 1.21 and later). Not
/// printable: control and format characters, private use, every
/// separator but the ASCII space, and what Unicode 15.0 leaves unassigned
/// (see [`crate::gounicode`]).
pub fn go_is_print(c: char) -> bool {
    crate::gounicode::is_print(c)
}

/// Go's `strconv.QuoteRune` (`%q` of a rune): single-quoted, escaped as
/// [`go_quote`] escapes, `'` escaped and `"` not.
pub fn go_quote_rune(c: char) -> String {
    quote_rune_with(c, go_quote)
}

fn quote_rune_with(c: char, quote: fn(&str) -> String) -> String {
    let q = quote(&c.to_string());
    let inner = &q[1..q.len() - 1];
    let inner = match inner {
        "\\\"" => "\"",
        "'" => "\\'",
        other => other,
    };
    format!("'{inner}'")
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits that fit 64
/// bits; the error is Go's.
pub fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", go_quote(s)))
}

pub fn go_quote(s: &str) -> String {
    quote_with(s, go_is_print)
}

/// Go's `strconv.QuoteToASCII` (`%+q`): as [`go_quote`], but every
/// character past ASCII escaped.
pub fn go_quote_ascii(s: &str) -> String {
    quote_with(s, |c| c.is_ascii() && go_is_print(c))
}

/// A double-quoted Go string literal of `s`, the characters `print`
/// refuses escaped.
fn quote_with(s: &str, print: fn(char) -> bool) -> String {
    let mut out = String::from("\"");
    quote_chars(&mut out, s, print);
    out.push('"');
    out
}

/// Go's `strconv.Quote` of a string's bytes: each byte that is not part of
/// valid UTF-8 written as `\xNN`.
pub fn go_quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in b.utf8_chunks() {
        quote_chars(&mut out, chunk.valid(), go_is_print);
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

fn quote_chars(out: &mut String, s: &str, print: fn(char) -> bool) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if !print(c) => {
                let n = c as u32;
                if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
}

struct Spec {
    minus: bool,
    plus: bool,
    zero: bool,
    space: bool,
    sharp: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

fn pad(s: String, sp: &Spec) -> String {
    let w = match sp.width {
        Some(w) => w,
        None => return s,
    };
    let n = s.chars().count();
    if n >= w {
        return s;
    }
    let fill = w - n;
    if sp.minus {
        format!("{s}{}", " ".repeat(fill))
    } else if sp.zero {
        if let Some(rest) = s.strip_prefix('-') {
            format!("-{}{rest}", "0".repeat(fill))
        } else if let Some(rest) = s.strip_prefix('+') {
            format!("+{}{rest}", "0".repeat(fill))
        } else {
            format!("{}{s}", "0".repeat(fill))
        }
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

/// A verb that does not apply to the value: Go writes the value's type
/// and the value as `%v` with the verb's flags, width and precision
/// (`%8t` of 255 is `%!t(int=     255)`; the `+` flag stays a sign there).
fn bad_verb(verb: char, v: &Value, sp: &Spec) -> String {
    match v {
        Value::Nil => format!("%!{verb}(<nil>)"),
        _ => format!("%!{verb}({}={})", v.type_name(), fmt_value('v', v, sp)),
    }
}

fn sign(s: String, nonneg: bool, sp: &Spec) -> String {
    if nonneg && sp.plus {
        format!("+{s}")
    } else if nonneg && sp.space {
        format!(" {s}")
    } else {
        s
    }
}

/// An integer as Go's `fmt` writes it for `%v`, `%d`, `%b`, `%o`, `%O`,
/// `%x` and `%X` (`fmtInteger`), padded to the width: a precision is the
/// least number of digits (`%.3d` of 5 is `005`; of 0 with precision 0,
/// nothing) and then pads with spaces, a zero flag without one pads the
/// digits with zeros (after the sign), `#` adds `0b`, `0` or `0x`/`0X`,
/// `%O` always `0o`.
fn fmt_integer(i: i64, base: u32, verb: char, sp: &Spec) -> String {
    let negative = i < 0;
    let u = i.unsigned_abs();
    let spaces = |s: String| pad(s, &Spec { zero: false, ..*sp });
    let prec = match sp.prec {
        Some(0) if u == 0 => return spaces(String::new()),
        Some(p) => p,
        None if sp.zero && !sp.minus && sp.width.is_some() => {
            let w = sp.width.unwrap_or(0);
            if negative || sp.plus || sp.space {
                w.saturating_sub(1)
            } else {
                w
            }
        }
        None => 0,
    };
    let digits = match base {
        2 => format!("{u:b}"),
        8 => format!("{u:o}"),
        16 if verb == 'X' => format!("{u:X}"),
        16 => format!("{u:x}"),
        _ => u.to_string(),
    };
    let mut out = String::new();
    if negative {
        out.push('-');
    } else if sp.plus {
        out.push('+');
    } else if sp.space {
        out.push(' ');
    }
    if verb == 'O' {
        out.push_str("0o");
    }
    let zeros = prec.saturating_sub(digits.len());
    if sp.sharp {
        match base {
            2 => out.push_str("0b"),
            8 if zeros == 0 && !digits.starts_with('0') => out.push('0'),
            16 => out.push_str(if verb == 'X' { "0X" } else { "0x" }),
            _ => {}
        }
    }
    out.extend(std::iter::repeat_n('0', zeros));
    out.push_str(&digits);
    spaces(out)
}

/// `%b` of a float (`strconv.FormatFloat(f, 'b', -1, 64)`): the integer
/// mantissa and the binary exponent, `6755399441055744p-52` for 1.5.
fn float_binary(f: f64) -> String {
    let bits = f.to_bits();
    let frac = bits & ((1 << 52) - 1);
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let (mant, exp) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    let minus = if f.is_sign_negative() { "-" } else { "" };
    format!("{minus}{mant}p{}{}", if exp >= 0 { "+" } else { "" }, exp)
}

/// `%x` and `%X` of a float (`strconv.FormatFloat(f, 'x', prec, 64)`):
/// a hexadecimal mantissa with one leading digit, as short as it can be
/// or of `prec` digits after the point (rounded half to even), and a
/// binary exponent of at least two digits: `0x1.8p+00` for 1.5.
fn float_hex(f: f64, prec: Option<usize>, upper: bool) -> String {
    let bits = f.to_bits();
    let frac = bits & ((1 << 52) - 1);
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let (mut mant, mut exp) = if biased == 0 {
        (frac, -1022)
    } else {
        (frac | (1 << 52), biased - 1023)
    };
    // The leading 1 at bit 60.
    mant <<= 60 - 52;
    if mant == 0 {
        exp = 0;
    }
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if let Some(p) = prec.filter(|&p| p < 15) {
        let shift = (p * 4) as u32;
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    out.push_str(if upper { "0X" } else { "0x" });
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    match prec {
        None if mant != 0 => {
            out.push('.');
            while mant != 0 {
                out.push(hex[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        Some(p) if p > 0 => {
            out.push('.');
            for _ in 0..p {
                out.push(hex[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        _ => {}
    }
    push_exponent(&mut out, if upper { 'P' } else { 'p' }, exp);
    out
}

/// An exponent as Go writes it after a mantissa: the letter, its sign, at
/// least two digits (`e+06`, `p-02`).
fn push_exponent(out: &mut String, letter: char, exp: i64) {
    out.push(letter);
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

/// `%q`, `%s`, `%x`, `%X` of an object that is a Go string that is not
/// UTF-8 (its bytes kept) or has a `String` method; `None` otherwise.
fn object_as_string(verb: char, o: &Obj, sp: &Spec) -> Option<String> {
    if let Some(b) = o.0.bytes() {
        return Some(match verb {
            'q' => go_quote_bytes(b),
            's' => o.0.print(),
            _ => hex_bytes(b, verb == 'X', sp),
        });
    }
    // A `[]byte` formats as the string of its bytes.
    if let Some(b) = o.0.byte_slice() {
        return Some(match (verb, std::str::from_utf8(b)) {
            (_, Ok(text)) => fmt_value(verb, &Value::Str(text.to_string()), sp),
            ('q', Err(_)) => go_quote_bytes(b),
            ('s', Err(_)) => String::from_utf8_lossy(b).into_owned(),
            (_, Err(_)) => hex_bytes(b, verb == 'X', sp),
        });
    }
    let text = o.0.string_method().filter(|_| matches!(verb, 's' | 'q'))?;
    Some(if verb == 's' { text } else { go_quote(&text) })
}

/// `%#v` of a slice or map, as Go writes it: its type, then its elements
/// in Go syntax (`[]interface {}{1, "a"}`, `map[string]interface
/// {}{"k":1}`), or `T(nil)` when it is nil. `None` for other values.
fn go_syntax(v: &Value, sp: &Spec) -> Option<String> {
    let elem = |e: &Value| match e {
        Value::Nil => "interface {}(nil)".to_string(),
        // An element's type is named by reflection: `[]uint8`, not `[]byte`.
        Value::Object(o) if o.0.byte_slice().is_some() => {
            let s = fmt_one('v', e, sp);
            match s.strip_prefix("[]byte") {
                Some(rest) => format!("[]uint8{rest}"),
                None => s,
            }
        }
        e => fmt_one('v', e, sp),
    };
    Some(match v {
        Value::List(l) => {
            let parts: Vec<String> = l.iter().map(elem).collect();
            format!("[]interface {{}}{{{}}}", parts.join(", "))
        }
        // A `[]byte`: its bytes in hexadecimal (the type as `fmt` names
        // an argument's; an element's would be `[]uint8`).
        Value::Object(o) if let Some(b) = o.0.byte_slice() => {
            let parts: Vec<String> = b.iter().map(|b| format!("{b:#x}")).collect();
            format!("[]byte{{{}}}", parts.join(", "))
        }
        // A slice of another type: `[]string{"a"}`, `common.VersionSet{...}`.
        Value::Object(o) if o.0.kind() == "slice" && !o.0.is_nil() => {
            let Value::List(l) = o.0.plain() else {
                return None;
            };
            let parts: Vec<String> = l.iter().map(elem).collect();
            format!("{}{{{}}}", o.0.type_name(), parts.join(", "))
        }
        Value::Map(m) if m.is_nil() => format!("{}(nil)", m.type_name()),
        Value::Map(m) => {
            let parts: Vec<String> = m
                .entries()
                .iter()
                .map(|(k, e)| format!("{}:{}", elem(&Value::Str(k.clone())), elem(e)))
                .collect();
            format!("{}{{{}}}", m.type_name(), parts.join(", "))
        }
        Value::Object(o) if o.0.is_nil() => format!("{}(nil)", o.0.type_name()),
        _ => return None,
    })
}

/// One value as Go's `fmt` writes it for `verb` (as written in the
/// format), padded to the width as Go pads each value it formats: the
/// elements of a list or map one by one, and for a verb that does not
/// apply, the value inside `%!verb(type=value)`.
fn fmt_one(verb: char, v: &Value, sp: &Spec) -> String {
    if verb == 'v' && sp.sharp {
        if let Value::Str(s) = v {
            let cut: String = match sp.prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            };
            return pad(go_quote(&cut), sp);
        }
        // A list or map is written piece by piece, each key and element
        // padded and cut, the whole not padded.
        if let Some(s) = go_syntax(v, sp) {
            return s;
        }
        // An unsigned integer in Go syntax is hexadecimal.
        if let Value::Object(o) = v
            && o.0.type_name() == "uint8"
            && let Some(i) = o.0.as_int()
        {
            return pad(format!("{i:#x}"), sp);
        }
        // Go turns `%#v`'s `#` into its Go-syntax flag: a number is
        // written as by `%v`, without `#`'s alternate forms.
        return fmt_value(
            verb,
            v,
            &Spec {
                sharp: false,
                plus: false,
                ..*sp
            },
        );
    }
    if verb == 'v' && sp.plus {
        // `%+v` asks for a struct's field names (Go's `plusV`), not a
        // number's sign.
        return fmt_value(verb, v, &Spec { plus: false, ..*sp });
    }
    fmt_value(verb, v, sp)
}

/// [`fmt_one`] past Go's `%#v` and `%+v` forms (a `+` here is a sign:
/// how a value is written for a verb that does not apply to it).
fn fmt_value(verb: char, v: &Value, sp: &Spec) -> String {
    // An integer of another type formats as an integer (a verb that does
    // not apply to integers names its own type).
    if matches!(
        verb,
        'v' | 'd' | 'b' | 'o' | 'O' | 'x' | 'X' | 'c' | 'q' | 'U'
    ) && let Value::Object(o) = v
        && let Some(i) = o.0.as_int()
    {
        return fmt_value(verb, &Value::Int(i), sp);
    }
    // An element of no value inside a list or map is Go's nil interface,
    // which `printValue` writes as `<nil>` whatever the verb, flags, width
    // and precision (only a nil argument itself is a bad verb).
    let element = |e: &Value| match e {
        Value::Nil => "<nil>".to_string(),
        e => fmt_one(verb, e, sp),
    };
    match (verb, v) {
        (_, Value::List(l)) if verb != 'T' => {
            let parts: Vec<String> = l.iter().map(element).collect();
            return format!("[{}]", parts.join(" "));
        }
        // A slice of another type (or a nil one) formats its elements the
        // same way.
        (_, Value::Object(o))
            if verb != 'T'
                && o.0.kind() == "slice"
                && !(o.0.byte_slice().is_some() && matches!(verb, 'q' | 's' | 'x' | 'X')) =>
        {
            if let Value::List(l) = o.0.plain() {
                let parts: Vec<String> = l.iter().map(element).collect();
                return format!("[{}]", parts.join(" "));
            }
        }
        (_, Value::Map(m)) if verb != 'T' => {
            let parts: Vec<String> = m
                .entries()
                .iter()
                .map(|(k, e)| {
                    format!(
                        "{}:{}",
                        fmt_one(verb, &Value::Str(k.clone()), sp),
                        element(e)
                    )
                })
                .collect();
            return format!("map[{}]", parts.join(" "));
        }
        _ => {}
    }
    match fmt_scalar(verb, v, sp) {
        // Zeros go after a float's sign, a space too.
        Some(s) if matches!(v, Value::Float(_)) && sp.zero && !sp.minus && s.starts_with(' ') => {
            let width = sp.width.map(|w| w.saturating_sub(1));
            format!(" {}", pad(s[1..].to_string(), &Spec { width, ..*sp }))
        }
        Some(s) => pad(s, sp),
        None => bad_verb(verb, v, sp),
    }
}

/// A value that is not a list or map, unpadded; `None` when the verb does
/// not apply to it.
fn fmt_scalar(verb: char, v: &Value, sp: &Spec) -> Option<String> {
    Some(match (verb, v) {
        // (Go pads nil's `<nil>` but does not cut it.)
        ('T', _) => match sp.prec {
            Some(p) if *v != Value::Nil => v.type_name().chars().take(p).collect(),
            _ => v.type_name().to_string(),
        },
        // (With `#` only inside a bad verb's `%!verb(type=value)`: `%#v`
        // itself is Go syntax, written by `fmt_one`.)
        ('v', Value::Float(f)) => sign(
            sharp_float(format_float_g(*f, sp.prec, false), *f, 'g', sp),
            *f >= 0.0,
            sp,
        ),
        ('v' | 'd', Value::Int(i)) => fmt_integer(*i, 10, verb, sp),
        ('b', Value::Int(i)) => fmt_integer(*i, 2, verb, sp),
        ('o' | 'O', Value::Int(i)) => fmt_integer(*i, 8, verb, sp),
        ('x' | 'X', Value::Int(i)) => fmt_integer(*i, 16, verb, sp),
        ('v', Value::Str(s)) => match sp.prec {
            Some(p) => s.chars().take(p).collect(),
            None => s.clone(),
        },
        ('v', _) => sprint_value(v),
        ('s', Value::Str(s)) => match sp.prec {
            Some(p) => s.chars().take(p).collect(),
            None => s.clone(),
        },
        ('q' | 's' | 'x' | 'X', Value::Object(o))
            if let Some(s) = object_as_string(verb, o, sp) =>
        {
            s
        }
        ('q', Value::Str(s)) if sp.prec.is_some_and(|p| s.chars().count() > p) => {
            // The precision cuts the string before it is quoted.
            let cut: String = s.chars().take(sp.prec.unwrap_or(0)).collect();
            fmt_one(verb, &Value::Str(cut), sp)
        }
        ('q', Value::Str(s)) if sp.sharp && can_backquote(s) => format!("`{s}`"),
        ('q', Value::Str(s)) if sp.plus => go_quote_ascii(s),
        ('q', Value::Str(s)) => go_quote(s),
        ('q', Value::Int(i)) => {
            // Beyond Unicode is the replacement character.
            let c = u32::try_from(*i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            if sp.plus {
                quote_rune_with(c, go_quote_ascii)
            } else {
                go_quote_rune(c)
            }
        }
        ('t', Value::Bool(b)) => b.to_string(),
        ('c', Value::Int(i)) => char::from_u32(*i as u32).unwrap_or('\u{FFFD}').to_string(),
        ('x' | 'X', Value::Str(s)) => hex_bytes(s.as_bytes(), verb == 'X', sp),
        ('U', Value::Int(i)) => {
            // At least four digits, more by the precision; padded with
            // spaces whatever the zero flag says.
            let digits = sp.prec.unwrap_or(0).max(4);
            let u = format!("U+{:0digits$X}", *i as u64);
            let s = match char::from_u32(*i as u32) {
                Some(c) if sp.sharp && *i >= 0 && go_is_print(c) => format!("{u} '{c}'"),
                _ => u,
            };
            pad(s, &Spec { zero: false, ..*sp })
        }
        ('f' | 'F', Value::Float(f)) => sign(
            sharp_float(format!("{:.*}", sp.prec.unwrap_or(6), f), *f, verb, sp),
            *f >= 0.0,
            sp,
        ),
        ('e' | 'E', Value::Float(f)) => {
            let s = format!("{:.*e}", sp.prec.unwrap_or(6), f);
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            let ec = if verb == 'E' { 'E' } else { 'e' };
            let es = if e < 0 { '-' } else { '+' };
            let text = format!("{m}{ec}{es}{:02}", e.unsigned_abs());
            sign(sharp_float(text, *f, verb, sp), *f >= 0.0, sp)
        }
        ('g' | 'G', Value::Float(f)) => sign(
            sharp_float(format_float_g(*f, sp.prec, verb == 'G'), *f, verb, sp),
            *f >= 0.0,
            sp,
        ),
        ('x' | 'X' | 'b', Value::Float(f)) => {
            let text = if !f.is_finite() {
                format_float_g(*f, None, false)
            } else if verb == 'b' {
                float_binary(*f)
            } else {
                sharp_float(float_hex(*f, sp.prec, verb == 'X'), *f, verb, sp)
            };
            sign(text, f.is_sign_positive() && !f.is_nan(), sp)
        }
        _ => return None,
    })
}

/// A float written for `verb` with the `#` flag, as Go's `fmtFloat` does:
/// the decimal point is always there, and for `%g`, `%G` and `%x` (not
/// `%X`, a quirk of Go's) trailing zeros are kept up to the precision (6
/// when none is given) in significant digits. The exponent is left as it
/// is. Infinities and NaN are not touched; nor is anything without `#`.
fn sharp_float(text: String, f: f64, verb: char, sp: &Spec) -> String {
    if !sp.sharp || !f.is_finite() {
        return text;
    }
    let mut digits: usize = match verb {
        'g' | 'G' | 'x' => sp.prec.unwrap_or(6),
        _ => 0,
    };
    let hex = matches!(verb, 'x' | 'X');
    let (sgn, body) = text.split_at(usize::from(text.starts_with('-')));
    // The exponent: `p…` for hexadecimal, `e…` otherwise (`e` is a digit
    // in hexadecimal).
    let tail_at = body
        .char_indices()
        .find(|&(_, c)| matches!(c, 'p' | 'P') || (!hex && matches!(c, 'e' | 'E')))
        .map_or(body.len(), |(i, _)| i);
    let (num, tail) = body.split_at(tail_at);
    let mut num = num.to_string();
    let mut seen_nonzero = false;
    let mut point = false;
    // Go counts every character after the sign: the `x` of a `0x`
    // prefix counts as a significant digit, its `0` does not.
    for c in num.chars() {
        if c == '.' {
            point = true;
            continue;
        }
        if c != '0' {
            seen_nonzero = true;
        }
        if seen_nonzero {
            digits = digits.saturating_sub(1);
        }
    }
    if !point {
        if num == "0" {
            digits = digits.saturating_sub(1);
        }
        num.push('.');
    }
    num.extend(std::iter::repeat_n('0', digits));
    format!("{sgn}{num}{tail}")
}

/// Go's `strconv.CanBackquote`: whether `%#q` may write `s` as a raw
/// string literal (no control character but the tab, no backquote, no
/// byte order mark).
fn can_backquote(s: &str) -> bool {
    !s.chars()
        .any(|c| (c < ' ' && c != '\t') || c == '`' || c == '\u{7f}' || c == '\u{feff}')
}

/// `%x` / `%X` of a string's bytes, as Go's `fmtSbx`: with the space
/// flag each byte apart, with `#` each byte (or the whole, without the
/// space flag) behind `0x`.
fn hex_bytes(b: &[u8], upper: bool, sp: &Spec) -> String {
    let b = &b[..sp.prec.unwrap_or(b.len()).min(b.len())];
    let prefix = if upper { "0X" } else { "0x" };
    let mut out = String::with_capacity(b.len() * 5);
    for (i, byte) in b.iter().enumerate() {
        if i > 0 && sp.space {
            out.push(' ');
        }
        if sp.sharp && (i == 0 || sp.space) {
            out.push_str(prefix);
        }
        if upper {
            out.push_str(&format!("{byte:02X}"));
        } else {
            out.push_str(&format!("{byte:02x}"));
        }
    }
    out
}

/// Go's `fmt.Sprintf` for the verbs templates use.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut argi = 0;
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut sp = Spec {
            minus: false,
            plus: false,
            zero: false,
            space: false,
            sharp: false,
            width: None,
            prec: None,
        };
        while i < chars.len() {
            match chars[i] {
                '-' => sp.minus = true,
                '+' => sp.plus = true,
                '0' => sp.zero = true,
                ' ' => sp.space = true,
                '#' => sp.sharp = true,
                _ => break,
            }
            i += 1;
        }
        let mut w = String::new();
        while i < chars.len() && chars[i].is_ascii_digit() {
            w.push(chars[i]);
            i += 1;
        }
        if !w.is_empty() {
            sp.width = w.parse().ok();
        }
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            let mut p = String::new();
            while i < chars.len() && chars[i].is_ascii_digit() {
                p.push(chars[i]);
                i += 1;
            }
            sp.prec = Some(p.parse().unwrap_or(0));
        }
        if i >= chars.len() {
            out.push_str("%!(NOVERB)");
            break;
        }
        let verb = chars[i];
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        if argi >= args.len() {
            out.push_str(&format!("%!{verb}(MISSING)"));
            continue;
        }
        out.push_str(&fmt_one(verb, &args[argi], &sp));
        argi += 1;
    }
    if argi < args.len() {
        out.push_str("%!(EXTRA ");
        let parts: Vec<String> = args[argi..]
            .iter()
            .map(|a| match a {
                Value::Nil => "<nil>".to_string(),
                _ => format!("{}={}", a.type_name(), sprint_value(a)),
            })
            .collect();
        out.push_str(&parts.join(", "));
        out.push(')');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go() {
        assert_eq!(format_float_g(1000000.0, None, false), "1e+06");
        assert_eq!(format_float_g(100000.0, None, false), "100000");
        assert_eq!(format_float_g(0.5, None, false), "0.5");
        assert_eq!(format_float_g(0.00001, None, false), "1e-05");
        assert_eq!(format_float_g(123456789.0, None, false), "1.23456789e+08");
        assert_eq!(format_float_g(3.0, None, false), "3");
    }

    #[test]
    fn sprintf_verbs() {
        let v = |s: &str| Value::Str(s.into());
        assert_eq!(sprintf("%s-%d", &[v("a"), Value::Int(3)]), "a-3");
        assert_eq!(sprintf("%d", &[Value::Float(3.0)]), "%!d(float64=3)");
        assert_eq!(
            sprintf("%05d|%-3s|", &[Value::Int(42), v("x")]),
            "00042|x  |"
        );
        assert_eq!(sprintf("%s %s", &[v("a")]), "a %!s(MISSING)");
        assert_eq!(sprintf("%s", &[v("a"), v("b")]), "a%!(EXTRA string=b)");
    }
}
