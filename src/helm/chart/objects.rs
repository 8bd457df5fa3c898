//! The Go objects of Helm's render values: `.Files` (with `Get`,
//! `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`) and
//! `.Capabilities` (`KubeVersion`, `APIVersions.Has`, `HelmVersion`).

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine;

use super::glob::FilesGlob;
use super::{ChartFile, FileData};
use crate::template::exec::{GoType, Sig};
use crate::template::{Json, Object, Value};

/// A method of one `string` parameter.
const ONE_STRING: Sig = Sig {
    fixed: &[GoType::String],
    variadic: None,
};

/// `.Files`: a chart's files by name.
#[derive(Debug, Clone)]
pub struct Files(pub Arc<BTreeMap<String, FileData>>);

impl Files {
    pub fn new(files: &[ChartFile]) -> Files {
        Files(Arc::new(
            files
                .iter()
                .map(|f| (f.name.clone(), f.data.clone()))
                .collect(),
        ))
    }

    /// The file's bytes; none for a name that is not a file of the chart.
    fn bytes(&self, name: &str) -> Result<Option<&Arc<[u8]>>, String> {
        self.0.get(name).map(FileData::get).transpose()
    }

    fn text(&self, name: &str) -> Result<String, String> {
        Ok(self
            .bytes(name)?
            .map(|d| super::utf8_text(d).into_owned())
            .unwrap_or_default())
    }

    /// Every file's bytes, by name. `Object::print` and `Object::plain`
    /// cannot fail: there a file that could no longer be read (removed
    /// after the chart was loaded) is empty.
    fn all_bytes(&self) -> impl Iterator<Item = (&String, &[u8])> {
        self.0
            .iter()
            .map(|(k, v)| (k, v.get().map(|b| &b[..]).unwrap_or_default()))
    }

    fn base_map(&self, f: impl Fn(&[u8]) -> String) -> Result<String, String> {
        if self.0.is_empty() {
            return Ok("{}".into());
        }
        let mut m = BTreeMap::new();
        for (k, v) in self.0.iter() {
            let base = k.rsplit('/').next().unwrap_or(k).to_string();
            m.insert(base, Value::Str(f(v.get()?)));
        }
        Ok(crate::helm::funcs::to_yaml(&Value::map(m)))
    }
}

/// A Go string of `bytes`: a plain string when they are UTF-8, else a
/// [`BinaryString`] (Sprig's `substr`, `trunc`, `abbrev` and `wrap` cut
/// bytes, inside a character too).
pub fn go_string(bytes: Vec<u8>) -> Value {
    match String::from_utf8(bytes) {
        Ok(text) => Value::Str(text),
        Err(e) => Value::object(BinaryString(e.into_bytes().into())),
    }
}

/// A Go string holding bytes that are not UTF-8 (`.Files.Get` of a binary
/// file): printed and used as text with invalid sequences replaced, its
/// bytes kept for `b64enc` and the checksum functions.
#[derive(Debug)]
struct BinaryString(Arc<[u8]>);

impl Object for BinaryString {
    fn type_name(&self) -> &'static str {
        "string"
    }

    fn kind(&self) -> &'static str {
        "string"
    }

    /// Go's JSON encoder writes each byte that is not part of valid UTF-8
    /// as a replacement character (one per byte, where printing replaces
    /// a maximal invalid sequence by one).
    fn json(&self) -> Option<Json> {
        let mut text = String::with_capacity(self.0.len());
        for chunk in self.0.utf8_chunks() {
            text.push_str(chunk.valid());
            text.extend(chunk.invalid().iter().map(|_| char::REPLACEMENT_CHARACTER));
        }
        Some(Json::Value(Value::Str(text)))
    }

    fn print(&self) -> String {
        super::utf8_text(&self.0).into_owned()
    }

    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }

    fn plain(&self) -> Value {
        Value::Str(self.print())
    }

    fn is_true(&self) -> bool {
        !self.0.is_empty()
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(&self.0)
    }
}

