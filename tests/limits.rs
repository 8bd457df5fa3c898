//! The input limits (docs/limits.md): hostile documents are refused with
//! an error naming the file and line, never a crash, in every command that
//! renders; a document at the limits renders everywhere, on the 2 MiB
//! stacks of rayon's worker threads (these tests run a debug build, whose
//! frames are larger than a release build's).

mod common;

use std::path::Path;
use std::process::{Command, Output};

const MAX_DEPTH: usize = flate::yaml::parse::MAX_DEPTH;

fn flate(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flate"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run flate")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails when the process died of a signal (a stack overflow aborts).
fn assert_no_crash(o: &Output, what: &str) {
    assert!(
        o.status.code().is_some(),
        "{what}: killed by a signal: {}",
        stderr(o)
    );
    assert!(!stderr(o).contains("overflow"), "{what}: {}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{what}: {}", stderr(o));
}

/// A ConfigMap whose `spec` holds collections nested `levels` deep below
/// the root map and `spec` (so the document nests `levels + 2` deep), in
/// `style`: block maps, block sequences, flow, or aliases. Returns the
/// text and the line of the collection that first passes `MAX_DEPTH`
/// (when it does).
fn deep_doc(style: &str, levels: usize) -> (String, usize) {
    let mut s = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n");
    // The first collection beyond the limit is at depth MAX_DEPTH + 1: the
    // root is 1 and spec's value is 2.
    let over = MAX_DEPTH + 1 - 2;
    match style {
        "block" => {
            s.push_str("spec:\n");
            for i in 0..levels {
                s.push_str(&"  ".repeat(i + 1));
                s.push_str(if i + 1 == levels { "a: 1\n" } else { "a:\n" });
            }
            (s, 6 + over)
        }
        "seq" => {
            s.push_str("spec:\n");
            for i in 0..levels {
                s.push_str(&"  ".repeat(i + 1));
                s.push_str(if i + 1 == levels { "- 1\n" } else { "-\n" });
            }
            (s, 6 + over)
        }
        "flow" => {
            s.push_str("spec: ");
            s.push_str(&"[".repeat(levels));
            s.push_str(&"]".repeat(levels));
            s.push('\n');
            (s, 5)
        }
        "alias" => {
            // Each anchor nests 10 levels inside the previous one through
            // an alias: only the aliases make the tree deep.
            s.push_str("spec:\n");
            let steps = levels / 10;
            s.push_str("  l0: &l0 1\n");
            for i in 1..=steps {
                s.push_str(&format!(
                    "  l{i}: &l{i} {}*l{}{}\n",
                    "[".repeat(10),
                    i - 1,
                    "]".repeat(10)
                ));
            }
            // spec's map is at depth 2; l{i} adds 10 * i levels.
            let first = (MAX_DEPTH - 2) / 10 + 1;
            (s, 5 + first + 1)
        }
        other => panic!("{other}"),
    }
}

fn kustomize_dir(dir: &Path, doc: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("cm.yaml"), doc).unwrap();
    std::fs::write(dir.join("kustomization.yaml"), "resources:\n- cm.yaml\n").unwrap();
}

#[test]
fn nesting_beyond_the_limit_is_refused_with_file_and_line() {
    let d = common::scratch("limits-deep");
    for style in ["block", "seq", "flow", "alias"] {
        for levels in [MAX_DEPTH, 3000] {
            let (doc, line) = deep_doc(style, levels);
            let case = d.join(format!("{style}-{levels}"));
            kustomize_dir(&case, &doc);
            let o = flate(&["kustomize", "build", "."], &case);
            assert_no_crash(&o, style);
            assert_eq!(o.status.code(), Some(2), "{style} {levels}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(
                err.contains(&format!("cm.yaml:{line}:"))
                    && err.contains(&format!("deeper than the limit of {MAX_DEPTH} levels")),
                "{style} {levels}: {err}"
            );
        }
    }
}

