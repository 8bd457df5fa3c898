//! Sprig's random functions (`randAlpha`, `randAlphaNum`, `randAscii`,
//! `randNumeric`, `randInt`, `randBytes`, `shuffle`, `uuidv4`) and `keys`
//! (whose order Go leaves random) cannot be compared byte for byte with
//! Helm. Each case here states the property its output has; flate's output
//! must have it, and be the same on every run (the generator is seeded). When
//! `helm` is on PATH, Helm's output is checked against the same property, so
//! the properties are Helm's and not only flate's.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use base64::Engine as _;
use flate::template::{Templates, Value};

type Check = fn(&str) -> Result<(), String>;

fn all_in(s: &str, alphabet: &str) -> bool {
    s.chars().all(|c| alphabet.contains(c))
}

fn fields(s: &str) -> Vec<&str> {
    s.split('|').collect()
}

const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";

fn sorted(s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    c.sort();
    c.into_iter().collect()
}

/// The PEM blocks of a text: (label, DER bytes).
fn pem_blocks(text: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("-----BEGIN ") {
        let after = &rest[i + 11..];
        let (label, body) = after.split_once("-----").ok_or("bad PEM header")?;
        let end = body
            .find(&format!("-----END {label}-----"))
            .ok_or("no PEM end line")?;
        let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| e.to_string())?;
        if der.first() != Some(&0x30) {
            return Err(format!("{label}: not a DER sequence"));
        }
        out.push((label.to_string(), der));
        rest = &body[end..];
    }
    Ok(out)
}

/// Runs openssl on a PEM text; None when openssl is not installed.
fn openssl(args: &[&str], files: &[(&str, &str)]) -> Option<Result<String, String>> {
    let dir = tempfile::tempdir().ok()?;
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).ok()?;
    }
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir.path())
        .output()
        .ok()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    })
}

fn check_ca(o: &str) -> Result<(), String> {
    let blocks = pem_blocks(o)?;
    let labels: Vec<&str> = blocks.iter().map(|(l, _)| l.as_str()).collect();
    if labels != ["CERTIFICATE", "RSA PRIVATE KEY"] {
        return Err(format!("a certificate and an RSA key, got {labels:?}"));
    }
    if let Some(r) = openssl(
        &[
            "x509",
            "-in",
            "c.pem",
            "-noout",
            "-subject",
            "-ext",
            "basicConstraints",
        ],
        &[("c.pem", o)],
    ) {
        let text = r?;
        if !text.contains("CN=my-ca") && !text.contains("CN = my-ca") || !text.contains("CA:TRUE") {
            return Err(format!("openssl reads no CA named my-ca: {text}"));
        }
        openssl(
            &["rsa", "-in", "c.pem", "-check", "-noout"],
            &[("c.pem", o)],
        )
        .unwrap()?;
    }
    Ok(())
}

fn check_signed(o: &str) -> Result<(), String> {
    let (ca, leaf) = o.split_once("|").ok_or("two parts")?;
    let blocks = pem_blocks(leaf)?;
    if blocks.len() != 2 {
        return Err("a certificate and a key".into());
    }
    if let Some(r) = openssl(
        &["verify", "-no_check_time", "-CAfile", "ca.pem", "leaf.pem"],
        &[("ca.pem", ca), ("leaf.pem", leaf)],
    ) {
        r?;
        let text = openssl(
            &["x509", "-in", "leaf.pem", "-noout", "-text"],
            &[("leaf.pem", leaf)],
        )
        .unwrap()?;
        for want in [
            "DNS:svc.ns.svc",
            "IP Address:10.0.0.1",
            "TLS Web Server Authentication",
        ] {
            if !text.contains(want) {
                return Err(format!("no {want} in {text}"));
            }
        }
        // A certificate a CA signs names the CA's key (Go's x509 copies the
        // CA's subject key identifier); a self-signed one does not.
        let ca_cert = &ca[..ca.find("-----END CERTIFICATE-----").unwrap_or(0)];
        if !leaf.starts_with(ca_cert) {
            let ski = openssl(
                &[
                    "x509",
                    "-in",
                    "ca.pem",
                    "-noout",
                    "-ext",
                    "subjectKeyIdentifier",
                ],
                &[("ca.pem", ca)],
            )
            .unwrap()?;
            let id = ski.lines().nth(1).unwrap_or("").trim().to_string();
            if id.is_empty() || !text.contains(&id) {
                return Err(format!(
                    "the CA's key identifier {id:?} is not the authority's in {text}"
                ));
            }
        }
    }
    Ok(())
}

