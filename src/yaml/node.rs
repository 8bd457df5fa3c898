//! The YAML node model.
//!
//! kustomize prints every object by converting it to JSON and back through
//! go-yaml v2, so what survives to the output is the *resolved* value of
//! each scalar (a string, an integer, a float, a bool or null), never its
//! original spelling. The model therefore keeps resolved values; the
//! emitter reproduces go-yaml v2's choice of quoting and layout.

/// Keys are hashed with foldhash (randomly seeded per process): SipHash
/// was the largest cost of reading a map with a million keys.
type HashMap<K, V> = foldhash::HashMap<K, V>;
use std::fmt;

/// A YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer above `i64::MAX` that fits in 64 bits.
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Map),
}

/// A mapping that keeps insertion order (output order is decided by the
/// emitter, which sorts keys the way go-yaml v2 does).
///
/// Besides its entries a map remembers the source text of plain scalar
/// values whose text is not the canonical text of their value (`0o17`,
/// `1.0`, `TRUE`, `~`, `2001-12-14`): kustomize reads some fields
/// (annotations) back as strings of their source text.
/// `Map::print_breaks` flag: the scalar is written as a folded block
/// (see `emit::folded_round_trip`).
pub const PRINT_FOLDED: u8 = 1;
/// `Map::print_breaks` flag: the scalar is written as a literal block (on a
/// list: its last item is).
pub const PRINT_LITERAL: u8 = 2;
/// `Map::print_breaks` flag: the collection is written in flow style, where
/// no block scalar can be printed.
pub const PRINT_FLOW: u8 = 4;

#[derive(Debug, Clone, Default)]
pub struct Map {
    entries: Vec<(String, Node)>,
    /// What most maps do not need (source texts, styles, the index of a
    /// large map), boxed so that a node stays small: a cluster holds
    /// millions of them.
    meta: Option<Box<Meta>>,
}

/// Maps with more entries than this find keys through an index
/// (`Meta::index`); smaller ones scan their entries.
const INDEX_MIN: usize = 16;

/// An entry's position as an index slot holds it.
fn slot(i: usize) -> u32 {
    u32::try_from(i).expect("a map holds fewer than 2^32 entries")
}

#[derive(Debug, Clone, Default)]
struct Meta {
    /// Source texts and styles of the scalars at some keys.
    keys: HashMap<String, KeyMeta>,
    /// On a document's root: the document ends with a comment after an
    /// empty line (go-yaml v3's document foot comment, see
    /// `kustomize::build::apply_print_breaks`).
    doc_foot_comment: bool,
    /// The map is written in flow style (`{...}`).
    flow: bool,
    /// The position of every key in `entries`, when the map has more than
    /// `INDEX_MIN` entries (else empty), with 32 bits of the key's hash
    /// ([`key_hash`]): the keys themselves stay in `entries` only, and
    /// growing the table reads no key. Eight bytes a slot (a map holds
    /// far fewer than 2^32 entries: a text is at most 64 MiB).
    index: hashbrown::HashTable<(u32, u32)>,
}

/// The hash of a key in a map's index: foldhash, seeded randomly once per
/// process (keys come from hostile input), cut to the 32 bits an index
/// slot keeps.
fn key_hash(key: &str) -> u32 {
    use std::hash::BuildHasher;
    static STATE: std::sync::LazyLock<foldhash::fast::RandomState> =
        std::sync::LazyLock::new(foldhash::fast::RandomState::default);
    let h = STATE.hash_one(key);
    (h ^ (h >> 32)) as u32
}

/// The table hash of a slot's 32-bit key hash: hashbrown takes the slot
/// from the low bits and its tag from the top seven.
fn table_hash(h: u32) -> u64 {
    (u64::from(h) << 32) | u64::from(h)
}