fn one_str<'a>(args: &'a [Value], method: &str) -> Result<&'a str, String> {
    if args.len() != 1 {
        return Err(format!(
            "wrong number of args for {method}: want 1 got {}",
            args.len()
        ));
    }
    args[0].as_str().ok_or_else(|| {
        format!(
            "wrong type for value; expected string; got {}",
            args[0].type_name()
        )
    })
}

fn no_args(args: &[Value], method: &str) -> Result<(), String> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "wrong number of args for {method}: want 0 got {}",
            args.len()
        ))
    }
}

impl Object for Files {
    fn type_name(&self) -> &'static str {
        "engine.files"
    }

    fn method_sig(&self, name: &str) -> Option<&'static Sig> {
        matches!(name, "Get" | "GetBytes" | "Glob" | "Lines").then_some(&ONE_STRING)
    }

    fn print(&self) -> String {
        let parts: Vec<String> = self
            .all_bytes()
            .map(|(k, v)| {
                let bytes: Vec<String> = v.iter().map(|b| b.to_string()).collect();
                format!("{k}:[{}]", bytes.join(" "))
            })
            .collect();
        format!("map[{}]", parts.join(" "))
    }

    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let r = match name {
            "Get" => one_str(args, name).and_then(|n| {
                Ok(match self.bytes(n)? {
                    Some(d) if std::str::from_utf8(d).is_err() => {
                        Value::object(BinaryString(d.clone()))
                    }
                    _ => Value::Str(self.text(n)?),
                })
            }),
            // A missing file is an empty (not nil) `[]byte`.
            "GetBytes" => one_str(args, name).and_then(|n| {
                Ok(Value::byte_slice(
                    self.bytes(n)?
                        .cloned()
                        .unwrap_or_else(|| Arc::from(&[][..])),
                ))
            }),
            "Glob" => one_str(args, name).map(|p| {
                let g = FilesGlob::new(p);
                Value::object(Files(Arc::new(
                    self.0
                        .iter()
                        .filter(|(k, _)| g.matches(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )))
            }),
            "Lines" => one_str(args, name).and_then(|n| {
                let s = self.text(n)?;
                if s.is_empty() {
                    return Ok(Value::typed_list(Vec::new(), "[]string"));
                }
                let s = s.strip_suffix('\n').unwrap_or(&s);
                Ok(Value::typed_list(
                    s.split('\n').map(|l| Value::Str(l.to_string())).collect(),
                    "[]string",
                ))
            }),
            "AsConfig" => no_args(args, name)
                .and_then(|_| self.base_map(|d| super::utf8_text(d).into_owned()))
                .map(Value::Str),
            "AsSecrets" => no_args(args, name)
                .and_then(|_| {
                    self.base_map(|d| base64::engine::general_purpose::STANDARD.encode(d))
                })
                .map(Value::Str),
            _ => return None,
        };
        Some(r)
    }

    fn plain(&self) -> Value {
        Value::Map(
            self.all_bytes()
                .map(|(k, v)| (k.clone(), Value::Str(super::utf8_text(v).into_owned())))
                .collect(),
        )
    }

    /// `map[string][]byte`.
    fn kind(&self) -> &'static str {
        "map"
    }

    /// Go writes a byte slice in JSON as its base64 text.
    fn json(&self) -> Option<Json> {
        let b64 = |v: &[u8]| Value::Str(base64::engine::general_purpose::STANDARD.encode(v));
        let files = self.all_bytes().map(|(k, v)| (k.clone(), b64(v)));
        Some(Json::Value(Value::Map(files.collect())))
    }

    fn is_true(&self) -> bool {
        !self.0.is_empty()
    }
}