#[test]
fn nesting_at_the_limit_builds() {
    let d = common::scratch("limits-at-limit");
    for style in ["block", "seq", "flow", "alias"] {
        // The document nests exactly MAX_DEPTH deep.
        let levels = if style == "alias" { 190 } else { MAX_DEPTH - 1 };
        let (doc, _) = deep_doc(style, levels);
        let case = d.join(style);
        kustomize_dir(&case, &doc);
        let o = flate(&["kustomize", "build", "."], &case);
        assert_eq!(o.status.code(), Some(0), "{style}: {}", stderr(&o));
    }
}

/// The example tree with one ConfigMap nested exactly `MAX_DEPTH` deep that
/// a strategic-merge patch and a JSON 6902 patch reach the bottom of, and
/// whose deepest value Flux substitutes; plus `extra` patches appended to
/// the kustomization.
fn deep_example_tree(name: &str, extra: &str) -> common::Scratch {
    let d = common::scratch(&format!("limits-{name}"));
    common::copy_dir(&common::root().join("kubernetes"), &d.join("kubernetes"));
    let app = d.join("kubernetes/apps/base/mesh-gateway-api/app");
    let levels = MAX_DEPTH - 2;
    let mut doc = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\nspec:\n");
    let mut smp = doc.clone();
    for i in 0..levels {
        doc.push_str(&format!("{}a:\n", "  ".repeat(i + 1)));
        smp.push_str(&format!("{}a:\n", "  ".repeat(i + 1)));
    }
    doc.push_str(&format!(
        "{}b: ${{CLUSTER_APP_DOMAIN}}\n",
        "  ".repeat(levels + 1)
    ));
    smp.push_str(&format!("{}c: smp-reached\n", "  ".repeat(levels + 1)));
    std::fs::write(app.join("deep.yaml"), doc).unwrap();
    // A CRD whose schema nests to the limit, and an object of its kind
    // whose deepest value is a map where the schema wants a string:
    // `flate check` validates both (the CRD against the recursive
    // JSONSchemaProps schema, the object against the CRD, down to the
    // bottom to find the error).
    let mut crd = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: deeps.example.com\nspec:\n  group: example.com\n  names: {kind: Deep, plural: deeps}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n",
    );
    let mut cr = String::from(
        "apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: deep\n  namespace: default\n",
    );
    let (mut indent, mut depth) = (8, 6);
    let mut key = "spec";
    while depth + 2 <= MAX_DEPTH {
        let pad = " ".repeat(indent);
        crd.push_str(&format!(
            "{pad}type: object\n{pad}properties:\n{pad}  {key}:\n"
        ));
        cr.push_str(&format!("{}{key}:\n", " ".repeat(indent - 8)));
        (indent, depth, key) = (indent + 4, depth + 2, "a");
    }
    crd.push_str(&format!("{}type: string\n", " ".repeat(indent)));
    cr.push_str(&format!("{}{key}: x\n", " ".repeat(indent - 8)));
    std::fs::write(app.join("crd.yaml"), crd).unwrap();
    std::fs::write(app.join("cr.yaml"), cr).unwrap();
    std::fs::write(app.join("smp.yaml"), smp).unwrap();
    let k = app.join("kustomization.yaml");
    let mut text = std::fs::read_to_string(&k).unwrap();
    text.push_str(&format!(
        "  - ./deep.yaml\n  - ./crd.yaml\n  - ./cr.yaml\npatches:\n  - path: smp.yaml\n  - target: {{kind: ConfigMap, name: deep}}\n    patch: |\n      - op: add\n        path: /spec{}/d\n        value: json-reached\n{extra}",
        "/a".repeat(levels)
    ));
    std::fs::write(&k, text).unwrap();
    d
}