#[derive(Debug, Clone, Default)]
struct KeyMeta {
    /// The source text of a plain scalar whose text is not the canonical
    /// text of its value.
    raw: Option<String>,
    /// The string value is written quoted or as a block scalar (a patch
    /// value that replaces it keeps that style, see `smp`).
    quoted: bool,
    /// kustomize wrote the scalar without a type tag (a field a
    /// replacement created, a name a prefix was added to): its text is
    /// read as YAML again, and a patch that walks over it makes it a string.
    tagless: bool,
    /// How go-yaml v3 prints the value (`PRINT_FOLDED`, `PRINT_LITERAL`,
    /// `PRINT_FLOW`); kustomize reads its printed output back, which
    /// changes some values.
    print_breaks: u8,
    /// A type tag the scalar keeps that its text does not resolve to (a
    /// replacement writes only a node's text): printing the object fails.
    bad_tag: Option<&'static str>,
    /// On a block sequence: the items written as folded block scalars, by
    /// their values as read (see `kustomize::build::apply_print_breaks`).
    folded_items: Option<Box<[String]>>,
}

impl KeyMeta {
    fn is_empty(&self) -> bool {
        self.raw.is_none()
            && !self.quoted
            && !self.tagless
            && self.print_breaks == 0
            && self.bad_tag.is_none()
            && self.folded_items.is_none()
    }
}

impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.entries == other.entries
    }
}

