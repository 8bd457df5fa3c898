//! Reference cycles that Helm's validator (santhosh-tekuri/jsonschema v6)
//! refuses while validating: a schema reached again at the same place of
//! the values without descending into them (`{"$ref": "#"}`, a `$defs`
//! entry whose `$ref` leads back to itself) fails there with `both A and
//! B resolve to "URL" causing reference cycle`. The `jsonschema` crate
//! passes such values; this module finds the cycles the values reach.
//!
//! Only what v6 surely evaluates is followed, so that a cycle reached
//! means the values fail: `$ref` (a local JSON pointer), `allOf`,
//! `properties` of a member present, `additionalProperties` (when there
//! are no `patternProperties`), `items` and `prefixItems` of the elements
//! present. Under `anyOf`, `oneOf`, `not` or a condition, a failing branch
//! may not fail the whole: those are not followed (the crate's answer
//! stands there).

use serde_json::Value as J;

/// Deepest nesting of the values followed.
const MAX_DEPTH: usize = 256;

/// Most schemas visited in all: a schema whose `allOf`s name the same
/// subschema twice at each of many levels would otherwise be walked an
/// exponential number of times.
const MAX_VISITS: usize = 1_000_000;

/// A reference cycle the values reach, as v6 reports it.
pub(super) struct Cycle {
    /// The place in the values (its keys and indexes).
    pub at: Vec<String>,
    /// v6's message.
    pub message: String,
    /// The keyword path of the second visit (where v6 reports the error,
    /// and how its error tree reaches it).
    pub keywords: String,
}

/// The cycles `instance` reaches in `schema` (the document root).
pub(super) fn cycles(schema: &J, instance: &J) -> Vec<Cycle> {
    // (Without `$schema`, Helm's validator takes draft 2020-12.)
    let uri = schema.get("$schema").and_then(J::as_str);
    let mut w = Walk {
        root: schema,
        refs_override: uri.is_some_and(|u| !(u.contains("2019-09") || u.contains("2020-12"))),
        draft2020: uri.is_none_or(|u| u.contains("2020-12")),
        visits: 0,
        out: Vec::new(),
    };
    let mut stack = Vec::new();
    w.visit(
        schema,
        String::new(),
        String::new(),
        instance,
        &mut Vec::new(),
        &mut stack,
        0,
    );
    w.out
}

struct Walk<'s> {
    root: &'s J,
    /// Drafts before 2019-09: `$ref` overrides the keywords beside it.
    refs_override: bool,
    /// Schemas visited so far (see [`MAX_VISITS`]).
    visits: usize,
    /// Draft 2020-12: `prefixItems`, then `items` for the elements after
    /// them (before: `items`, a schema for all or a list of schemas).
    draft2020: bool,
    out: Vec<Cycle>,
}

/// A JSON pointer token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

