//! SOPS-encrypted objects, offline.
//!
//! kustomize-controller decrypts SOPS data when a Kustomization sets
//! `spec.decryption.provider: sops` (fluxcd/kustomize-controller,
//! internal/decryptor/decryptor.go, read at 186fb3b):
//!
//! * `DecryptSources` decrypts the files a `secretGenerator` reads (`files`,
//!   `envs`; an env file defaults to the dotenv format) and the files of
//!   `patches[].path` *before* the kustomize build;
//! * `DecryptResource` runs on every built object, before post-build
//!   substitution: an object of any kind whose top-level `sops` field holds
//!   a non-empty `mac` (`isSOPSEncryptedResource`) is decrypted whole; a
//!   `Secret` whose `data` entries decode to a SOPS document (markers
//!   `mac: ENC[`, `"mac": "ENC[`, `sops_mac=ENC[`, `[sops]`) has those
//!   entries decrypted;
//! * an object annotated `kustomize.toolkit.fluxcd.io/decrypt: disabled`
//!   (case-insensitive) is left alone;
//! * without decryption, a `v1` `Secret` that still has a `sops` field is
//!   refused at apply time ("is SOPS encrypted, configuring decryption is
//!   required for this secret to be reconciled").
//!
//! flate has no keys and never will: it reproduces the *shape* of the
//! decrypted object instead. The `sops` metadata is dropped, every
//! `ENC[...]` value becomes [`PLACEHOLDER`] (in a Secret's `data`, its
//! base64; a value SOPS typed `int`, `float` or `bool` becomes `0` or
//! `false`, so schema checks see a value of the decrypted type), the keys
//! are kept, and the object is annotated [`ANNOTATION`]. Everything that
//! prints or compares objects treats a marked object as a Secret
//! ([`is_encrypted`] is the hook).

use base64::Engine;

use crate::resource::Resource;
use crate::yaml::{Map, Node};

/// What every encrypted value becomes.
pub const PLACEHOLDER: &str = "sops-encrypted-not-decrypted-offline";
/// The mark on an object whose SOPS values were replaced.
pub const ANNOTATION: &str = "flate.dev/sops";
pub const ANNOTATION_VALUE: &str = "encrypted, not decrypted offline";
/// kustomize-controller's opt-out (`IsDecryptionDisabled`).
pub const DISABLE_KEY: &str = "kustomize.toolkit.fluxcd.io/decrypt";

/// The byte markers kustomize-controller looks for in a Secret's decoded
/// `data` entries (`sopsFormatToMarkerBytes`).
const MARKERS: &[&str] = &["mac: ENC[", "\"mac\": \"ENC[", "sops_mac=ENC[", "[sops]"];

/// Whether `r` held SOPS-encrypted values that flate replaced: treat it as
/// a Secret (redact it) wherever it is printed or compared.
pub fn is_encrypted(r: &Resource) -> bool {
    r.annotation(ANNOTATION).is_some()
}

/// kustomize-controller's `IsEncryptedSecret` (and not opted out of
/// decryption): a `v1` Secret with a top-level `sops` field, which it
/// refuses to apply, failing the whole Kustomization, unless it was
/// decrypted (which needs `spec.decryption`).
pub fn is_encrypted_secret(r: &Resource) -> bool {
    is_core_secret(r) && r.obj.get("sops").is_some() && !decryption_disabled(r)
}

/// Whether `s` contains the placeholder (a value flate could not see).
pub fn holds_placeholder(s: &str) -> bool {
    s.contains(PLACEHOLDER)
}

fn decryption_disabled(r: &Resource) -> bool {
    r.annotation(DISABLE_KEY)
        .is_some_and(|v| v.eq_ignore_ascii_case("disabled"))
}

/// The SOPS type of an encrypted value `ENC[AES256_GCM,data:…,type:T]`,
/// None when `s` is not one.
fn enc_type(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("ENC[")?.strip_suffix(']')?;
    if !inner.contains("data:") {
        return None;
    }
    Some(
        inner
            .rsplit(',')
            .find_map(|p| p.strip_prefix("type:"))
            .unwrap_or("str"),
    )
}