impl Map {
    pub fn new() -> Self {
        Map::default()
    }
    fn meta_mut(&mut self) -> &mut Meta {
        self.meta.get_or_insert_with(Box::default)
    }
    /// The per-key metadata of `key`, created when absent.
    fn key_meta_mut(&mut self, key: &str) -> &mut KeyMeta {
        let keys = &mut self.meta_mut().keys;
        if !keys.contains_key(key) {
            keys.insert(key.to_string(), KeyMeta::default());
        }
        keys.get_mut(key).expect("inserted above")
    }
    fn key_meta(&self, key: &str) -> Option<&KeyMeta> {
        self.meta.as_deref()?.keys.get(key)
    }
    /// Drops the metadata of `key` when nothing is left in it.
    fn prune_key_meta(&mut self, key: &str) {
        if let Some(m) = self.meta.as_deref_mut()
            && m.keys.get(key).is_some_and(KeyMeta::is_empty)
        {
            m.keys.remove(key);
        }
    }
    /// Whether lookups go through the index.
    fn indexed(&self) -> bool {
        self.entries.len() > INDEX_MIN && self.meta.as_deref().is_some_and(|m| !m.index.is_empty())
    }
    /// The position of `key` in `entries`.
    fn position(&self, key: &str) -> Option<usize> {
        if self.indexed() {
            return self.position_hashed(key, key_hash(key));
        }
        self.entries.iter().position(|(k, _)| k == key)
    }
    /// The position of `key`, whose hash is `h`, through the index.
    fn position_hashed(&self, key: &str, h: u32) -> Option<usize> {
        let m = self.meta.as_deref()?;
        let entries = &self.entries;
        m.index
            .find(table_hash(h), |&(i, hi)| {
                hi == h && entries[i as usize].0 == key
            })
            .map(|&(i, _)| i as usize)
    }
    /// Rebuilds the index after entries moved (or drops it from a map
    /// that became small).
    fn reindex(&mut self) {
        if self.entries.len() <= INDEX_MIN {
            if let Some(m) = self.meta.as_deref_mut() {
                m.index = hashbrown::HashTable::new();
            }
            return;
        }
        let entries = &self.entries;
        let mut index = hashbrown::HashTable::with_capacity(entries.len());
        for (i, (k, _)) in entries.iter().enumerate() {
            let h = key_hash(k);
            index.insert_unique(table_hash(h), (slot(i), h), |&(_, h)| table_hash(h));
        }
        self.meta.get_or_insert_with(Box::default).index = index;
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.position(key).map(|i| &self.entries[i].1)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }
    /// Sets `key`, replacing an existing value in place.
    pub fn insert(&mut self, key: impl Into<String>, value: Node) {
        let key = key.into();
        self.forget_raw(&key);
        if let Some(i) = self.position(&key) {
            self.entries[i].1 = value;
            return;
        }
        self.push_new(key, value);
    }
    /// Appends `key`, which the map does not hold (a caller that just
    /// looked it up, such as the parser, saves a second lookup).
    pub(crate) fn push_new(&mut self, key: String, value: Node) {
        debug_assert!(!self.contains_key(&key));
        let h = (self.entries.len() >= INDEX_MIN).then(|| key_hash(&key));
        self.push_hashed(key, value, h);
    }
    /// Appends `key` with its hash when the map is large enough to index
    /// it (`None` below `INDEX_MIN` entries).
    fn push_hashed(&mut self, key: String, value: Node, h: Option<u32>) {
        self.entries.push((key, value));
        let n = self.entries.len();
        if n == INDEX_MIN + 1 {
            self.reindex();
        } else if let Some(h) = h {
            self.meta
                .get_or_insert_with(Box::default)
                .index
                .insert_unique(table_hash(h), (slot(n - 1), h), |&(_, h)| table_hash(h));
        }
    }
    /// Appends `key` unless the map holds it already: then nothing changes
    /// and the position of the entry comes back with the key and the
    /// value. One hash of the key does both (the parser's path).
    pub(crate) fn push_unique(
        &mut self,
        key: String,
        value: Node,
    ) -> Result<(), (usize, String, Node)> {
        if self.entries.len() < INDEX_MIN {
            if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
                return Err((i, key, value));
            }
            self.push_hashed(key, value, None);
            return Ok(());
        }
        let h = key_hash(&key);
        let found = if self.indexed() {
            self.position_hashed(&key, h)
        } else {
            self.entries.iter().position(|(k, _)| *k == key)
        };
        match found {
            Some(i) => Err((i, key, value)),
            None => {
                self.push_hashed(key, value, Some(h));
                Ok(())
            }
        }
    }
    /// Makes room for `additional` more entries (a hint from the parser,
    /// which knows how many lines a block map can still take).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }
    /// Gives back room that [`Map::reserve`] made and the entries did not
    /// take.
    pub(crate) fn shrink_if_sparse(&mut self) {
        if self.entries.capacity() > 2 * self.entries.len() + INDEX_MIN {
            self.entries.shrink_to_fit();
        }
    }
    /// The position of `key` among the entries (the order of
    /// [`Map::keys`]).
    pub fn index_of(&self, key: &str) -> Option<usize> {
        self.position(key)
    }
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let i = self.position(key)?;
        self.forget_raw(key);
        let (_, v) = self.entries.remove(i);
        if self.entries.len() == INDEX_MIN {
            self.reindex();
        } else if let Some(m) = self.meta.as_deref_mut()
            && !m.index.is_empty()
        {
            let at = slot(i);
            if let Ok(e) = m
                .index
                .find_entry(table_hash(key_hash(key)), |&(j, _)| j == at)
            {
                e.remove();
            }
            for (p, _) in m.index.iter_mut() {
                if *p > at {
                    *p -= 1;
                }
            }
        }
        Some(v)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Node)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Node)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }
    /// Returns the value at `key`, inserting an empty map first when absent
    /// or null.
    pub fn entry_map(&mut self, key: &str) -> &mut Node {
        let needs = !matches!(self.get(key), Some(Node::Map(_)) | Some(Node::Seq(_)))
            && !matches!(self.get(key), Some(n) if n.is_scalar() && !n.is_null());
        if needs {
            self.insert(key, Node::Map(Map::new()));
        }
        self.get_mut(key).expect("inserted above")
    }
    pub fn retain(&mut self, mut f: impl FnMut(&str, &Node) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|(k, v)| f(k, v));
        if self.entries.len() == before {
            return;
        }
        self.reindex();
        if let Some(m) = self.meta.as_deref_mut()
            && !m.keys.is_empty()
        {
            let live: foldhash::HashSet<&str> =
                self.entries.iter().map(|(k, _)| k.as_str()).collect();
            m.keys.retain(|k, _| live.contains(k.as_str()));
        }
    }

    /// Records the source text of the plain scalar at `key`.
    pub fn set_raw(&mut self, key: &str, text: impl Into<String>) {
        self.key_meta_mut(key).raw = Some(text.into());
    }

    /// Forgets the source texts of this map's scalars (not nested maps'),
    /// and its style and comments (type tags its scalars cannot be read as
    /// stay).
    pub fn clear_source_texts(&mut self) {
        if let Some(m) = self.meta.as_deref_mut() {
            m.keys.retain(|_, km| km.bad_tag.is_some());
            for km in m.keys.values_mut() {
                *km = KeyMeta {
                    bad_tag: km.bad_tag,
                    ..KeyMeta::default()
                };
            }
            m.doc_foot_comment = false;
            m.flow = false;
            if m.keys.is_empty() && m.index.is_empty() {
                self.meta = None;
            }
        }
    }

    /// The recorded source text of the plain scalar at `key`, if any.
    pub fn raw_text(&self, key: &str) -> Option<&str> {
        self.key_meta(key)?.raw.as_deref()
    }

    /// Sets `key` to the scalar at `from_key` of `from`, with its source
    /// text.
    pub fn insert_scalar_from(&mut self, key: &str, from: &Map, from_key: &str) {
        if let Some(v) = from.get(from_key) {
            self.insert(key, v.clone());
            if let Some(t) = from.raw_text(from_key) {
                self.set_raw(key, t);
            }
        }
    }

    /// Forgets the source text (and style) of the scalar at `key`.
    pub fn forget_raw(&mut self, key: &str) {
        if let Some(m) = self.meta.as_deref_mut()
            && !m.keys.is_empty()
        {
            m.keys.remove(key);
        }
    }

    /// Records that the scalar at `key` keeps the type tag `tag` (such as
    /// `!!int`) that its text does not resolve to, or that a quoted text
    /// keeps (it reads back as a string, yet a text of another type
    /// written into the node by kustomize keeps the tag).
    pub fn set_bad_tag(&mut self, key: &str, tag: Option<&'static str>) {
        if tag.is_none() && self.key_meta(key).is_none() {
            return;
        }
        self.key_meta_mut(key).bad_tag = tag;
        self.prune_key_meta(key);
    }

    /// The type tag the scalar at `key` keeps but cannot be read as.
    pub fn bad_tag(&self, key: &str) -> Option<&'static str> {
        self.key_meta(key)?.bad_tag
    }

    /// Records whether the map is written in flow style.
    pub fn set_flow(&mut self, flow: bool) {
        if flow || self.meta.is_some() {
            self.meta_mut().flow = flow;
        }
    }

    /// Whether the map is written in flow style.
    pub fn is_flow(&self) -> bool {
        self.meta.as_deref().is_some_and(|m| m.flow)
    }

    /// Records whether this document root ends with a foot comment.
    pub fn set_doc_foot_comment(&mut self, foot: bool) {
        if foot || self.meta.is_some() {
            self.meta_mut().doc_foot_comment = foot;
        }
    }

    /// Whether this document root ends with a foot comment.
    pub fn has_doc_foot_comment(&self) -> bool {
        self.meta.as_deref().is_some_and(|m| m.doc_foot_comment)
    }

    /// Records how the block scalar at `key` is printed (`PRINT_*` flags).
    pub fn set_print_breaks(&mut self, key: &str, n: u8) {
        if n == 0 && self.key_meta(key).is_none() {
            return;
        }
        self.key_meta_mut(key).print_breaks = n;
        self.prune_key_meta(key);
    }

    /// How the block scalar at `key` is printed (`PRINT_*` flags).
    pub fn print_breaks(&self, key: &str) -> u8 {
        self.key_meta(key).map_or(0, |km| km.print_breaks)
    }

    /// Records the items of the sequence at `key` written as folded block
    /// scalars (their values as read; none forgets them).
    pub fn set_folded_items(&mut self, key: &str, items: Vec<String>) {
        if items.is_empty() && self.key_meta(key).is_none() {
            return;
        }
        self.key_meta_mut(key).folded_items = (!items.is_empty()).then(|| items.into());
        self.prune_key_meta(key);
    }

    /// The keys whose value is written as a folded block scalar, and
    /// those whose sequence has such items (from the keys with metadata
    /// only, in no particular order).
    pub fn folded_keys(&self) -> (Vec<String>, Vec<String>) {
        let (mut scalars, mut lists) = (Vec::new(), Vec::new());
        if let Some(m) = self.meta.as_deref() {
            for (k, km) in &m.keys {
                if km.print_breaks & PRINT_FOLDED != 0 {
                    scalars.push(k.clone());
                }
                if km.folded_items.is_some() {
                    lists.push(k.clone());
                }
            }
        }
        (scalars, lists)
    }

    /// The items of the sequence at `key` written as folded block
    /// scalars, forgotten here.
    pub fn take_folded_items(&mut self, key: &str) -> Vec<String> {
        let Some(km) = self.meta.as_deref_mut().and_then(|m| m.keys.get_mut(key)) else {
            return Vec::new();
        };
        let items = km.folded_items.take().map(Vec::from).unwrap_or_default();
        self.prune_key_meta(key);
        items
    }

    /// The items of the sequence at `key` written as folded block scalars.
    pub fn folded_items(&self, key: &str) -> &[String] {
        self.key_meta(key)
            .and_then(|km| km.folded_items.as_deref())
            .unwrap_or(&[])
    }

    /// Records whether the scalar at `key` has no type tag.
    pub fn set_tagless(&mut self, key: &str, tagless: bool) {
        if !tagless && self.key_meta(key).is_none() {
            return;
        }
        self.key_meta_mut(key).tagless = tagless;
        self.prune_key_meta(key);
    }

    /// Whether the scalar at `key` has no type tag.
    pub fn is_tagless(&self, key: &str) -> bool {
        self.key_meta(key).is_some_and(|km| km.tagless)
    }

    /// Records whether the scalar at `key` is written quoted (or as a
    /// block scalar).
    pub fn set_quoted(&mut self, key: &str, quoted: bool) {
        if !quoted && self.key_meta(key).is_none() {
            return;
        }
        self.key_meta_mut(key).quoted = quoted;
        self.prune_key_meta(key);
    }

    /// Whether the scalar at `key` is written quoted (or as a block).
    pub fn is_quoted(&self, key: &str) -> bool {
        self.key_meta(key).is_some_and(|km| km.quoted)
    }

    /// The source text of the scalar at `key`, as kustomize reads it back
    /// (`node.Value`): the text it was written with when it still holds the
    /// value read from that text, else the value's canonical text. None for
    /// a missing key or a collection.
    pub fn scalar_source_text(&self, key: &str) -> Option<String> {
        let v = self.get(key)?;
        if let Some(raw) = self.raw_text(key) {
            let again = super::resolve::resolve_plain(raw, super::resolve::Schema::V3);
            if same_value(&again, v) {
                return Some(raw.to_string());
            }
        }
        // A float kyaml did not read from a file went through Go's JSON
        // decoder and prints with FormatFloat 'g' (1e+06).
        v.is_scalar().then(|| node_text(v))
    }
}