/// `.Capabilities.KubeVersion`.
#[derive(Debug, Clone)]
pub struct KubeVersion {
    pub version: String,
    pub normalized: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Helm's `ParseKubeVersion` (`k8s.io/apimachinery`'s `ParseGeneric`:
    /// two or more numeric fields, then anything).
    pub fn parse(v: &str) -> Result<KubeVersion, String> {
        let bad = || format!("illegal version string {v:?}");
        let s = v.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut end = 0;
        let bytes = s.as_bytes();
        // numeric fields separated by dots
        loop {
            let start = end;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if end == start {
                return Err(bad());
            }
            if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
                end += 1;
                continue;
            }
            break;
        }
        let nums: Vec<&str> = s[..end].split('.').collect();
        if nums.len() < 2 || (nums[0].len() > 1 && nums[0].starts_with('0')) {
            return Err(bad());
        }
        let parsed: Vec<u64> = nums
            .iter()
            .map(|n| n.parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let norm: Vec<String> = parsed.iter().map(|n| n.to_string()).collect();
        let git = if v.starts_with('v') {
            v.to_string()
        } else {
            format!("v{v}")
        };
        Ok(KubeVersion {
            version: git,
            normalized: format!("v{}", norm.join(".")),
            major: parsed[0].to_string(),
            minor: parsed[1].to_string(),
        })
    }

    /// `String()`: the normalized version (the given one when there is none).
    fn string(&self) -> String {
        if self.normalized.is_empty() {
            self.version.clone()
        } else {
            self.normalized.clone()
        }
    }

    pub fn default_version() -> KubeVersion {
        KubeVersion {
            version: "v1.35.0".into(),
            normalized: "v1.35.0".into(),
            major: "1".into(),
            minor: "35".into(),
        }
    }
}

impl Object for KubeVersion {
    fn type_name(&self) -> &'static str {
        "common.KubeVersion"
    }
    fn print(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.version, self.normalized, self.major, self.minor
        )
    }
    /// Helm's `(*KubeVersion).String`: the normalized version.
    fn print_action(&self) -> String {
        self.string()
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::Str(self.version.clone())),
            "Major" => Some(Value::Str(self.major.clone())),
            "Minor" => Some(Value::Str(self.minor.clone())),
            _ => None,
        }
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let v = match name {
            "GitVersion" => self.version.clone(),
            "String" => self.string(),
            _ => return None,
        };
        Some(no_args(args, name).map(|_| Value::Str(v)))
    }
    fn plain(&self) -> Value {
        Value::map(BTreeMap::from([
            ("Version".into(), Value::Str(self.version.clone())),
            ("Major".into(), Value::Str(self.major.clone())),
            ("Minor".into(), Value::Str(self.minor.clone())),
        ]))
    }
    fn kind(&self) -> &'static str {
        "struct"
    }
    fn json(&self) -> Option<Json> {
        Some(Json::Struct(vec![
            ("Version", Value::Str(self.version.clone())),
            ("Major", Value::Str(self.major.clone())),
            ("Minor", Value::Str(self.minor.clone())),
        ]))
    }
}

/// `.Capabilities.APIVersions`.
#[derive(Debug, Clone)]
pub struct VersionSet(pub Vec<String>);

impl Object for VersionSet {
    fn type_name(&self) -> &'static str {
        "common.VersionSet"
    }
    fn print(&self) -> String {
        format!("[{}]", self.0.join(" "))
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Has" => Some(one_str(args, name).map(|v| Value::Bool(self.0.iter().any(|x| x == v)))),
            _ => None,
        }
    }
    fn method_sig(&self, name: &str) -> Option<&'static Sig> {
        (name == "Has").then_some(&ONE_STRING)
    }
    fn plain(&self) -> Value {
        Value::List(self.0.iter().map(|s| Value::Str(s.clone())).collect())
    }
    fn kind(&self) -> &'static str {
        "slice"
    }
    fn is_true(&self) -> bool {
        !self.0.is_empty()
    }
}

/// Helm v4.1.4's build information (`.Capabilities.HelmVersion`).
#[derive(Debug, Clone)]
pub struct HelmVersion;

const HELM_VERSION: [(&str, &str, &str); 5] = [
    ("Version", "version", "v4.1.4"),
    (
        "GitCommit",
        "git_commit",
        "05fa37973dc9e42b76e1d2883494c87174b6074f",
    ),
    ("GitTreeState", "git_tree_state", "clean"),
    ("GoVersion", "go_version", "go1.25.9"),
    ("KubeClientVersion", "kube_client_version", "v1.35"),
];