fn check_bcrypt(o: &str, password: &str) -> Result<(), String> {
    if o.len() != 60 || !o.starts_with("$2a$10$") {
        return Err(format!("a 60-character $2a$10$ hash, got {o:?}"));
    }
    if !flate::helm::sprig::crypto::bcrypt_verify(password.as_bytes(), o) {
        return Err("a bcrypt hash of the password".into());
    }
    Ok(())
}

fn check_key(o: &str, label: &str, openssl_args: &[&str]) -> Result<(), String> {
    let blocks = pem_blocks(o)?;
    if blocks.len() != 1 || blocks[0].0 != label {
        return Err(format!("one {label} block"));
    }
    let mut args = openssl_args.to_vec();
    args.extend(["-in", "k.pem", "-noout"]);
    if let Some(r) = openssl(&args, &[("k.pem", o)]) {
        r.map_err(|e| format!("openssl rejects the key: {e}"))?;
    }
    Ok(())
}

const CASES: &[(&str, &str, Check)] = &[
    (
        "genPrivateKey-ecdsa",
        "{{ genPrivateKey \"ecdsa\" }}",
        |o| check_key(o, "EC PRIVATE KEY", &["ec", "-check"]),
    ),
    ("genPrivateKey-rsa", "{{ genPrivateKey \"rsa\" }}", |o| {
        check_key(o, "RSA PRIVATE KEY", &["rsa", "-check"])
    }),
    ("genPrivateKey-dsa", "{{ genPrivateKey \"dsa\" }}", |o| {
        check_key(o, "DSA PRIVATE KEY", &["pkey", "-check"])
    }),
    (
        "genPrivateKey-ed25519",
        "{{ genPrivateKey \"ed25519\" }}",
        |o| check_key(o, "PRIVATE KEY", &["pkey"]),
    ),
    ("bcrypt", "{{ bcrypt \"s3cret\" }}", |o| {
        check_bcrypt(o, "s3cret")
    }),
    (
        "htpasswd",
        "{{ htpasswd \"admin\" \"pw\" }}|{{ htpasswd \"a:b\" \"pw\" }}",
        |o| {
            let f = fields(o);
            let hash = f[0].strip_prefix("admin:").ok_or("admin:HASH")?;
            check_bcrypt(hash, "pw")?;
            if f[1] != "invalid username: a:b" {
                return Err("a username with a colon is refused".into());
            }
            Ok(())
        },
    ),
    (
        "genCA",
        "{{ $ca := genCA \"my-ca\" 365 }}{{ $ca.Cert }}{{ $ca.Key }}",
        check_ca,
    ),
    (
        "genSignedCert",
        "{{ $ca := genCA \"ca\" 30 }}{{ $c := genSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 $ca }}{{ $ca.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genSignedCert-ecdsa-ca",
        "{{ $ca := genCAWithKey \"ca\" 30 (genPrivateKey \"ecdsa\") }}{{ $c := genSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 $ca }}{{ $ca.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genSignedCert-ed25519-ca",
        "{{ $ca := genCAWithKey \"ca\" 30 (genPrivateKey \"ed25519\") }}{{ $c := genSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 $ca }}{{ $ca.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genSignedCertWithKey-ecdsa",
        "{{ $ca := genCA \"ca\" 30 }}{{ $c := genSignedCertWithKey \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 $ca (genPrivateKey \"ecdsa\") }}{{ $ca.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genSelfSignedCertWithKey-ed25519",
        "{{ $c := genSelfSignedCertWithKey \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 (genPrivateKey \"ed25519\") }}{{ $c.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genCAWithKey-p384",
        "{{ $ca := genCAWithKey \"ca\" 30 \"-----BEGIN EC PRIVATE KEY-----\\nMIGkAgEBBDC4l1/y1OPSBCVki0U/cc+ZjZh8x/wOXAqsmLBc+Odm0TaeY07i7Pkt\\nlqvql9r4W7KgBwYFK4EEACKhZANiAARcvxf37tFZk9Fxs+d/X/iEY0SWVs1/4MPc\\nQ5N5GGHvfkR/VEWkspHA5o/+Trad8eSmErPDQfsKGzndvUhCeMSipARowWATOWa9\\nZBpQKhjaYYUCrZWlFd+T9WB6rhynelk=\\n-----END EC PRIVATE KEY-----\\n\" }}{{ $c := genSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 $ca }}{{ $ca.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "genSelfSignedCert",
        "{{ $c := genSelfSignedCert \"svc\" (list \"10.0.0.1\") (list \"svc.ns.svc\") 30 }}{{ $c.Cert }}|{{ $c.Cert }}{{ $c.Key }}",
        check_signed,
    ),
    (
        "encryptAES",
        "{{ encryptAES \"secretkey\" \"plaintext\" | decryptAES \"secretkey\" }}|{{ encryptAES \"k\" \"x\" | len }}",
        |o| {
            // 16 bytes of IV and one block, in base64.
            if o == "plaintext|44" {
                Ok(())
            } else {
                Err("the plain text back, and 16 bytes of IV and one block".into())
            }
        },
    ),
    ("randAlpha", "{{ randAlpha 12 }}|{{ randAlpha 0 }}", |o| {
        let f = fields(o);
        if f[0].len() == 12 && all_in(f[0], ALPHA) && f[1].is_empty() {
            Ok(())
        } else {
            Err("12 letters, then nothing".into())
        }
    }),
    ("randAlphaNum", "{{ randAlphaNum 40 }}", |o| {
        if o.len() == 40 && all_in(o, &format!("{ALPHA}{DIGITS}")) {
            Ok(())
        } else {
            Err("40 letters or digits".into())
        }
    }),
    ("randNumeric", "{{ randNumeric 9 }}", |o| {
        if o.len() == 9 && all_in(o, DIGITS) {
            Ok(())
        } else {
            Err("9 digits".into())
        }
    }),
    ("randAscii", "{{ randAscii 30 | b64enc }}", |o| {
        let b = base64::engine::general_purpose::STANDARD
            .decode(o)
            .map_err(|e| e.to_string())?;
        if b.len() == 30 && b.iter().all(|c| (32..=126).contains(c)) {
            Ok(())
        } else {
            Err("30 printable ASCII characters".into())
        }
    }),
    (
        "randInt",
        "{{ range until 20 }}{{ randInt 5 8 }},{{ end }}",
        |o| {
            let ok = o
                .trim_end_matches(',')
                .split(',')
                .all(|n| matches!(n, "5" | "6" | "7"));
            if ok {
                Ok(())
            } else {
                Err("numbers in 5..8".into())
            }
        },
    ),
    ("randBytes", "{{ randBytes 24 }}", |o| {
        let b = base64::engine::general_purpose::STANDARD
            .decode(o)
            .map_err(|e| e.to_string())?;
        if b.len() == 24 {
            Ok(())
        } else {
            Err("base64 of 24 bytes".into())
        }
    }),
    ("shuffle", "{{ shuffle \"hello world 123\" }}", |o| {
        if sorted(o) == sorted("hello world 123") {
            Ok(())
        } else {
            Err("a permutation of the input".into())
        }
    }),
    ("uuidv4", "{{ uuidv4 }}|{{ uuidv4 }}", |o| {
        let f = fields(o);
        for u in &f {
            let parts: Vec<&str> = u.split('-').collect();
            let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
            let hex = u.chars().all(|c| c == '-' || c.is_ascii_hexdigit());
            if lens != [8, 4, 4, 4, 12]
                || !hex
                || !parts[2].starts_with('4')
                || !"89ab".contains(&parts[3][..1])
            {
                return Err(format!("{u} is no version 4 UUID"));
            }
        }
        if f[0] == f[1] {
            return Err("two calls give two UUIDs".into());
        }
        Ok(())
    }),
    ("now", "{{ now }}", |o| {
        let re = regex::Regex::new(
            r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,9})? [+-]\d{4} [A-Z+-][A-Za-z0-9+-]*( m=[+-]\d+\.\d+)?$",
        )
        .unwrap();
        if re.is_match(o) {
            Ok(())
        } else {
            Err("Go's time.Time text".into())
        }
    }),
    ("ago-now", "{{ ago now }}", |o| {
        if o == "0s" { Ok(()) } else { Err("0s".into()) }
    }),
    (
        "htmlDate-now",
        "{{ htmlDate now }}|{{ now | unixEpoch }}",
        |o| {
            let f = fields(o);
            let date_ok = f[0].len() == 10 && f[0].chars().filter(|c| *c == '-').count() == 2;
            if date_ok && !f[1].is_empty() && all_in(f[1], DIGITS) {
                Ok(())
            } else {
                Err("a YYYY-MM-DD date, then Unix seconds".into())
            }
        },
    ),
    (
        "keys",
        "{{ keys (dict \"b\" 1 \"a\" 2 \"c\" 3) | join \",\" }}",
        |o| {
            if sorted(&o.replace(',', "")) == "abc" && o.len() == 5 {
                Ok(())
            } else {
                Err("the three keys, in some order".into())
            }
        },
    ),
];