/// The text kyaml holds for a scalar node that has no recorded source
/// text (`node.Value`): a float prints with Go's FormatFloat 'g' (1e+06),
/// other scalars with their canonical text; empty for a collection.
pub fn node_text(n: &Node) -> String {
    match n {
        Node::Float(f) => super::emit::kyaml_float_text(*f),
        Node::Seq(_) | Node::Map(_) => String::new(),
        other => other.scalar_text().unwrap_or_default(),
    }
}

fn same_value(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Float(x), Node::Float(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        _ => a == b,
    }
}

impl FromIterator<(String, Node)> for Map {
    fn from_iter<T: IntoIterator<Item = (String, Node)>>(iter: T) -> Self {
        let mut m = Map::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl IntoIterator for Map {
    type Item = (String, Node);
    type IntoIter = std::vec::IntoIter<(String, Node)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl Node {
    /// How Go's `encoding/json` names the kind of this value in its
    /// errors ("cannot unmarshal X into ...").
    pub fn json_kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "bool",
            Node::Int(_) | Node::UInt(_) | Node::Float(_) => "number",
            Node::Str(_) => "string",
            Node::Seq(_) => "array",
            Node::Map(_) => "object",
        }
    }

    pub fn str(s: impl Into<String>) -> Node {
        Node::Str(s.into())
    }
    pub fn map() -> Node {
        Node::Map(Map::new())
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Node::Seq(_) | Node::Map(_))
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Node::Map(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Node::Map(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_seq(&self) -> Option<&Vec<Node>> {
        match self {
            Node::Seq(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_seq_mut(&mut self) -> Option<&mut Vec<Node>> {
        match self {
            Node::Seq(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Int(i) => Some(*i),
            Node::UInt(u) => i64::try_from(*u).ok(),
            Node::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
            _ => None,
        }
    }
    /// `map[key]` when this is a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.get(key)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_map_mut()?.get_mut(key)
    }
    /// Follows a path of map keys.
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        let mut cur = self;
        for k in path {
            cur = cur.get(k)?;
        }
        Some(cur)
    }
    pub fn get_str(&self, path: &[&str]) -> Option<&str> {
        self.get_path(path)?.as_str()
    }
    /// The text a scalar would have as a Go string (the way kustomize reads
    /// `node.Value`).
    pub fn scalar_text(&self) -> Option<String> {
        Some(match self {
            Node::Null => "null".into(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::UInt(u) => u.to_string(),
            Node::Float(f) => crate::yaml::emit::format_float(*f),
            Node::Str(s) => s.clone(),
            _ => return None,
        })
    }
    /// The YAML core tag this value resolves to (`!!int` for both integer
    /// kinds).
    pub fn yaml_tag(&self) -> &'static str {
        match self {
            Node::Null => "!!null",
            Node::Bool(_) => "!!bool",
            Node::Int(_) | Node::UInt(_) => "!!int",
            Node::Float(_) => "!!float",
            Node::Str(_) => "!!str",
            Node::Seq(_) => "!!seq",
            Node::Map(_) => "!!map",
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "bool",
            Node::Int(_) | Node::UInt(_) => "int",
            Node::Float(_) => "float",
            Node::Str(_) => "string",
            Node::Seq(_) => "sequence",
            Node::Map(_) => "mapping",
        }
    }

    /// How deeply collections nest in this tree (0 for a scalar, 1 for a
    /// collection of scalars). Walks without recursion, so it is safe on a
    /// tree of any depth.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack: Vec<(&Node, usize)> = vec![(self, 0)];
        while let Some((n, d)) = stack.pop() {
            match n {
                Node::Seq(s) => {
                    max = max.max(d + 1);
                    stack.extend(s.iter().map(|c| (c, d + 1)));
                }
                Node::Map(m) => {
                    max = max.max(d + 1);
                    stack.extend(m.iter().map(|(_, c)| (c, d + 1)));
                }
                _ => {}
            }
        }
        max
    }

    /// Converts to JSON. Floats that are whole numbers become integers, as
    /// Go's encoding/json prints them.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Node::Null => J::Null,
            Node::Bool(b) => J::Bool(*b),
            Node::Int(i) => J::from(*i),
            Node::UInt(u) => J::from(*u),
            Node::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    J::from(*f as i64)
                } else {
                    serde_json::Number::from_f64(*f)
                        .map(J::Number)
                        .unwrap_or(J::Null)
                }
            }
            Node::Str(s) => J::String(s.clone()),
            Node::Seq(s) => J::Array(s.iter().map(Node::to_json).collect()),
            Node::Map(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut o = serde_json::Map::new();
                for k in keys {
                    o.insert(k.clone(), m.get(k).expect("key").to_json());
                }
                J::Object(o)
            }
        }
    }