#[test]
fn a_tree_at_the_depth_limit_renders_in_every_command() {
    let d = deep_example_tree("flux-deep", "");
    let o = common::flate_in(&["build", "production"], &d);
    assert_no_crash(&o, "build");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for want in ["b: futostat.us", "c: smp-reached", "d: json-reached"] {
        assert!(out.contains(want), "build output lacks {want}");
    }
    let o = common::flate_in(&["build", "production", "-o", "json"], &d);
    assert_no_crash(&o, "build -o json");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = common::flate_in(&["check", "production"], &d);
    assert_no_crash(&o, "check");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("cr.yaml:102: error[schema-invalid]: Deep default/deep: spec.a.a.")
            && out.contains("{\"a\":\"x\"} is not of type \"string\""),
        "{out}"
    );
    for args in [
        &["check"][..],
        &["diff", "production", "staging", "--path-orig"][..],
        &["pins"][..],
        &["test", "all", "production"][..],
    ] {
        let mut args = args.to_vec();
        let orig = common::root();
        let orig = orig.to_str().unwrap();
        if args.contains(&"--path-orig") {
            args.push(orig);
        }
        let o = common::flate_in(&args, &d);
        assert_no_crash(&o, &args.join(" "));
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn json6902_copies_cannot_grow_an_object_past_the_limit() {
    let levels = MAX_DEPTH - 2;
    let copy = format!(
        "  - target: {{kind: ConfigMap, name: deep}}\n    patch: |\n      - op: copy\n        from: /spec\n        path: /spec{}/e\n",
        "/a".repeat(levels)
    );
    let d = deep_example_tree("flux-copy", &copy.repeat(10));
    let app = d.join("kubernetes/apps/base/mesh-gateway-api/app");
    let o = flate(&["kustomize", "build", "."], &app);
    assert_no_crash(&o, "kustomize build");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("copy operation makes the object nest deeper than the limit"),
        "{}",
        stderr(&o)
    );
    let o = common::flate_in(&["build", "production"], &d);
    assert_no_crash(&o, "build");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("deeper than the limit"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn deep_document_in_a_flux_tree_fails_its_kustomization_only() {
    for style in ["block", "flow"] {
        let d = common::scratch(&format!("limits-flux-over-{style}"));
        common::copy_dir(&common::root().join("kubernetes"), &d.join("kubernetes"));
        let app = d.join("kubernetes/apps/base/mesh-gateway-api/app");
        let (doc, line) = deep_doc(style, 3000);
        std::fs::write(app.join("cm.yaml"), doc).unwrap();
        let k = app.join("kustomization.yaml");
        let text = std::fs::read_to_string(&k).unwrap() + "  - ./cm.yaml\n";
        std::fs::write(&k, text).unwrap();
        for args in [
            &["build", "production"][..],
            &["check", "production"][..],
            &["pins"][..],
        ] {
            let o = common::flate_in(args, &d);
            assert_no_crash(&o, &format!("{style} {args:?}"));
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            let all = format!("{}{}", stderr(&o), String::from_utf8_lossy(&o.stdout));
            assert!(
                all.contains(&format!("mesh-gateway-api/app/cm.yaml:{line}")),
                "{style} {args:?}: {all}"
            );
        }
    }
}

/// Runs a template with Helm's functions on a thread with a 2 MiB stack
/// (what rayon's workers have), as `.Values` = `values`.
fn run_template(tpl: &str, values: flate::template::Value) -> Result<String, String> {
    let tpl = tpl.to_string();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut t = flate::template::Templates::new();
            t.name = "gotpl".into();
            flate::helm::funcs::add_funcs(&mut t);
            let data = flate::template::Value::map(std::collections::BTreeMap::from([(
                "Values".to_string(),
                values,
            )]));
            t.parse("c/templates/t.yaml", &tpl)
                .and_then(|()| t.execute("c/templates/t.yaml", &data))
                .map_err(|e| flate::helm::error_text(&e))
        })
        .unwrap()
        .join()
        .expect("template execution panicked")
}