fn placeholder_for(ty: &str) -> Node {
    match ty {
        "int" | "float" => Node::Int(0),
        "bool" => Node::Bool(false),
        _ => Node::str(PLACEHOLDER),
    }
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
}

/// Replaces every encrypted value under `n`; `base64` for a Secret's `data`.
fn replace_values(n: &mut Node, base64: bool) -> usize {
    match n {
        Node::Map(m) => replace_in_map(m, base64),
        Node::Seq(items) => items.iter_mut().map(|i| replace_values(i, base64)).sum(),
        _ => 0,
    }
}

fn replace_in_map(m: &mut Map, base64: bool) -> usize {
    let mut count = 0;
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        let v = m.get_mut(&k).expect("key");
        if let Node::Str(s) = v {
            if let Some(ty) = enc_type(s) {
                let new = if base64 {
                    Node::str(b64(PLACEHOLDER))
                } else {
                    placeholder_for(ty)
                };
                m.insert(k.as_str(), new);
                count += 1;
            }
        } else {
            count += replace_values(v, base64);
        }
    }
    count
}

fn is_core_secret(r: &Resource) -> bool {
    r.kind() == "Secret" && r.gvk().group.is_empty()
}

/// Encrypted entries of a Secret's `data` (what a `secretGenerator` made
/// of SOPS-encrypted files): a whole encrypted file becomes the
/// placeholder; an encrypted dotenv file read by `envs` (one entry per
/// line, plus `sops_*` metadata entries) loses its `sops_*` entries and
/// its `ENC[...]` values become the placeholder, as if Flux had decrypted
/// the file before the build. Returns the number of entries replaced.
fn mask_secret_data(r: &mut Resource) -> usize {
    let engine = base64::engine::general_purpose::STANDARD;
    let Some(Node::Map(data)) = r.obj.get_mut("data") else {
        return 0;
    };
    let decoded = |v: &Node| {
        let s = v.as_str()?;
        let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        engine
            .decode(clean.as_bytes())
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let dotenv = data
        .get("sops_mac")
        .and_then(decoded)
        .is_some_and(|v| enc_type(&v).is_some());
    let mut count = 0;
    if dotenv {
        let before = data.len();
        data.retain(|k, _| !k.starts_with("sops_"));
        count += before - data.len();
    }
    let keys: Vec<String> = data.keys().cloned().collect();
    for k in keys {
        let Some(text) = data.get(&k).and_then(decoded) else {
            continue;
        };
        let encrypted = MARKERS.iter().any(|m| text.contains(m))
            || (dotenv && enc_type(text.trim_end()).is_some());
        if encrypted {
            data.insert(k.as_str(), Node::str(b64(PLACEHOLDER)));
            count += 1;
        }
    }
    count
}

/// Replaces the SOPS-encrypted values of `r` as described in the module
/// documentation; true when `r` held any (it is then marked).
pub fn mask(r: &mut Resource) -> bool {
    if decryption_disabled(r) {
        return false;
    }
    let whole = r
        .obj
        .get("sops")
        .and_then(Node::as_map)
        .is_some_and(|m| !m.is_empty());
    let secret = is_core_secret(r);
    let masked = if whole {
        if let Node::Map(m) = &mut r.obj {
            m.remove("sops");
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                if matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                let v = m.get_mut(&k).expect("key");
                let data = secret && k == "data";
                if let Node::Str(s) = v {
                    if let Some(ty) = enc_type(s) {
                        let new = placeholder_for(ty);
                        m.insert(k.as_str(), new);
                    }
                } else {
                    replace_values(v, data);
                }
            }
        }
        true
    } else {
        secret && mask_secret_data(r) > 0
    };
    if masked {
        mark(r);
    }
    masked
}