impl<'s> Walk<'s> {
    /// The schema a local reference (`#` or `#/json/pointer`) names, with
    /// its pointer; `None` for any other reference.
    fn resolve(&self, reference: &str) -> Option<(&'s J, String)> {
        let ptr = reference.strip_prefix('#')?;
        if !(ptr.is_empty() || ptr.starts_with('/')) {
            return None;
        }
        // Percent-escapes, as in a URI fragment.
        let mut bytes = Vec::with_capacity(ptr.len());
        let mut it = ptr.bytes();
        while let Some(b) = it.next() {
            if b == b'%' {
                let h: Vec<u8> = it.by_ref().take(2).collect();
                let v = std::str::from_utf8(&h)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())?;
                bytes.push(v);
            } else {
                bytes.push(b);
            }
        }
        let decoded = String::from_utf8(bytes).ok()?;
        let target = self.root.pointer(&decoded)?;
        Some((target, decoded))
    }

    /// Visits schema `s` (at JSON pointer `loc`, reached by keyword path
    /// `kw`) for `inst` at `at`; `stack`: the schemas visited at this place
    /// of the values, with their keyword paths.
    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        s: &'s J,
        loc: String,
        kw: String,
        inst: &J,
        at: &mut Vec<String>,
        stack: &mut Vec<(String, String)>,
        depth: usize,
    ) {
        let J::Object(m) = s else {
            return;
        };
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_VISITS {
            return;
        }
        if let Some((_, first)) = stack.iter().find(|(l, _)| *l == loc) {
            self.out.push(Cycle {
                at: at.clone(),
                message: format!(
                    "both {kw} and {first} resolve to \"file:///values.schema.json#{loc}\" causing reference cycle"
                ),
                keywords: kw,
            });
            return;
        }
        stack.push((loc.clone(), kw.clone()));
        if let Some(r) = m.get("$ref").and_then(J::as_str)
            && let Some((target, ptr)) = self.resolve(r)
        {
            self.visit(target, ptr, format!("{kw}/$ref"), inst, at, stack, depth);
        }
        if m.contains_key("$ref") && self.refs_override {
            stack.pop();
            return;
        }
        // The values' members and elements (a new place: a new stack):
        // (subschema, keyword path, token of the place, value).
        let mut children: Vec<(&'s J, String, String, &J)> = Vec::new();
        match inst {
            J::Object(members) => {
                let props = m.get("properties").and_then(J::as_object);
                let additional = m
                    .get("additionalProperties")
                    .filter(|_| !m.contains_key("patternProperties"));
                for (name, v) in members {
                    match (props.and_then(|p| p.get(name)), additional) {
                        (Some(sub), _) => children.push((
                            sub,
                            format!("/properties/{}", token(name)),
                            name.clone(),
                            v,
                        )),
                        (None, Some(sub)) => children.push((
                            sub,
                            "/additionalProperties".to_string(),
                            name.clone(),
                            v,
                        )),
                        (None, None) => {}
                    }
                }
            }
            J::Array(items) => {
                let prefix = m
                    .get("prefixItems")
                    .and_then(J::as_array)
                    .filter(|_| self.draft2020);
                let after = prefix.map_or(0, |p| p.len().min(items.len()));
                for (i, v) in items.iter().enumerate() {
                    // (v6 names an element `items` checks after
                    // `prefixItems` by its place among those.)
                    match (prefix.and_then(|p| p.get(i)), m.get("items")) {
                        (Some(sub), _) => {
                            children.push((sub, format!("/prefixItems/{i}"), i.to_string(), v))
                        }
                        (None, Some(J::Array(list))) if !self.draft2020 => {
                            if let Some(sub) = list.get(i) {
                                children.push((sub, format!("/items/{i}"), i.to_string(), v));
                            }
                        }
                        (None, Some(sub)) if sub.is_object() => {
                            children.push((sub, "/items".to_string(), (i - after).to_string(), v))
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        for (sub, key, tok, v) in children {
            at.push(tok);
            self.visit(
                sub,
                format!("{loc}{key}"),
                format!("{kw}{key}"),
                v,
                at,
                &mut Vec::new(),
                depth + 1,
            );
            at.pop();
        }
        if let Some(J::Array(subs)) = m.get("allOf") {
            for (i, sub) in subs.iter().enumerate() {
                self.visit(
                    sub,
                    format!("{loc}/allOf/{i}"),
                    format!("{kw}/allOf/{i}"),
                    inst,
                    at,
                    stack,
                    depth,
                );
            }
        }
        stack.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: J, values: J) -> Vec<(Vec<String>, String)> {
        cycles(&schema, &values)
            .into_iter()
            .map(|c| (c.at, c.message))
            .collect()
    }

    // The messages as Helm v4.1.4 printed them for these schemas.
    #[test]
    fn cycles_reached_are_found_with_v6s_keyword_paths() {
        assert_eq!(
            messages(json!({"$ref": "#"}), json!({"c": 1})),
            vec![(
                vec![],
                "both /$ref and  resolve to \"file:///values.schema.json#\" causing reference cycle"
                    .to_string()
            )]
        );
        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"c~/": {"$ref": "#/definitions/d%30"}},
            "definitions": {"d0": {"$ref": "#/definitions/d0"}}
        });
        assert_eq!(
            messages(draft7, json!({"c~/": 1})),
            vec![(
                vec!["c~/".to_string()],
                "both /properties/c~0~1/$ref/$ref and /properties/c~0~1/$ref resolve to \"file:///values.schema.json#/definitions/d0\" causing reference cycle".to_string()
            )]
        );
    }

    #[test]
    fn a_schema_walked_exponentially_often_stops() {
        // 40 levels of `allOf` naming the next level twice: 2^40 walks.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"allOf": [next.clone(), next]}));
        }
        defs.insert("d40".into(), json!({"type": "integer"}));
        let s = json!({"$defs": defs, "properties": {"c": {"$ref": "#/$defs/d0"}}});
        // (It ends, at the limit, with nothing found.)
        assert!(messages(s, json!({"c": 1})).is_empty());
    }

    #[test]
    fn cycles_not_surely_reached_are_not_reported() {
        let s = json!({
            "$defs": {
                "d0": {"$ref": "#/$defs/d0"},
                "any": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/any"}]}
            },
            "properties": {"c": {"$ref": "#/$defs/d0"}, "a": {"$ref": "#/$defs/any"}},
            "patternProperties": {"^p": {"$ref": "#/$defs/d0"}}
        });
        // No member reaches d0; `anyOf` is not followed.
        assert!(messages(s, json!({"a": 1, "other": 2})).is_empty());
        // Draft 7: `$ref` overrides `allOf` beside it.
        let s = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/ok",
            "allOf": [{"$ref": "#"}],
            "definitions": {"ok": {}}
        });
        assert!(messages(s, json!({})).is_empty());
    }
}