#[test]
fn template_recursion_stops_at_the_depth_limit() {
    let max = flate::template::exec::MAX_DEPTH;
    assert_eq!(max, 100_000);
    let nested = "rendering template has a nested reference name: a: unable to execute template";
    let nil = flate::template::Value::Nil;
    // Each form recurses without end; each stops with Helm's message (a
    // chain of `include`s of one name) or Go's (`template` actions, `tpl`),
    // on a 2 MiB thread: the engine grows its stack as calls nest.
    for (what, tpl, want) in [
        (
            "template",
            r#"{{define "a"}}x{{template "a" .}}{{end}}{{template "a" .}}"#,
            format!("exceeded maximum template depth ({max})"),
        ),
        (
            "include",
            r#"{{define "a"}}x{{include "a" .}}{{end}}{{include "a" .}}"#,
            nested.to_string(),
        ),
        (
            "include and template",
            r#"{{define "a"}}{{template "b" .}}{{end}}{{define "b"}}{{include "a" .}}{{end}}{{include "a" .}}"#,
            nested.to_string(),
        ),
        (
            "tpl",
            r#"{{define "a"}}{{tpl "{{include \"a\" .}}" .}}{{end}}{{include "a" .}}"#,
            nested.to_string(),
        ),
    ] {
        let err = run_template(tpl, nil.clone()).expect_err(what);
        assert!(
            err.contains(&want),
            "{what}: {}",
            &err[err.len().saturating_sub(300)..]
        );
    }
    // `tpl` of a value that calls `tpl` on itself: a chain of `tpl`s has a
    // limit of its own (Helm's stack overflows).
    let values = flate::template::Value::map(std::collections::BTreeMap::from([(
        "x".to_string(),
        flate::template::Value::Str("{{tpl .Values.x .}}".into()),
    )]));
    let err = run_template("{{tpl .Values.x .}}", values).expect_err("tpl of itself");
    let sets = flate::template::exec::MAX_NESTED_SETS;
    assert_eq!(sets, 10_000);
    assert!(
        err.contains(&format!("exceeded maximum template depth ({sets})")),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
    // At Helm's limit, calls render: 1,001 nested `include`s of one name
    // (each with an `if` around the next) run; one more fails.
    let tpl = r#"{{define "a"}}{{if .}}x{{include "a" (slice . 1)}}{{end}}{{end}}{{include "a" .Values.l}}"#;
    let countdown = |n: usize| {
        flate::template::Value::map(std::collections::BTreeMap::from([(
            "l".to_string(),
            flate::template::Value::List(vec![flate::template::Value::Nil; n]),
        )]))
    };
    let limit = flate::helm::funcs::INCLUDE_MAX_NESTED + 1;
    let out = run_template(tpl, countdown(limit - 1)).expect("at the limit");
    assert_eq!(out, "x".repeat(limit - 1));
    let err = run_template(tpl, countdown(limit)).expect_err("past the limit");
    assert!(
        err.contains(nested),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
}

#[test]
fn deeply_nested_templates_are_refused_not_crashed() {
    let n = 20_000;
    for (what, tpl) in [
        (
            "parens",
            format!("{{{{{}1{}}}}}", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "if",
            format!("{}x{}", "{{if 1}}".repeat(n), "{{end}}".repeat(n)),
        ),
        (
            "range",
            format!("{}x{}", "{{range 1}}".repeat(n), "{{end}}".repeat(n)),
        ),
        (
            "else if",
            format!("{{{{if 0}}}}{}{{{{end}}}}", "{{else if 0}}".repeat(n)),
        ),
    ] {
        let err = run_template(&tpl, flate::template::Value::Nil).expect_err(what);
        assert!(
            err.contains("nest deeper than the limit of 100 levels"),
            "{what}: {err}"
        );
    }
    // At the limit, they parse and run: 50 `if`s around 50 parentheses,
    // and the deepest combination, 98 levels of calls and control
    // structures with 99 parentheses at the bottom.
    let max = flate::template::parse::MAX_NESTING;
    let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let ifs = format!(
        "{}{{{{{}}}}}{}",
        "{{if 1}}".repeat(max / 2),
        parens(max / 2),
        "{{end}}".repeat(max / 2)
    );
    assert_eq!(
        run_template(&ifs, flate::template::Value::Nil).unwrap(),
        "1"
    );
    let tpl = format!(
        r#"{{{{define "a"}}}}{{{{if .}}}}{{{{include "a" (slice . 1)}}}}{{{{else}}}}{{{{{}}}}}{{{{end}}}}{{{{end}}}}{{{{include "a" .Values.l}}}}"#,
        parens(max - 1)
    );
    let values = flate::template::Value::map(std::collections::BTreeMap::from([(
        "l".to_string(),
        flate::template::Value::List(vec![flate::template::Value::Nil; 48]),
    )]));
    assert_eq!(run_template(&tpl, values).unwrap(), "1");
}