fn mark(r: &mut Resource) {
    let Node::Map(root) = &mut r.obj else { return };
    let md = root.entry_map("metadata");
    if md.is_null() {
        *md = Node::map();
    }
    let Node::Map(md) = md else { return };
    let ann = md.entry_map("annotations");
    if ann.is_null() {
        *ann = Node::map();
    }
    if let Node::Map(a) = ann {
        a.insert(ANNOTATION, Node::str(ANNOTATION_VALUE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Origin;

    fn res(text: &str) -> Resource {
        let docs = crate::yaml::parse::parse_stream(text).expect("parses");
        Resource::new(
            docs.into_iter().next().expect("a document").node,
            Origin::default(),
        )
    }

    #[test]
    fn an_encrypted_secret_keeps_its_keys_and_loses_its_metadata() {
        let mut r = res("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n\
             data:\n  token: ENC[AES256_GCM,data:AAAA,iv:BB,tag:CC,type:str]\n\
             stringData:\n  url: ENC[AES256_GCM,data:AAAA,iv:BB,tag:CC,type:str]\n  plain: x\n\
             sops:\n  mac: ENC[AES256_GCM,data:m,iv:i,tag:t,type:str]\n  version: 3.9.0\n");
        assert!(mask(&mut r));
        assert!(is_encrypted(&r));
        assert!(r.obj.get("sops").is_none());
        assert_eq!(
            r.obj.get_str(&["data", "token"]),
            Some(b64(PLACEHOLDER).as_str())
        );
        assert_eq!(r.obj.get_str(&["stringData", "url"]), Some(PLACEHOLDER));
        assert_eq!(r.obj.get_str(&["stringData", "plain"]), Some("x"));
        assert_eq!(
            r.annotation(ANNOTATION),
            Some("encrypted, not decrypted offline")
        );
    }

    #[test]
    fn any_kind_is_decrypted_and_typed_values_keep_their_type() {
        let mut r = res(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n\
             spec:\n  replicas: ENC[AES256_GCM,data:Mg==,iv:a,tag:b,type:int]\n  \
             paused: ENC[AES256_GCM,data:x,iv:a,tag:b,type:bool]\n  \
             list:\n  - ENC[AES256_GCM,data:x,iv:a,tag:b,type:str]\n\
             sops:\n  mac: ENC[AES256_GCM,data:m,iv:i,tag:t,type:str]\n",
        );
        assert!(mask(&mut r));
        assert_eq!(r.obj.get_path(&["spec", "replicas"]), Some(&Node::Int(0)));
        assert_eq!(
            r.obj.get_path(&["spec", "paused"]),
            Some(&Node::Bool(false))
        );
        // Sequence items are values too.
        let list = r.obj.get_path(&["spec", "list"]).and_then(Node::as_seq);
        assert_eq!(list.map(Vec::len), Some(1));
    }

    #[test]
    fn the_decrypt_disabled_annotation_and_plain_objects_are_left_alone() {
        let text = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations:\n    \
             kustomize.toolkit.fluxcd.io/decrypt: Disabled\n\
             sops:\n  mac: ENC[AES256_GCM,data:m,iv:i,tag:t,type:str]\n";
        let mut r = res(text);
        assert!(!mask(&mut r));
        assert!(r.obj.get("sops").is_some());
        let mut plain =
            res("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: eA==\n");
        assert!(!mask(&mut plain));
        assert!(!is_encrypted(&plain));
    }

    #[test]
    fn generated_secrets_from_encrypted_files_and_env_files() {
        let file = b64(
            "token: ENC[AES256_GCM,data:x,iv:a,tag:b,type:str]\nsops:\n    mac: ENC[AES256_GCM,data:m,iv:i,tag:t,type:str]\n",
        );
        let env_val = b64("ENC[AES256_GCM,data:x,iv:a,tag:b,type:str]");
        let text = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: g\ndata:\n  secret.yaml: {file}\n  \
             TOKEN: {env_val}\n  PLAIN: {}\n  sops_mac: {env_val}\n  sops_version: {}\n",
            b64("hello"),
            b64("3.9.0")
        );
        let mut r = res(&text);
        assert!(mask(&mut r));
        let data = r.obj.get("data").and_then(Node::as_map).expect("data");
        let keys: Vec<&String> = data.keys().collect();
        assert_eq!(keys, ["secret.yaml", "TOKEN", "PLAIN"]);
        assert_eq!(
            data.get("TOKEN").and_then(Node::as_str),
            Some(b64(PLACEHOLDER).as_str())
        );
        assert_eq!(
            data.get("secret.yaml").and_then(Node::as_str),
            Some(b64(PLACEHOLDER).as_str())
        );
        assert_eq!(
            data.get("PLAIN").and_then(Node::as_str),
            Some(b64("hello").as_str())
        );
    }
}