impl Object for HelmVersion {
    fn type_name(&self) -> &'static str {
        "version.BuildInfo"
    }
    fn print(&self) -> String {
        let v: Vec<&str> = HELM_VERSION.iter().map(|(_, _, v)| *v).collect();
        format!("{{{}}}", v.join(" "))
    }
    fn field(&self, name: &str) -> Option<Value> {
        HELM_VERSION
            .iter()
            .find(|(f, _, _)| *f == name)
            .map(|(_, _, v)| Value::Str(v.to_string()))
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::Map(
            HELM_VERSION
                .iter()
                .map(|(_, j, v)| (j.to_string(), Value::Str(v.to_string())))
                .collect(),
        )
    }
    fn kind(&self) -> &'static str {
        "struct"
    }
    fn json(&self) -> Option<Json> {
        let fields = HELM_VERSION
            .iter()
            .map(|(_, j, v)| (*j, Value::Str(v.to_string())));
        Some(Json::Struct(fields.collect()))
    }
}

/// `.Capabilities`.
#[derive(Debug, Clone)]
pub struct Capabilities {
    pub kube: KubeVersion,
    pub api: VersionSet,
}

impl Object for Capabilities {
    fn type_name(&self) -> &'static str {
        "*common.Capabilities"
    }
    fn print(&self) -> String {
        format!(
            "&{{{} {} {}}}",
            self.kube.print(),
            self.api.print(),
            HelmVersion.print()
        )
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(Value::object(self.kube.clone())),
            "APIVersions" => Some(Value::object(self.api.clone())),
            "HelmVersion" => Some(Value::object(HelmVersion)),
            _ => None,
        }
    }
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        None
    }
    fn plain(&self) -> Value {
        Value::map(BTreeMap::from([
            ("KubeVersion".into(), self.kube.plain()),
            ("APIVersions".into(), self.api.plain()),
            ("HelmVersion".into(), HelmVersion.plain()),
        ]))
    }
    fn json(&self) -> Option<Json> {
        Some(Json::Struct(vec![
            ("KubeVersion", Value::object(self.kube.clone())),
            ("APIVersions", Value::object(self.api.clone())),
            ("HelmVersion", Value::object(HelmVersion)),
        ]))
    }
}

/// Helm's default API versions (client-go's scheme, with the
/// apiextensions groups), in Helm's order.
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_parse_as_helm() {
        let k = KubeVersion::parse("1.29").unwrap();
        assert_eq!(k.print(), "{v1.29 v1.29 1 29}");
        assert_eq!(
            KubeVersion::parse("1.02").unwrap().print(),
            "{v1.02 v1.2 1 2}"
        );
        let k = KubeVersion::parse("v1.33.4-gke.1245000").unwrap();
        assert_eq!(k.version, "v1.33.4-gke.1245000");
        assert_eq!((k.major.as_str(), k.minor.as_str()), ("1", "33"));
        assert!(KubeVersion::parse("banana").is_err());
    }

    #[test]
    fn files_methods() {
        let f = Files::new(&[
            ChartFile {
                name: "files/a.conf".into(),
                data: Arc::<[u8]>::from(&b"x=1\ny=2\n"[..]).into(),
            },
            ChartFile {
                name: "other.txt".into(),
                data: Arc::<[u8]>::from(&b"o"[..]).into(),
            },
        ]);
        let g = f
            .call("Glob", &[Value::Str("files/*".into())])
            .unwrap()
            .unwrap();
        let Value::Object(g) = g else { panic!() };
        assert_eq!(
            g.0.call("AsConfig", &[]).unwrap().unwrap(),
            Value::Str("a.conf: |\n  x=1\n  y=2".into())
        );
        let lines = f
            .call("Lines", &[Value::Str("files/a.conf".into())])
            .unwrap()
            .unwrap();
        assert_eq!(lines.type_name(), "[]string");
        assert_eq!(
            lines.list_items(),
            Some(&[Value::Str("x=1".into()), Value::Str("y=2".into())][..])
        );
        assert_eq!(
            f.call("Get", &[Value::Str("nope".into())])
                .unwrap()
                .unwrap(),
            Value::Str(String::new())
        );
    }
}