/// The instant the tests' fixed clock reads: 2023-11-14 22:13:20.000000005 UTC.
const FIXED: flate::helm::sprig::dates::Clock =
    flate::helm::sprig::dates::Clock::Fixed(1_700_000_000, 5);

fn render(template: &str) -> Result<String, String> {
    let mut t = Templates::new();
    t.name = "gotpl".into();
    flate::helm::funcs::add_funcs_with(
        &mut t,
        &flate::helm::sprig::Options {
            clock: FIXED,
            ..Default::default()
        },
    );
    t.parse("t", template)
        .and_then(|()| t.execute("t", &Value::map(BTreeMap::new())))
        .map_err(|e| e.to_string())
}

#[test]
fn random_functions_have_helms_properties_and_are_seeded() {
    let mut failures = Vec::new();
    for (name, template, check) in CASES {
        let out = render(template).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(want) = check(&out) {
            failures.push(format!("{name}: {out:?}: want {want}"));
        }
        let again = render(template).unwrap();
        if again != out {
            failures.push(format!("{name}: not deterministic: {out:?} then {again:?}"));
        }
    }
    // The fixed clock.
    assert_eq!(
        render(
            "{{ now | unixEpoch }}|{{ dateInZone \"2006-01-02 15:04:05.000000000\" now \"UTC\" }}"
        )
        .unwrap(),
        "1700000000|2023-11-14 22:13:20.000000005"
    );
    // flate's `keys` is sorted.
    assert_eq!(
        render("{{ keys (dict \"b\" 1 \"a\" 2) (dict \"c\" 3) }}").unwrap(),
        "[a b c]"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn helm_on_path() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("helm"))
            .find(|p| p.is_file())
    })
}

#[test]
fn random_functions_properties_hold_for_live_helm() {
    let Some(helm) = helm_on_path() else {
        println!("SKIPPED: helm is not on PATH");
        return;
    };
    let mut failures = Vec::new();
    for (name, template, check) in CASES {
        let tmp = tempfile::tempdir().unwrap();
        let chart = tmp.path().join("c");
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        )
        .unwrap();
        std::fs::write(chart.join("templates/_t.tpl"), template).unwrap();
        std::fs::write(
            chart.join("templates/t.yaml"),
            "out: {{ include \"c/templates/_t.tpl\" . | b64enc | quote }}\n",
        )
        .unwrap();
        let out = Command::new(&helm)
            .args(["template", "x"])
            .arg(&chart)
            .args(["--show-only", "templates/t.yaml"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let Some(line) = text.lines().find_map(|l| l.strip_prefix("out: \"")) else {
            failures.push(format!("{name}: helm printed {text:?}"));
            continue;
        };
        let b = base64::engine::general_purpose::STANDARD
            .decode(line.trim_end_matches('"'))
            .unwrap();
        let got = String::from_utf8_lossy(&b).into_owned();
        if let Err(want) = check(&got) {
            failures.push(format!("{name}: helm gave {got:?}: want {want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