    pub fn from_json(v: &serde_json::Value) -> Node {
        use serde_json::Value as J;
        match v {
            J::Null => Node::Null,
            J::Bool(b) => Node::Bool(*b),
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Node::Int(i)
                } else if let Some(u) = n.as_u64() {
                    Node::UInt(u)
                } else {
                    Node::Float(n.as_f64().unwrap_or(0.0))
                }
            }
            J::String(s) => Node::Str(s.clone()),
            J::Array(a) => Node::Seq(a.iter().map(Node::from_json).collect()),
            J::Object(o) => Node::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Node::from_json(v)))
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::yaml::emit::to_string(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large map (indexed) and the same operations on a plain list agree
    /// on lookups and order through inserts, replacements, removals and
    /// retain, across the index threshold both ways.
    #[test]
    fn indexed_map_keeps_order_and_finds_every_key() {
        let mut m = Map::new();
        let mut model: Vec<(String, i64)> = Vec::new();
        let check = |m: &Map, model: &[(String, i64)]| {
            let got: Vec<(String, i64)> = m
                .iter()
                .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
                .collect();
            assert_eq!(got, model);
            for (k, v) in model {
                assert_eq!(m.get(k), Some(&Node::Int(*v)), "{k}");
            }
            assert!(m.get("absent").is_none());
        };
        for i in 0..100 {
            m.insert(format!("k{i}"), Node::Int(i));
            model.push((format!("k{i}"), i));
        }
        check(&m, &model);
        m.insert("k50", Node::Int(-50));
        model[50].1 = -50;
        for i in (0..100).step_by(3) {
            let k = format!("k{i}");
            assert!(m.remove(&k).is_some());
            model.retain(|(mk, _)| *mk != k);
        }
        check(&m, &model);
        m.retain(|k, _| k.len() == 3);
        model.retain(|(k, _)| k.len() == 3);
        check(&m, &model);
        assert!(m.len() > INDEX_MIN);
        while m.len() > 3 {
            let k = model.remove(0).0;
            m.remove(&k);
            check(&m, &model);
        }
        m.insert("again", Node::Int(7));
        model.push(("again".into(), 7));
        check(&m, &model);
        let c = m.clone();
        check(&c, &model);
    }

    #[test]
    fn key_styles_follow_their_key() {
        let mut m: Map = (0..40).map(|i| (format!("k{i}"), Node::str("v"))).collect();
        m.set_quoted("k3", true);
        m.set_raw("k4", "0o17");
        m.set_bad_tag("k5", Some("!!int"));
        m.set_print_breaks("k6", PRINT_LITERAL);
        assert!(m.is_quoted("k3") && !m.is_quoted("k4"));
        assert_eq!(m.raw_text("k4"), Some("0o17"));
        m.insert("k4", Node::Int(15));
        assert_eq!(m.raw_text("k4"), None);
        m.clear_source_texts();
        assert!(!m.is_quoted("k3"));
        assert_eq!(m.print_breaks("k6"), 0);
        assert_eq!(m.bad_tag("k5"), Some("!!int"));
        assert_eq!(m.get("k39"), Some(&Node::str("v")));
    }
}
