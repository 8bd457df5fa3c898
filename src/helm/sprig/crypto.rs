//! Sprig's key and certificate generators (`genPrivateKey`, `genCA`,
//! `genCAWithKey`, `genSelfSignedCert`, `genSelfSignedCertWithKey`,
//! `genSignedCert`, `genSignedCertWithKey`, `buildCustomCert`) and
//! `encryptAES`/`decryptAES`. A certificate is made for and signed with
//! RSA, ECDSA (the NIST curves) or Ed25519 keys, with the fields and extensions Go's
//! `x509.CreateCertificate` writes for Sprig's template (a certificate a
//! CA signs takes the CA's subject as issuer and its key identifier).
//!
//! Keys are RSA (2048 bits for certificates, 4096 for `genPrivateKey
//! "rsa"`, as Sprig makes them), written as PKCS#1 `RSA PRIVATE KEY` PEM;
//! certificates are X.509 v3 signed with SHA-256 and RSA, with the fields
//! Sprig sets (common name, IP and DNS subject alternative names, validity
//! from now for the given days, key usages, server and client auth, CA
//! flag). The randomness comes from the template set's seeded generator,
//! and an RSA key's two primes are drawn by it from a fixed table
//! ([`PrimeTable`]): the same template renders the same keys every time,
//! so these keys are for rendering and comparing only and must never
//! protect anything.

use std::collections::BTreeMap;

use base64::Engine as _;
use num_bigint::BigUint;
use sha2::Digest as _;

use super::dates::Clock;
use super::{Rng, want_int, want_str};
use crate::template::{Templates, Value};

fn big(n: u32) -> BigUint {
    BigUint::from(n)
}

fn random_bits(rng: &Rng, bits: usize) -> BigUint {
    let mut bytes = vec![0u8; bits.div_ceil(8)];
    for chunk in bytes.chunks_mut(8) {
        let r = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&r[..chunk.len()]);
    }
    let extra = bytes.len() * 8 - bits;
    bytes[0] &= 0xff >> extra;
    BigUint::from_bytes_be(&bytes)
}

/// The primes keys are made of: two drawn from a table by the seeded
/// generator, instead of searched for as Go does (random odd numbers,
/// trial division, Miller-Rabin: 75 ms for the one key of a
/// `genSelfSignedCert`, the whole render of such a chart). The keys stay
/// valid RSA keys of Sprig's sizes; like every key flate makes, anyone can
/// make them again, so they are for rendering only (module docs).
/// `tools/gen_key_tables.py` writes the tables: big-endian primes, top two
/// bits set, `p - 1` prime to 65537.
struct PrimeTable {
    bytes: &'static [u8],
    /// Bytes per prime.
    width: usize,
}

/// 128 primes of 1024 bits: 8,128 keys of 2048 bits (certificates).
const PRIMES_1024: PrimeTable = PrimeTable {
    bytes: include_bytes!("keytables/rsa-1024.bin"),
    width: 128,
};

/// 48 primes of 2048 bits: 1,128 keys of 4096 bits (`genPrivateKey "rsa"`).
const PRIMES_2048: PrimeTable = PrimeTable {
    bytes: include_bytes!("keytables/rsa-2048.bin"),
    width: 256,
};

impl PrimeTable {
    fn len(&self) -> usize {
        self.bytes.len() / self.width
    }

    fn get(&self, i: usize) -> BigUint {
        BigUint::from_bytes_be(&self.bytes[i * self.width..(i + 1) * self.width])
    }
}

/// An RSA key (the parts PKCS#1 stores).
#[derive(Clone)]
pub struct RsaKey {
    n: BigUint,
    e: BigUint,
    d: BigUint,
    p: BigUint,
    q: BigUint,
}

impl RsaKey {
    /// A key of 2048 bits (`bits` 2048) or 4096 bits (any other), from two
    /// different primes of the table of its size.
    pub fn generate(rng: &Rng, bits: usize) -> RsaKey {
        let table = if bits == 2048 {
            &PRIMES_1024
        } else {
            &PRIMES_2048
        };
        let n_primes = table.len() as u64;
        let i = rng.below(n_primes);
        let j = (i + 1 + rng.below(n_primes - 1)) % n_primes;
        let (p, q) = (table.get(i as usize), table.get(j as usize));
        let (p, q) = if p > q { (p, q) } else { (q, p) };
        let e = big(65_537);
        let phi = (&p - 1u32) * (&q - 1u32);
        // The table's primes make `e` invertible (`p - 1` prime to e).
        let d = e.modinv(&phi).unwrap_or_default();
        RsaKey {
            n: &p * &q,
            e,
            d,
            p,
            q,
        }
    }

    /// PKCS#1 `RSAPrivateKey`.
    fn pkcs1(&self) -> Vec<u8> {
        let one = big(1);
        let dp = &self.d % (&self.p - &one);
        let dq = &self.d % (&self.q - &one);
        let qinv = self.q.modinv(&self.p).unwrap_or_default();
        seq(&[
            int_small(0),
            int(&self.n),
            int(&self.e),
            int(&self.d),
            int(&self.p),
            int(&self.q),
            int(&dp),
            int(&dq),
            int(&qinv),
        ])
    }

    fn from_pkcs1(der: &[u8]) -> Option<RsaKey> {
        let (tag, body, _) = read_tlv(der)?;
        if tag != 0x30 {
            return None;
        }
        let mut parts = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            let (t, v, r) = read_tlv(rest)?;
            if t != 0x02 {
                return None;
            }
            parts.push(BigUint::from_bytes_be(v));
            rest = r;
        }
        if parts.len() < 6 {
            return None;
        }
        Some(RsaKey {
            n: parts[1].clone(),
            e: parts[2].clone(),
            d: parts[3].clone(),
            p: parts[4].clone(),
            q: parts[5].clone(),
        })
    }

    /// `m^d mod n`, by the Chinese remainder theorem as Go and every RSA
    /// implementation compute it: two exponentiations modulo the primes
    /// (half the size each, an eighth of the work each) instead of one
    /// modulo `n`. A key whose primes do not make its modulus (a
    /// hand-written one) gets the plain exponentiation.
    fn private_op(&self, m: &BigUint) -> BigUint {
        let one = big(1);
        let qinv = self.q.modinv(&self.p);
        let (Some(qinv), true) = (qinv, &self.p * &self.q == self.n && self.q > one) else {
            return m.modpow(&self.d, &self.n);
        };
        let dp = &self.d % (&self.p - &one);
        let dq = &self.d % (&self.q - &one);
        let m1 = (m % &self.p).modpow(&dp, &self.p);
        let m2 = (m % &self.q).modpow(&dq, &self.q);
        let h = (m1 + &self.p - (&m2 % &self.p)) * qinv % &self.p;
        m2 + h * &self.q
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    fn sign(&self, msg: &[u8]) -> Vec<u8> {
        let hash = sha2::Sha256::digest(msg);
        let prefix: [u8; 19] = [
            0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x01, 0x05, 0x00, 0x04, 0x20,
        ];
        let k = (self.n.bits() as usize).div_ceil(8);
        let t_len = prefix.len() + hash.len();
        let mut em = vec![0x00, 0x01];
        em.extend(std::iter::repeat_n(0xff, k - t_len - 3));
        em.push(0x00);
        em.extend_from_slice(&prefix);
        em.extend_from_slice(&hash);
        let s = self.private_op(&BigUint::from_bytes_be(&em));
        let mut out = s.to_bytes_be();
        while out.len() < k {
            out.insert(0, 0);
        }
        out
    }
}

// ECDSA keys (SEC1 `EC PRIVATE KEY`, as Go's `x509.MarshalECPrivateKey`
// writes them) on the NIST curves Go's x509 reads: `genPrivateKey
// "ecdsa"` makes P-256 keys; the `...WithKey` functions take any of them.

/// A NIST prime curve (y² = x³ - 3x + b), as `openssl ecparam -param_enc
/// explicit` prints it.
struct Curve {
    p: BigUint,
    n: BigUint,
    g: (BigUint, BigUint),
    /// Bytes of a coordinate (Go's `(BitSize + 7) / 8`).
    size: usize,
    /// The curve's object identifier.
    oid: &'static [u64],
    /// The size of the hash Go's x509 signs with on this curve
    /// (`ecdsa-with-SHA256/384/512`).
    hash_bits: usize,
}

fn hex_big(h: &str) -> BigUint {
    BigUint::parse_bytes(h.as_bytes(), 16).unwrap_or_default()
}

/// P-256, P-224, P-384 and P-521.
static CURVES: std::sync::LazyLock<[Curve; 4]> = std::sync::LazyLock::new(|| {
    let curve = |p, n, gx, gy, size, oid, hash_bits| Curve {
        p: hex_big(p),
        n: hex_big(n),
        g: (hex_big(gx), hex_big(gy)),
        size,
        oid,
        hash_bits,
    };
    [
        curve(
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
            "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
            "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
            "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
            32,
            &[1, 2, 840, 10_045, 3, 1, 7],
            256,
        ),
        curve(
            "ffffffffffffffffffffffffffffffff000000000000000000000001",
            "ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d",
            "b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21",
            "bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34",
            28,
            &[1, 3, 132, 0, 33],
            256,
        ),
        curve(
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
            "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
            "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
            48,
            &[1, 3, 132, 0, 34],
            384,
        ),
        curve(
            "1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
            "c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
            "11839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650",
            66,
            &[1, 3, 132, 0, 35],
            512,
        ),
    ]
});

/// The curve of `genPrivateKey "ecdsa"`.
fn p256() -> &'static Curve {
    &CURVES[0]
}

type Point = Option<(BigUint, BigUint)>;

impl Curve {
    fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        ((a + &self.p) - (b % &self.p)) % &self.p
    }

    fn add(&self, a: &Point, b: &Point) -> Point {
        let (Some((x1, y1)), Some((x2, y2))) = (a, b) else {
            return a.clone().or_else(|| b.clone());
        };
        let p = &self.p;
        let lambda = if x1 == x2 {
            if (y1 + y2) % p == BigUint::default() {
                return None;
            }
            // (3x^2 - 3) / 2y
            let num = self.sub(&(big(3) * x1 * x1), &big(3));
            num * (big(2) * y1).modinv(p)? % p
        } else {
            self.sub(y2, y1) * self.sub(x2, x1).modinv(p)? % p
        };
        let x3 = self.sub(&self.sub(&(&lambda * &lambda), x1), x2);
        let y3 = self.sub(&(&lambda * self.sub(x1, &x3)), y1);
        Some((x3, y3))
    }

    fn mul(&self, k: &BigUint, pt: &Point) -> Point {
        let mut acc: Point = None;
        for i in (0..k.bits()).rev() {
            acc = self.add(&acc, &acc);
            if k.bit(i) {
                acc = self.add(&acc, pt);
            }
        }
        acc
    }
}

/// `n` big-endian in `size` bytes.
fn fixed(n: &BigUint, size: usize) -> Vec<u8> {
    let b = n.to_bytes_be();
    let mut out = vec![0u8; size.saturating_sub(b.len())];
    out.extend_from_slice(&b);
    out
}

fn ecdsa_key_pem(rng: &Rng) -> String {
    let c = p256();
    let d = loop {
        let d = random_bits(rng, 256);
        if d > BigUint::default() && d < c.n {
            break d;
        }
    };
    let q = c.mul(&d, &Some(c.g.clone())).unwrap_or_default();
    pem("EC PRIVATE KEY", &ec_der(c, &d, &q))
}

/// DSA parameter sets of Sprig's size (L2048N256), made as Go's
/// `dsa.GenerateParameters` makes them (`tools/gen_key_tables.py`; Go takes
/// most of a second per set): P (256 bytes), Q (32), G (256), big-endian.
const DSA_PARAMETERS: &[u8] = include_bytes!("keytables/dsa-2048-256.bin");
const DSA_SET: usize = 256 + 32 + 256;

/// A DSA key as Sprig writes one (`DSA PRIVATE KEY`: the sequence of
/// version 0, P, Q, G, Y, X), its parameters drawn from
/// [`DSA_PARAMETERS`] and X from the generator as Go's `dsa.GenerateKey`
/// draws it (32 bytes, again until it is in 1..Q).
fn dsa_key_pem(rng: &Rng) -> String {
    let i = rng.below((DSA_PARAMETERS.len() / DSA_SET) as u64) as usize;
    let set = &DSA_PARAMETERS[i * DSA_SET..(i + 1) * DSA_SET];
    let p = BigUint::from_bytes_be(&set[..256]);
    let q = BigUint::from_bytes_be(&set[256..288]);
    let g = BigUint::from_bytes_be(&set[288..]);
    let x = loop {
        let x = random_bits(rng, 256);
        if x > BigUint::default() && x < q {
            break x;
        }
    };
    let y = g.modpow(&x, &p);
    let der = seq(&[int_small(0), int(&p), int(&q), int(&g), int(&y), int(&x)]);
    pem("DSA PRIVATE KEY", &der)
}

/// An Ed25519 key as Go's `x509.MarshalPKCS8PrivateKey` writes it (the
/// 32-byte seed).
fn ed25519_key_pem(rng: &Rng) -> String {
    let mut seed = [0u8; 32];
    for (chunk, r) in seed
        .chunks_mut(8)
        .zip(std::iter::repeat_with(|| rng.next_u64()))
    {
        chunk.copy_from_slice(&r.to_le_bytes());
    }
    pem("PRIVATE KEY", &ed25519_der(&seed))
}

// DER.

fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = body.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend_from_slice(&bytes);
    }
    out.extend_from_slice(body);
    out
}

fn read_tlv(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *der.first()?;
    let first = *der.get(1)? as usize;
    let (len, start) = if first < 0x80 {
        (first, 2)
    } else {
        let n = first & 0x7f;
        let mut len = 0usize;
        for i in 0..n {
            len = (len << 8) | *der.get(2 + i)? as usize;
        }
        (len, 2 + n)
    };
    let body = der.get(start..start + len)?;
    Some((tag, body, &der[start + len..]))
}

fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

fn int(n: &BigUint) -> Vec<u8> {
    let mut b = n.to_bytes_be();
    if b[0] & 0x80 != 0 {
        b.insert(0, 0);
    }
    tlv(0x02, &b)
}

fn int_small(n: u8) -> Vec<u8> {
    tlv(0x02, &[n])
}

fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut body = vec![(arcs[0] * 40 + arcs[1]) as u8];
    for &a in &arcs[2..] {
        let mut chunk = vec![(a & 0x7f) as u8];
        let mut v = a >> 7;
        while v > 0 {
            chunk.insert(0, 0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        body.extend(chunk);
    }
    tlv(0x06, &body)
}

fn bit_string(bytes: &[u8], unused: u8) -> Vec<u8> {
    let mut body = vec![unused];
    body.extend_from_slice(bytes);
    tlv(0x03, &body)
}

fn pem(label: &str, der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or(""));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

fn unpem(text: &str) -> Option<(String, Vec<u8>)> {
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + 11..];
    let (label, rest) = rest.split_once("-----")?;
    let end = rest.find("-----END ")?;
    let b64: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
    let der = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    Some((label.to_string(), der))
}

/// A private key a certificate is made for or signed with: what Sprig's
/// `parsePrivateKeyPEM` reads and `pemBlockForKey` writes.
#[derive(Clone)]
enum PrivKey {
    Rsa(RsaKey),
    /// The curve, the secret and the public point.
    Ec(&'static Curve, BigUint, (BigUint, BigUint)),
    /// The 32-byte seed and its public key.
    Ed25519([u8; 32], [u8; 32]),
    /// A DSA key's DER: read and written back, never in a certificate (Go's
    /// x509 signs with and certifies RSA, ECDSA and Ed25519 keys only).
    Dsa(Vec<u8>),
}

const OID_RSA: &[u64] = &[1, 2, 840, 113_549, 1, 1, 1];
const OID_EC: &[u64] = &[1, 2, 840, 10_045, 2, 1];
const OID_ED25519: &[u64] = &[1, 3, 101, 112];

/// An EC key as Go's `x509.MarshalECPrivateKey` writes it (SEC1: the
/// secret in as many bytes as the order takes).
fn ec_der(c: &Curve, d: &BigUint, q: &(BigUint, BigUint)) -> Vec<u8> {
    seq(&[
        int_small(1),
        tlv(0x04, &fixed(d, c.n.bits().div_ceil(8) as usize)),
        tlv(0xa0, &oid(c.oid)),
        tlv(0xa1, &bit_string(&ec_point(c, q), 0)),
    ])
}

/// A point, uncompressed (`04 || X || Y`).
fn ec_point(c: &Curve, q: &(BigUint, BigUint)) -> Vec<u8> {
    let mut point = vec![0x04];
    point.extend(fixed(&q.0, c.size));
    point.extend(fixed(&q.1, c.size));
    point
}

/// An Ed25519 key as Go's `x509.MarshalPKCS8PrivateKey` writes it.
fn ed25519_der(seed: &[u8; 32]) -> Vec<u8> {
    seq(&[
        int_small(0),
        seq(&[oid(OID_ED25519)]),
        tlv(0x04, &tlv(0x04, seed)),
    ])
}

/// The elements of a DER sequence, or None.
fn seq_items(der: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let (tag, body, _) = read_tlv(der)?;
    if tag != 0x30 {
        return None;
    }
    let mut items = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let (t, v, r) = read_tlv(rest)?;
        items.push((t, v));
        rest = r;
    }
    Some(items)
}

/// A SEC1 `ECPrivateKey` (`named`: the curve named by PKCS#8's parameters,
/// where the key names none itself).
fn ec_from_der(der: &[u8], named: Option<&[u8]>) -> Result<PrivKey, String> {
    let items = seq_items(der).ok_or("x509: failed to parse EC private key")?;
    let secret = items
        .iter()
        .find(|(t, _)| *t == 0x04)
        .ok_or("x509: failed to parse EC private key")?
        .1;
    let curve = items
        .iter()
        .find(|(t, _)| *t == 0xa0)
        .and_then(|(_, v)| read_tlv(v))
        .map(|(_, v, _)| v)
        .or(named);
    let Some(c) = CURVES
        .iter()
        .find(|c| curve.is_some_and(|id| id == &oid(c.oid)[2..]))
    else {
        return Err("x509: unknown elliptic curve".into());
    };
    let d = BigUint::from_bytes_be(secret);
    if d == BigUint::default() || d >= c.n {
        return Err("x509: invalid elliptic curve private key value".into());
    }
    let q = c.mul(&d, &Some(c.g.clone())).unwrap_or_default();
    Ok(PrivKey::Ec(c, d, q))
}

/// A PKCS#8 `PrivateKeyInfo` holding an RSA, P-256 or Ed25519 key.
fn pkcs8_from_der(der: &[u8]) -> Result<PrivKey, String> {
    let bad = || "x509: malformed PKCS#8 private key".to_string();
    let items = seq_items(der).ok_or_else(bad)?;
    let [(0x02, _), (0x30, alg), (0x04, key), ..] = items[..] else {
        return Err(bad());
    };
    let (_, alg_oid, params) = read_tlv(alg).ok_or_else(bad)?;
    let params = read_tlv(params).map(|(_, v, _)| v);
    if alg_oid == &oid(OID_RSA)[2..] {
        RsaKey::from_pkcs1(key)
            .map(PrivKey::Rsa)
            .ok_or_else(|| "x509: failed to parse RSA private key embedded in PKCS#8".into())
    } else if alg_oid == &oid(OID_EC)[2..] {
        ec_from_der(key, params)
    } else if alg_oid == &oid(OID_ED25519)[2..] {
        match read_tlv(key) {
            Some((0x04, seed, _)) if seed.len() == 32 => {
                let seed: [u8; 32] = seed.try_into().unwrap_or([0; 32]);
                Ok(PrivKey::Ed25519(seed, super::ed25519::public_key(&seed)))
            }
            _ => Err("x509: invalid Ed25519 private key".into()),
        }
    } else {
        Err("x509: PKCS#8 wrapping contained private key with unknown algorithm".into())
    }
}

/// Sprig's `parsePrivateKeyPEM`, with its messages (the ASN.1 details of
/// a malformed key are flate's words).
fn parse_key_pem(text: &str) -> Result<PrivKey, String> {
    let (label, der) = unpem(text).ok_or("no PEM data in input")?;
    if label == "PRIVATE KEY" {
        return pkcs8_from_der(&der).map_err(|e| format!("decoding PEM as PKCS#8: {e}"));
    }
    let Some(kind) = label.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {label}"));
    };
    match kind {
        "RSA" => RsaKey::from_pkcs1(&der)
            .map(PrivKey::Rsa)
            .ok_or_else(|| "parsing RSA private key from PEM: x509: malformed private key".into()),
        "EC" => {
            ec_from_der(&der, None).map_err(|e| format!("parsing EC private key from PEM: {e}"))
        }
        "DSA" => match seq_items(&der) {
            Some(items) if items.len() == 6 && items.iter().all(|(t, _)| *t == 0x02) => {
                Ok(PrivKey::Dsa(der))
            }
            _ => Err("parsing DSA private key from PEM: asn1: structure error".into()),
        },
        _ => Err(format!("invalid private key type {label}")),
    }
}

impl PrivKey {
    /// Sprig's `pemBlockForKey`.
    fn pem(&self) -> String {
        match self {
            PrivKey::Rsa(k) => pem("RSA PRIVATE KEY", &k.pkcs1()),
            PrivKey::Ec(c, d, q) => pem("EC PRIVATE KEY", &ec_der(c, d, q)),
            PrivKey::Ed25519(seed, _) => pem("PRIVATE KEY", &ed25519_der(seed)),
            PrivKey::Dsa(der) => pem("DSA PRIVATE KEY", der),
        }
    }

    /// The public key as a certificate holds it (`SubjectPublicKeyInfo`),
    /// and the bytes of its bit string (what the key identifier hashes).
    fn public_key_info(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (alg, bits) = match self {
            PrivKey::Rsa(k) => (
                seq(&[oid(OID_RSA), vec![0x05, 0x00]]),
                seq(&[int(&k.n), int(&k.e)]),
            ),
            PrivKey::Ec(c, _, q) => (seq(&[oid(OID_EC), oid(c.oid)]), ec_point(c, q)),
            PrivKey::Ed25519(_, public) => (seq(&[oid(OID_ED25519)]), public.to_vec()),
            PrivKey::Dsa(_) => {
                return Err("x509: unsupported public key type: *dsa.PublicKey".into());
            }
        };
        Ok((seq(&[alg, bit_string(&bits, 0)]), bits))
    }

    /// The signature algorithm Go's x509 picks for this signer.
    fn signature_algorithm(&self) -> Result<Vec<u8>, String> {
        match self {
            PrivKey::Rsa(_) => Ok(seq(&[
                oid(&[1, 2, 840, 113_549, 1, 1, 11]),
                vec![0x05, 0x00],
            ])),
            PrivKey::Ec(c, ..) => {
                let sha = match c.hash_bits {
                    384 => 3,
                    512 => 4,
                    _ => 2,
                };
                Ok(seq(&[oid(&[1, 2, 840, 10_045, 4, 3, sha])]))
            }
            PrivKey::Ed25519(..) => Ok(seq(&[oid(OID_ED25519)])),
            PrivKey::Dsa(_) => {
                Err("x509: certificate private key does not implement crypto.Signer".into())
            }
        }
    }

    /// Signs `msg` as the algorithm of [`PrivKey::signature_algorithm`]
    /// says: RSA PKCS#1 v1.5 or ECDSA with SHA-256 (ECDSA's nonce from the
    /// seeded generator), or pure Ed25519.
    fn sign(&self, rng: &Rng, msg: &[u8]) -> Vec<u8> {
        match self {
            PrivKey::Rsa(k) => k.sign(msg),
            PrivKey::Ec(c, d, _) => {
                let digest = match c.hash_bits {
                    384 => sha2::Sha384::digest(msg).to_vec(),
                    512 => sha2::Sha512::digest(msg).to_vec(),
                    _ => sha2::Sha256::digest(msg).to_vec(),
                };
                // Go's hashToInt: the leftmost bits of the hash, as many as
                // the order has.
                let n_bits = c.n.bits() as usize;
                let mut e = BigUint::from_bytes_be(&digest);
                if digest.len() * 8 > n_bits {
                    e >>= digest.len() * 8 - n_bits;
                }
                loop {
                    let k = random_bits(rng, n_bits);
                    if k == BigUint::default() || k >= c.n {
                        continue;
                    }
                    let Some((x, _)) = c.mul(&k, &Some(c.g.clone())) else {
                        continue;
                    };
                    let r = x % &c.n;
                    let Some(kinv) = k.modinv(&c.n) else { continue };
                    let s = kinv * (&e + &r * d) % &c.n;
                    if r != BigUint::default() && s != BigUint::default() {
                        break seq(&[int(&r), int(&s)]);
                    }
                }
            }
            PrivKey::Ed25519(seed, public) => super::ed25519::sign(seed, public, msg).to_vec(),
            // Not reached: `signature_algorithm` refuses a DSA signer first.
            PrivKey::Dsa(_) => Vec::new(),
        }
    }
}

fn time_der(secs: i64) -> Vec<u8> {
    let t = super::dates::Time::in_zone(
        jiff::Timestamp::new(secs, 0).unwrap_or(jiff::Timestamp::UNIX_EPOCH),
        &jiff::tz::TimeZone::UTC,
    );
    let year: i64 = super::dates::format("2006", &t).parse().unwrap_or(0);
    if (1950..2050).contains(&year) {
        tlv(0x17, super::dates::format("060102150405Z", &t).as_bytes())
    } else {
        tlv(0x18, super::dates::format("20060102150405Z", &t).as_bytes())
    }
}

fn name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return seq(&[]);
    }
    let printable = cn
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " '()+,-./:=?".contains(c));
    let value = tlv(if printable { 0x13 } else { 0x0c }, cn.as_bytes());
    seq(&[tlv(0x31, &seq(&[oid(&[2, 5, 4, 3]), value]))])
}

fn extension(id: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
    let mut parts = vec![oid(id)];
    if critical {
        parts.push(tlv(0x01, &[0xff]));
    }
    parts.push(tlv(0x04, value));
    seq(&parts)
}

fn parse_ip(s: &str) -> Option<Vec<u8>> {
    match s.parse::<std::net::IpAddr>().ok()? {
        std::net::IpAddr::V4(v4) => Some(v4.octets().to_vec()),
        std::net::IpAddr::V6(v6) => Some(v6.octets().to_vec()),
    }
}

/// A certificate request: what Sprig's `getBaseCertTemplate` fills in.
struct Template {
    cn: String,
    ips: Vec<Vec<u8>>,
    dns: Vec<String>,
    not_before: i64,
    not_after: i64,
    is_ca: bool,
}

/// Go's subject key identifier: SHA-1 of the public key's bit string.
fn key_id(public_bits: &[u8]) -> Vec<u8> {
    let mut h = gix::hash::hasher(gix::hash::Kind::Sha1);
    h.update(public_bits);
    h.try_finalize()
        .map(|id| id.as_bytes().to_vec())
        .unwrap_or_default()
}

/// Builds and signs a certificate: self-signed by `key` when `issuer` is
/// None, else signed by `issuer_key` as the CA `issuer`. Fails as Go's
/// `x509.CreateCertificate` fails for a DSA key.
fn certificate(
    rng: &Rng,
    t: &Template,
    key: &PrivKey,
    issuer: Option<&Issuer>,
    issuer_key: &PrivKey,
) -> Result<Vec<u8>, String> {
    let fail = |e: String| format!("error creating certificate: {e}");
    let alg = issuer_key.signature_algorithm().map_err(fail)?;
    let (spki, public_bits) = key.public_key_info().map_err(fail)?;
    let serial = random_bits(rng, 127) + 1u32;
    let mut exts = Vec::new();
    // Key usage: digitalSignature, keyEncipherment (+ keyCertSign for a CA).
    let ku = if t.is_ca {
        bit_string(&[0xa4], 2)
    } else {
        bit_string(&[0xa0], 5)
    };
    exts.push(extension(&[2, 5, 29, 15], true, &ku));
    let eku = seq(&[
        oid(&[1, 3, 6, 1, 5, 5, 7, 3, 1]),
        oid(&[1, 3, 6, 1, 5, 5, 7, 3, 2]),
    ]);
    exts.push(extension(&[2, 5, 29, 37], false, &eku));
    let bc = if t.is_ca {
        seq(&[tlv(0x01, &[0xff])])
    } else {
        seq(&[])
    };
    exts.push(extension(&[2, 5, 29, 19], true, &bc));
    if t.is_ca {
        exts.push(extension(
            &[2, 5, 29, 14],
            false,
            &tlv(0x04, &key_id(&public_bits)),
        ));
    }
    let subject = name(&t.cn);
    let issuer_name = issuer.map_or(&subject, |i| &i.name);
    // Go: the CA's key identifier, unless the issuer is the subject.
    if let Some(Issuer {
        key_id: Some(id), ..
    }) = issuer
        && !id.is_empty()
        && *issuer_name != subject
    {
        exts.push(extension(&[2, 5, 29, 35], false, &seq(&[tlv(0x80, id)])));
    }
    if !t.dns.is_empty() || !t.ips.is_empty() {
        let mut names = Vec::new();
        for d in &t.dns {
            names.push(tlv(0x82, d.as_bytes()));
        }
        for ip in &t.ips {
            names.push(tlv(0x87, ip));
        }
        exts.push(extension(&[2, 5, 29, 17], false, &seq(&names)));
    }
    let tbs = seq(&[
        tlv(0xa0, &int_small(2)),
        int(&serial),
        alg.clone(),
        issuer_name.clone(),
        seq(&[time_der(t.not_before), time_der(t.not_after)]),
        subject.clone(),
        spki,
        tlv(0xa3, &seq(&exts)),
    ]);
    let sig = issuer_key.sign(rng, &tbs);
    Ok(seq(&[tbs, alg, bit_string(&sig, 0)]))
}

/// What a certificate signed by a CA takes from the CA's certificate:
/// its subject (the new certificate's issuer, as DER) and its subject key
/// identifier (the new one's authority key identifier, as Go's x509 sets
/// it).
struct Issuer {
    name: Vec<u8>,
    key_id: Option<Vec<u8>>,
}

/// The subject and subject key identifier of an X.509 certificate, or
/// None when it is malformed.
fn issuer_of(der: &[u8]) -> Option<Issuer> {
    let (_, cert, _) = read_tlv(der)?;
    let (_, tbs, _) = read_tlv(cert)?;
    // [0] version, serial, alg, issuer, validity, subject, key, [1] [2] [3]
    let mut rest = tbs;
    let mut fields = Vec::new();
    while !rest.is_empty() {
        let (t, v, r) = read_tlv(rest)?;
        fields.push((t, v, &rest[..rest.len() - r.len()]));
        rest = r;
    }
    let skip = usize::from(fields.first()?.0 == 0xa0);
    let name = fields.get(4 + skip)?.2.to_vec();
    let key_id = fields
        .iter()
        .find(|(t, _, _)| *t == 0xa3)
        .and_then(|(_, exts, _)| seq_items(exts))
        .and_then(|exts| {
            exts.iter().find_map(|(_, ext)| {
                let (_, id, rest) = read_tlv(ext)?;
                if id != [0x55, 0x1d, 0x0e] {
                    return None;
                }
                let (_, value, _) = read_tlv(rest)?;
                let (_, key_id, _) = read_tlv(value)?;
                Some(key_id.to_vec())
            })
        });
    Some(Issuer { name, key_id })
}

/// Sprig's `certificate` value: the certificate made for `key` (or the
/// error of making it), and the key.
fn cert_value(cert_der: Result<Vec<u8>, String>, key: &PrivKey) -> Result<Value, String> {
    Ok(Value::map(BTreeMap::from([
        (
            "Cert".to_string(),
            Value::Str(pem("CERTIFICATE", &cert_der?)),
        ),
        ("Key".to_string(), Value::Str(key.pem())),
    ])))
}

fn string_list(v: &Value, what: &str) -> Result<Vec<String>, String> {
    match v {
        Value::Nil => Ok(Vec::new()),
        Value::List(l) => l
            .iter()
            .map(|e| match e {
                Value::Str(s) => Ok(s.clone()),
                other => Err(format!(
                    "{what}: {} is not a string",
                    crate::template::value::sprint_value(other)
                )),
            })
            .collect(),
        other => Err(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            other.type_name()
        )),
    }
}

fn template_from(
    clock: Clock,
    cn: &Value,
    ips: &Value,
    dns: &Value,
    days: &Value,
    is_ca: bool,
) -> Result<Template, String> {
    let ips = string_list(ips, "error parsing ip")?
        .iter()
        .map(|s| parse_ip(s).ok_or_else(|| format!("error parsing ip: {s}")))
        .collect::<Result<Vec<_>, _>>()?;
    let dns = string_list(dns, "error processing alternate dns name")?;
    let now = clock.now_seconds();
    let days = want_int(days, "days")?;
    Ok(Template {
        cn: want_str(cn, "cn")?.to_string(),
        ips,
        dns,
        not_before: now,
        not_after: now + days * 86_400,
        is_ca,
    })
}

fn signer(ca: &Value) -> Result<(Issuer, PrivKey), String> {
    let m = super::want_map(ca, "ca")?;
    let cert = m.get("Cert");
    let cert = cert.as_ref().and_then(Value::as_str).unwrap_or("");
    let key = m.get("Key");
    let key = key.as_ref().and_then(Value::as_str).unwrap_or("");
    let (_, der) = unpem(cert).ok_or("unable to decode certificate")?;
    let issuer = issuer_of(&der).ok_or("error parsing certificate: malformed certificate")?;
    let key = parse_key_pem(key).map_err(|e| format!("error parsing private key: {e}"))?;
    Ok((issuer, key))
}

// AES-256 (FIPS 197), CBC mode with PKCS#7 padding, as Sprig's
// encryptAES/decryptAES use it.

const SBOX: [u8; 256] = {
    let mut s = [0u8; 256];
    let mut p: u8 = 1;
    let mut q: u8 = 1;
    loop {
        // p * 3 in GF(2^8)
        p = p ^ (p << 1) ^ if p & 0x80 != 0 { 0x1b } else { 0 };
        // q / 3
        q ^= q << 1;
        q ^= q << 2;
        q ^= q << 4;
        if q & 0x80 != 0 {
            q ^= 0x09;
        }
        let x = q ^ q.rotate_left(1) ^ q.rotate_left(2) ^ q.rotate_left(3) ^ q.rotate_left(4);
        s[p as usize] = x ^ 0x63;
        if p == 1 {
            break;
        }
    }
    s[0] = 0x63;
    s
};

const INV_SBOX: [u8; 256] = {
    let mut inv = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        inv[SBOX[i] as usize] = i as u8;
        i += 1;
    }
    inv
};

fn xtime(b: u8) -> u8 {
    (b << 1) ^ if b & 0x80 != 0 { 0x1b } else { 0 }
}

fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

fn expand_key(key: &[u8; 32]) -> [[u8; 16]; 15] {
    let mut w = [[0u8; 4]; 60];
    for i in 0..8 {
        w[i].copy_from_slice(&key[4 * i..4 * i + 4]);
    }
    let mut rcon = 1u8;
    for i in 8..60 {
        let mut t = w[i - 1];
        if i % 8 == 0 {
            t = [
                SBOX[t[1] as usize],
                SBOX[t[2] as usize],
                SBOX[t[3] as usize],
                SBOX[t[0] as usize],
            ];
            t[0] ^= rcon;
            rcon = xtime(rcon);
        } else if i % 8 == 4 {
            t = t.map(|b| SBOX[b as usize]);
        }
        for j in 0..4 {
            w[i][j] = w[i - 8][j] ^ t[j];
        }
    }
    let mut rk = [[0u8; 16]; 15];
    for r in 0..15 {
        for c in 0..4 {
            rk[r][4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
        }
    }
    rk
}

fn encrypt_block(rk: &[[u8; 16]; 15], b: &mut [u8; 16]) {
    for i in 0..16 {
        b[i] ^= rk[0][i];
    }
    for (round, key) in rk.iter().enumerate().skip(1) {
        for x in b.iter_mut() {
            *x = SBOX[*x as usize];
        }
        // ShiftRows (column-major state).
        let s = *b;
        for c in 0..4 {
            for r in 0..4 {
                b[4 * c + r] = s[4 * ((c + r) % 4) + r];
            }
        }
        if round != 14 {
            for c in 0..4 {
                let col = [b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]];
                for r in 0..4 {
                    b[4 * c + r] = gmul(col[r], 2)
                        ^ gmul(col[(r + 1) % 4], 3)
                        ^ col[(r + 2) % 4]
                        ^ col[(r + 3) % 4];
                }
            }
        }
        for i in 0..16 {
            b[i] ^= key[i];
        }
    }
}

fn decrypt_block(rk: &[[u8; 16]; 15], b: &mut [u8; 16]) {
    for i in 0..16 {
        b[i] ^= rk[14][i];
    }
    for round in (0..14).rev() {
        let s = *b;
        for c in 0..4 {
            for r in 0..4 {
                b[4 * ((c + r) % 4) + r] = s[4 * c + r];
            }
        }
        for x in b.iter_mut() {
            *x = INV_SBOX[*x as usize];
        }
        for i in 0..16 {
            b[i] ^= rk[round][i];
        }
        if round != 0 {
            for c in 0..4 {
                let col = [b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]];
                for r in 0..4 {
                    b[4 * c + r] = gmul(col[r], 14)
                        ^ gmul(col[(r + 1) % 4], 11)
                        ^ gmul(col[(r + 2) % 4], 13)
                        ^ gmul(col[(r + 3) % 4], 9);
                }
            }
        }
    }
}

fn aes_key(password: &str) -> Result<[u8; 32], String> {
    // Sprig copies the password into a 32-byte key (longer ones are cut).
    let mut key = [0u8; 32];
    let p = password.as_bytes();
    let n = p.len().min(32);
    key[..n].copy_from_slice(&p[..n]);
    Ok(key)
}

fn encrypt_aes(rng: &Rng, password: &str, plain: &str) -> Result<String, String> {
    if plain.is_empty() {
        return Ok(String::new());
    }
    let rk = expand_key(&aes_key(password)?);
    let mut content = plain.as_bytes().to_vec();
    let pad = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(pad as u8, pad));
    let mut iv = [0u8; 16];
    iv[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    iv[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
    let mut out = iv.to_vec();
    let mut prev = iv;
    for chunk in content.chunks(16) {
        let mut b = [0u8; 16];
        for i in 0..16 {
            b[i] = chunk[i] ^ prev[i];
        }
        encrypt_block(&rk, &mut b);
        out.extend_from_slice(&b);
        prev = b;
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

fn decrypt_aes(password: &str, text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Ok(String::new());
    }
    let rk = expand_key(&aes_key(password)?);
    let data = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| "illegal base64 data".to_string())?;
    if data.len() < 16 {
        return Err("ciphertext too short".into());
    }
    let (iv, body) = data.split_at(16);
    if body.len() % 16 != 0 {
        return Err("ciphertext is not a multiple of the block size".into());
    }
    let mut prev: [u8; 16] = iv.try_into().unwrap_or([0; 16]);
    let mut out = Vec::new();
    for chunk in body.chunks(16) {
        let c: [u8; 16] = chunk.try_into().unwrap_or([0; 16]);
        let mut b = c;
        decrypt_block(&rk, &mut b);
        for i in 0..16 {
            out.push(b[i] ^ prev[i]);
        }
        prev = c;
    }
    // Sprig strips as many bytes as the last byte says.
    let pad = *out.last().unwrap_or(&0) as usize;
    if pad > out.len() {
        return Err("invalid padding".into());
    }
    out.truncate(out.len() - pad);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

// Sprig's derivePassword: the Master Password algorithm (scrypt, then
// HMAC-SHA256 choosing a template and its characters).

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&sha2::Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = sha2::Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = sha2::Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn pbkdf2_sha256(password: &[u8], salt: &[u8], len: usize) -> Vec<u8> {
    // One iteration, as scrypt uses it.
    let mut out = Vec::new();
    let mut block = 1u32;
    while out.len() < len {
        let mut msg = salt.to_vec();
        msg.extend_from_slice(&block.to_be_bytes());
        out.extend_from_slice(&hmac_sha256(password, &msg));
        block += 1;
    }
    out.truncate(len);
    out
}

fn salsa20_8(b: &mut [u32; 16]) {
    let mut x = *b;
    for _ in 0..4 {
        macro_rules! qr {
            ($a:expr, $b:expr, $c:expr, $d:expr) => {
                x[$b] ^= x[$a].wrapping_add(x[$d]).rotate_left(7);
                x[$c] ^= x[$b].wrapping_add(x[$a]).rotate_left(9);
                x[$d] ^= x[$c].wrapping_add(x[$b]).rotate_left(13);
                x[$a] ^= x[$d].wrapping_add(x[$c]).rotate_left(18);
            };
        }
        qr!(0, 4, 8, 12);
        qr!(5, 9, 13, 1);
        qr!(10, 14, 2, 6);
        qr!(15, 3, 7, 11);
        qr!(0, 1, 2, 3);
        qr!(5, 6, 7, 4);
        qr!(10, 11, 8, 9);
        qr!(15, 12, 13, 14);
    }
    for i in 0..16 {
        b[i] = b[i].wrapping_add(x[i]);
    }
}

fn block_mix(b: &[u32], out: &mut [u32], r: usize) {
    let mut x: [u32; 16] = b[(2 * r - 1) * 16..].try_into().unwrap_or([0; 16]);
    for i in 0..2 * r {
        for j in 0..16 {
            x[j] ^= b[i * 16 + j];
        }
        salsa20_8(&mut x);
        let dst = if i % 2 == 0 { i / 2 } else { r + i / 2 };
        out[dst * 16..dst * 16 + 16].copy_from_slice(&x);
    }
}

fn ro_mix(block: &mut [u32], n: usize, r: usize) {
    let len = 32 * r;
    let mut v = vec![0u32; n * len];
    let mut x = block.to_vec();
    let mut y = vec![0u32; len];
    for i in 0..n {
        v[i * len..(i + 1) * len].copy_from_slice(&x);
        block_mix(&x, &mut y, r);
        std::mem::swap(&mut x, &mut y);
    }
    for _ in 0..n {
        let j = (x[(2 * r - 1) * 16] as usize) & (n - 1);
        for k in 0..len {
            x[k] ^= v[j * len + k];
        }
        block_mix(&x, &mut y, r);
        std::mem::swap(&mut x, &mut y);
    }
    block.copy_from_slice(&x);
}

/// scrypt (RFC 7914).
fn scrypt(password: &[u8], salt: &[u8], n: usize, r: usize, p: usize, len: usize) -> Vec<u8> {
    let mut b = pbkdf2_sha256(password, salt, p * 128 * r);
    for chunk in b.chunks_mut(128 * r) {
        let mut words: Vec<u32> = chunk
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        ro_mix(&mut words, n, r);
        for (i, w) in words.iter().enumerate() {
            chunk[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    pbkdf2_sha256(password, &b, len)
}

fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static str {
    match c {
        b'V' => "AEIOU",
        b'C' => "BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => "aeiou",
        b'c' => "bcdfghjklmnpqrstvwxyz",
        b'A' => "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => "0123456789",
        b'o' => "@&%?,=[]_:-+*$#!'^~;()/.",
        _ => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// Sprig's `derivePassword`.
pub fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = password_templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    const SEED: &[u8] = b"com.lyndir.masterpassword";
    let mut salt = SEED.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let key = scrypt(password.as_bytes(), &salt, 32_768, 8, 2, 64);
    let mut msg = SEED.to_vec();
    msg.extend_from_slice(&(site.len() as u32).to_be_bytes());
    msg.extend_from_slice(site.as_bytes());
    msg.extend_from_slice(&counter.to_be_bytes());
    let seed = hmac_sha256(&key, &msg);
    let template = templates[seed[0] as usize % templates.len()];
    template
        .bytes()
        .enumerate()
        .map(|(i, c)| {
            let chars = template_chars(c).as_bytes();
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

// bcrypt (Provos and Mazières), as golang.org/x/crypto/bcrypt writes it:
// `$2a$10$` + 22 characters of salt + 31 of hash.

/// Blowfish's initial P-array and S-boxes: the fractional hexadecimal
/// digits of pi, computed once (Machin's formula in fixed point).
static BLOWFISH_INIT: std::sync::LazyLock<Vec<u32>> = std::sync::LazyLock::new(|| {
    let words = 18 + 4 * 256;
    let bits = words * 32 + 64;
    let one = big(1) << bits;
    // atan(1/x) * 2^bits
    let atan = |x: u32| {
        let x2 = big(x * x);
        let mut term = &one / big(x);
        let mut pos = BigUint::default();
        let mut neg = BigUint::default();
        let mut k = 0u32;
        while term != BigUint::default() {
            let t = &term / big(2 * k + 1);
            if k.is_multiple_of(2) {
                pos += t;
            } else {
                neg += t;
            }
            term /= &x2;
            k += 1;
        }
        pos - neg
    };
    let pi = atan(5) * big(16) - atan(239) * big(4);
    let frac = pi - (big(3) << bits);
    let mask = BigUint::from(u32::MAX);
    (0..words)
        .map(|i| {
            let w: BigUint = (&frac >> (bits - 32 * (i + 1))) & &mask;
            w.to_u32_digits().first().copied().unwrap_or(0)
        })
        .collect()
});

struct Blowfish {
    p: [u32; 18],
    s: [[u32; 256]; 4],
}

impl Blowfish {
    fn new() -> Blowfish {
        let init = &*BLOWFISH_INIT;
        let mut b = Blowfish {
            p: [0; 18],
            s: [[0; 256]; 4],
        };
        b.p.copy_from_slice(&init[..18]);
        for i in 0..4 {
            b.s[i].copy_from_slice(&init[18 + 256 * i..18 + 256 * (i + 1)]);
        }
        b
    }

    fn f(&self, x: u32) -> u32 {
        let s = &self.s;
        (s[0][(x >> 24) as usize].wrapping_add(s[1][(x >> 16 & 0xff) as usize])
            ^ s[2][(x >> 8 & 0xff) as usize])
            .wrapping_add(s[3][(x & 0xff) as usize])
    }

    fn encrypt(&self, mut l: u32, mut r: u32) -> (u32, u32) {
        l ^= self.p[0];
        for i in (1..=16).step_by(2) {
            r ^= self.f(l) ^ self.p[i];
            l ^= self.f(r) ^ self.p[i + 1];
        }
        r ^= self.p[17];
        (r, l)
    }

    fn next_word(data: &[u8], pos: &mut usize) -> u32 {
        let mut w = 0u32;
        for _ in 0..4 {
            w = (w << 8) | u32::from(data[*pos]);
            *pos = (*pos + 1) % data.len();
        }
        w
    }

    /// Blowfish's key schedule, with a salt mixed in (`salt` empty: none).
    fn expand(&mut self, key: &[u8], salt: &[u8]) {
        let mut j = 0;
        for i in 0..18 {
            self.p[i] ^= Self::next_word(key, &mut j);
        }
        let (mut l, mut r) = (0u32, 0u32);
        let mut sj = 0;
        let mut next = |l: &mut u32, r: &mut u32, bf: &Blowfish| {
            if !salt.is_empty() {
                *l ^= Self::next_word(salt, &mut sj);
                *r ^= Self::next_word(salt, &mut sj);
            }
            let (a, b) = bf.encrypt(*l, *r);
            *l = a;
            *r = b;
        };
        for i in (0..18).step_by(2) {
            next(&mut l, &mut r, self);
            self.p[i] = l;
            self.p[i + 1] = r;
        }
        for b in 0..4 {
            for i in (0..256).step_by(2) {
                next(&mut l, &mut r, self);
                self.s[b][i] = l;
                self.s[b][i + 1] = r;
            }
        }
    }
}

const BCRYPT_B64: &[u8; 64] = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

fn bcrypt_b64(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let mut n = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            n |= u32::from(*b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            out.push(BCRYPT_B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn bcrypt_unb64(text: &str) -> Option<Vec<u8>> {
    let vals: Vec<u32> = text
        .bytes()
        .map(|c| BCRYPT_B64.iter().position(|&x| x == c).map(|p| p as u32))
        .collect::<Option<_>>()?;
    let mut out = Vec::new();
    for chunk in vals.chunks(4) {
        let mut n = 0u32;
        for (i, v) in chunk.iter().enumerate() {
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

/// bcrypt of `password` with a 16-byte `salt` at `cost`, in the modular
/// crypt format (`$2a$COST$SALTHASH`).
pub fn bcrypt_with_salt(password: &[u8], cost: u32, salt: &[u8; 16]) -> Result<String, String> {
    if password.len() > 72 {
        return Err("bcrypt: password length exceeds 72 bytes".into());
    }
    let mut key = password.to_vec();
    key.push(0);
    let mut bf = Blowfish::new();
    bf.expand(&key, salt);
    for _ in 0..1u64 << cost {
        bf.expand(&key, &[]);
        bf.expand(salt, &[]);
    }
    let mut data = *b"OrpheanBeholderScryDoubt";
    for block in data.chunks_mut(8) {
        let mut l = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
        let mut r = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
        for _ in 0..64 {
            (l, r) = bf.encrypt(l, r);
        }
        block[..4].copy_from_slice(&l.to_be_bytes());
        block[4..].copy_from_slice(&r.to_be_bytes());
    }
    Ok(format!(
        "$2a${cost:02}${}{}",
        bcrypt_b64(salt),
        bcrypt_b64(&data[..23])
    ))
}

/// Whether `hash` (modular crypt format) is bcrypt's hash of `password`.
pub fn bcrypt_verify(password: &[u8], hash: &str) -> bool {
    let parts: Vec<&str> = hash.split('$').collect();
    let [_, _, cost, rest] = parts.as_slice() else {
        return false;
    };
    let (Ok(cost), Some(salt)) = (cost.parse::<u32>(), rest.get(..22).and_then(bcrypt_unb64))
    else {
        return false;
    };
    let Ok(salt) = <[u8; 16]>::try_from(salt.as_slice()) else {
        return false;
    };
    bcrypt_with_salt(password, cost, &salt).is_ok_and(|h| h[7..] == hash[7..])
}

fn bcrypt_random(rng: &Rng, password: &str) -> String {
    let mut salt = [0u8; 16];
    salt[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    salt[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
    bcrypt_with_salt(password.as_bytes(), 10, &salt)
        .unwrap_or_else(|e| format!("failed to encrypt string with bcrypt: {e}"))
}

pub(super) fn add(t: &mut Templates, clock: Clock) {
    t.add_func("bcrypt", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        Ok(Value::Str(bcrypt_random(&r, want_str(&a[0], "bcrypt")?)))
    });
    t.add_func("htpasswd", 2, Some(2), move |ex, a| {
        let r = Rng::of(ex);
        let user = want_str(&a[0], "htpasswd")?;
        let password = want_str(&a[1], "htpasswd")?;
        if user.contains(':') {
            return Ok(Value::Str(format!("invalid username: {user}")));
        }
        Ok(Value::Str(format!(
            "{user}:{}",
            bcrypt_random(&r, password)
        )))
    });
    t.add_func("derivePassword", 5, Some(5), |_, a| {
        let counter = want_int(&a[0], "derivePassword")?;
        let kind = want_str(&a[1], "derivePassword")?;
        let password = want_str(&a[2], "derivePassword")?;
        let user = want_str(&a[3], "derivePassword")?;
        let site = want_str(&a[4], "derivePassword")?;
        Ok(Value::Str(derive_password(
            counter as u32,
            kind,
            password,
            user,
            site,
        )))
    });
    t.add_func("genPrivateKey", 1, Some(1), move |ex, a| {
        let r = Rng::of(ex);
        match want_str(&a[0], "genPrivateKey")? {
            "" | "rsa" => Ok(Value::Str(pem(
                "RSA PRIVATE KEY",
                &RsaKey::generate(&r, 4096).pkcs1(),
            ))),
            "ecdsa" => Ok(Value::Str(ecdsa_key_pem(&r))),
            "ed25519" => Ok(Value::Str(ed25519_key_pem(&r))),
            "dsa" => Ok(Value::Str(dsa_key_pem(&r))),
            typ => Ok(Value::Str(format!("Unknown type {typ}"))),
        }
    });
    t.add_func("genCA", 2, Some(2), move |ex, a| {
        let r = Rng::of(ex);
        let key = PrivKey::Rsa(RsaKey::generate(&r, 2048));
        let tpl = template_from(clock, &a[0], &Value::Nil, &Value::Nil, &a[1], true)?;
        cert_value(certificate(&r, &tpl, &key, None, &key), &key)
    });
    t.add_func("genCAWithKey", 3, Some(3), move |ex, a| {
        let r = Rng::of(ex);
        let key = parse_key_pem(want_str(&a[2], "genCAWithKey")?)
            .map_err(|e| format!("parsing private key: {e}"))?;
        let tpl = template_from(clock, &a[0], &Value::Nil, &Value::Nil, &a[1], true)?;
        cert_value(certificate(&r, &tpl, &key, None, &key), &key)
    });
    t.add_func("genSelfSignedCert", 4, Some(4), move |ex, a| {
        let r = Rng::of(ex);
        let key = PrivKey::Rsa(RsaKey::generate(&r, 2048));
        let tpl = template_from(clock, &a[0], &a[1], &a[2], &a[3], false)?;
        cert_value(certificate(&r, &tpl, &key, None, &key), &key)
    });
    t.add_func("genSelfSignedCertWithKey", 5, Some(5), move |ex, a| {
        let r = Rng::of(ex);
        let key = parse_key_pem(want_str(&a[4], "genSelfSignedCertWithKey")?)
            .map_err(|e| format!("parsing private key: {e}"))?;
        let tpl = template_from(clock, &a[0], &a[1], &a[2], &a[3], false)?;
        cert_value(certificate(&r, &tpl, &key, None, &key), &key)
    });
    t.add_func("genSignedCert", 5, Some(5), move |ex, a| {
        let r = Rng::of(ex);
        let (issuer, ca_key) = signer(&a[4])?;
        let key = PrivKey::Rsa(RsaKey::generate(&r, 2048));
        let tpl = template_from(clock, &a[0], &a[1], &a[2], &a[3], false)?;
        cert_value(certificate(&r, &tpl, &key, Some(&issuer), &ca_key), &key)
    });
    t.add_func("genSignedCertWithKey", 6, Some(6), move |ex, a| {
        let r = Rng::of(ex);
        let (issuer, ca_key) = signer(&a[4])?;
        let key = parse_key_pem(want_str(&a[5], "genSignedCertWithKey")?)
            .map_err(|e| format!("parsing private key: {e}"))?;
        let tpl = template_from(clock, &a[0], &a[1], &a[2], &a[3], false)?;
        cert_value(certificate(&r, &tpl, &key, Some(&issuer), &ca_key), &key)
    });
    t.add_func("buildCustomCert", 2, Some(2), |_, a| {
        let cert = want_str(&a[0], "buildCustomCert")?;
        let key = want_str(&a[1], "buildCustomCert")?;
        let decode = |s: &str| {
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let c = decode(cert).map_err(|_| "unable to decode base64 certificate".to_string())?;
        let k = decode(key).map_err(|_| "unable to decode base64 private key".to_string())?;
        if unpem(&c).is_none() {
            return Err("unable to decode certificate".into());
        }
        if unpem(&k).is_none() {
            return Err("unable to decode private key".into());
        }
        Ok(Value::map(BTreeMap::from([
            ("Cert".to_string(), Value::Str(c)),
            ("Key".to_string(), Value::Str(k)),
        ])))
    });
    t.add_func("encryptAES", 2, Some(2), move |ex, a| {
        let r = Rng::of(ex);
        let password = want_str(&a[0], "encryptAES")?;
        encrypt_aes(&r, password, want_str(&a[1], "encryptAES")?).map(Value::Str)
    });
    t.add_func("decryptAES", 2, Some(2), |_, a| {
        let password = want_str(&a[0], "decryptAES")?;
        decrypt_aes(password, want_str(&a[1], "decryptAES")?).map(Value::Str)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blowfish_constants_and_bcrypt_known_answer() {
        let init = &*BLOWFISH_INIT;
        assert_eq!(init[0], 0x243f_6a88);
        assert_eq!(init[17], 0x8979_fb1b);
        assert_eq!(init[18], 0xd131_0ba6);
        assert_eq!(init[18 + 1023], 0x3ac3_72e6);
        // Openwall crypt_blowfish test vector.
        let hash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
        assert!(bcrypt_verify(b"U*U", hash));
        assert!(!bcrypt_verify(b"U*V", hash));
    }

    #[test]
    fn nist_generators_are_on_their_curves_and_of_order_n() {
        // b of each curve, as `openssl ecparam -param_enc explicit` prints it.
        let bs = [
            "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
            "b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4",
            "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
            "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
        ];
        for (c, b) in CURVES.iter().zip(bs) {
            let (x, y) = &c.g;
            let b = hex_big(b);
            let rhs = c.sub(&((x * x * x + &b) % &c.p), &(big(3) * x));
            assert_eq!((y * y) % &c.p, rhs, "{:?}", c.oid);
            assert!(c.mul(&c.n, &Some(c.g.clone())).is_none());
            assert_eq!(c.size, c.p.bits().div_ceil(8) as usize);
        }
    }

    #[test]
    fn scrypt_known_answer() {
        // RFC 7914, section 12, second vector.
        let out = scrypt(b"password", b"NaCl", 1024, 8, 16, 64);
        let hex: String = out.iter().map(|x| format!("{x:02x}")).collect();
        assert!(hex.starts_with("fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e7737"));
    }

    #[test]
    fn aes_known_answer() {
        // FIPS 197, appendix C.3.
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        let rk = expand_key(&key);
        let mut b: [u8; 16] = std::array::from_fn(|i| (i as u8) * 0x11);
        encrypt_block(&rk, &mut b);
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        assert_eq!(hex, "8ea2b7ca516745bfeafc49904b496089");
        decrypt_block(&rk, &mut b);
        assert_eq!(b, std::array::from_fn(|i| (i as u8) * 0x11));
        let rng = Rng::new(7);
        let c = encrypt_aes(&rng, "secret", "hello world").unwrap();
        assert_eq!(decrypt_aes("secret", &c).unwrap(), "hello world");
    }

    /// Deterministic Miller-Rabin for 64-bit numbers (these bases decide
    /// every `n` below 2^64).
    fn is_prime_u64(n: u64) -> bool {
        let mul = |a: u64, b: u64| ((u128::from(a) * u128::from(b)) % u128::from(n)) as u64;
        let pow = |mut b: u64, mut e: u64| {
            let mut r = 1;
            while e > 0 {
                if e & 1 == 1 {
                    r = mul(r, b);
                }
                b = mul(b, b);
                e >>= 1;
            }
            r
        };
        if n.is_multiple_of(2) {
            return n == 2;
        }
        let (mut d, mut s) = (n - 1, 0);
        while d % 2 == 0 {
            d /= 2;
            s += 1;
        }
        [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
            .iter()
            .all(|&a| {
                let mut x = pow(a % n, d);
                if x == 1 || x == n - 1 || a % n == 0 {
                    return true;
                }
                (1..s).any(|_| {
                    x = mul(x, x);
                    x == n - 1
                })
            })
    }

    /// Miller-Rabin with bases 2, 3, 5, ... (the first `rounds` primes).
    fn probably_prime(n: &BigUint, rounds: usize) -> bool {
        let one = big(1);
        let n1 = n - &one;
        let s = n1.trailing_zeros().unwrap_or(0);
        let d = &n1 >> s;
        [2u32, 3, 5, 7, 11, 13, 17, 19][..rounds].iter().all(|&a| {
            let mut x = big(a).modpow(&d, n);
            if x == one || x == n1 {
                return true;
            }
            (1..s).any(|_| {
                x = x.modpow(&big(2), n);
                x == n1
            })
        })
    }

    #[test]
    fn key_tables_hold_distinct_primes_of_their_size() {
        for (table, bits, count) in [(&PRIMES_1024, 1024, 128), (&PRIMES_2048, 2048, 48)] {
            assert_eq!(table.bytes.len(), table.width * count);
            let mut seen = std::collections::HashSet::new();
            for i in 0..table.len() {
                let p = table.get(i);
                assert_eq!(p.bits(), bits, "entry {i}");
                assert_eq!(&p >> (bits - 2), big(3), "entry {i}: top two bits");
                assert!(
                    probably_prime(&p, 2),
                    "entry {i} of {bits} bits is not prime"
                );
                assert_ne!(
                    &(&p - 1u32) % 65_537u32,
                    big(0),
                    "entry {i}: p - 1 prime to e"
                );
                assert!(seen.insert(p), "entry {i} repeated");
            }
        }
        // The test itself tells a product of two primes from a prime.
        let (p, q) = (PRIMES_1024.get(0), PRIMES_1024.get(1));
        assert!(!probably_prime(&(&p * &q), 2));
        assert!(!probably_prime(&(&p * big(65_537)), 2));
        assert!(is_prime_u64(65_537) && !is_prime_u64(65_535));
    }

    #[test]
    fn keys_are_of_sprigs_sizes_and_their_exponents_invert() {
        let rng = Rng::new(super::super::SEED);
        let mut moduli = std::collections::HashSet::new();
        for (bits, n) in [(2048, 40), (4096, 10)] {
            for _ in 0..n {
                let key = RsaKey::generate(&rng, bits);
                assert_eq!(key.n.bits() as usize, bits);
                assert_ne!(key.p, key.q);
                assert_eq!(&key.p * &key.q, key.n);
                // e * d = 1 modulo (p - 1)(q - 1).
                let phi = (&key.p - 1u32) * (&key.q - 1u32);
                assert_eq!(&key.e * &key.d % &phi, big(1));
                moduli.insert(key.n);
            }
        }
        assert!(moduli.len() >= 48, "{} distinct keys of 50", moduli.len());
    }

    #[test]
    fn dsa_parameters_are_gos_and_keys_match_them() {
        assert_eq!(DSA_PARAMETERS.len(), 16 * DSA_SET);
        for i in 0..16 {
            let set = &DSA_PARAMETERS[i * DSA_SET..(i + 1) * DSA_SET];
            let p = BigUint::from_bytes_be(&set[..256]);
            let q = BigUint::from_bytes_be(&set[256..288]);
            let g = BigUint::from_bytes_be(&set[288..]);
            assert_eq!((p.bits(), q.bits()), (2048, 256), "set {i}");
            assert!(probably_prime(&p, 2) && probably_prime(&q, 2), "set {i}");
            assert_eq!(&p % &q, big(1), "set {i}: q divides p - 1");
            assert!(
                g > big(1) && g.modpow(&q, &p) == big(1),
                "set {i}: g of order q"
            );
        }
        let rng = Rng::new(4);
        let (_, der) = unpem(&dsa_key_pem(&rng)).unwrap();
        let (_, body, _) = read_tlv(&der).unwrap();
        let mut parts = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            let (tag, v, r) = read_tlv(rest).unwrap();
            assert_eq!(tag, 0x02);
            parts.push(BigUint::from_bytes_be(v));
            rest = r;
        }
        let [version, p, q, g, y, x] = &parts[..] else {
            panic!("{} integers", parts.len())
        };
        assert_eq!(*version, big(0));
        assert!(*x > big(0) && x < q);
        assert_eq!(g.modpow(x, p), *y);
    }

    #[test]
    fn signatures_by_the_remainder_theorem_are_the_plain_ones() {
        let rng = Rng::new(9);
        let key = RsaKey::generate(&rng, 2048);
        for m in [
            big(0),
            big(1),
            big(2),
            random_bits(&rng, 2000),
            &key.n - 1u32,
        ] {
            assert_eq!(key.private_op(&m), m.modpow(&key.d, &key.n));
        }
        // A key whose primes do not make the modulus: the plain way.
        let mut odd = key.clone();
        odd.q = big(3);
        let m = big(12_345);
        assert_eq!(odd.private_op(&m), m.modpow(&odd.d, &odd.n));
    }

    #[test]
    fn rsa_signs_and_certificates_parse_back() {
        let rng = Rng::new(3);
        let key = RsaKey::generate(&rng, 2048);
        assert_eq!(key.n.bits(), 2048);
        let back = RsaKey::from_pkcs1(&key.pkcs1()).unwrap();
        assert_eq!(back.n, key.n);
        let sig = BigUint::from_bytes_be(&key.sign(b"msg"));
        let em = sig.modpow(&key.e, &key.n).to_bytes_be();
        assert_eq!(em[0], 1);
        let tpl = Template {
            cn: "example".into(),
            ips: vec![],
            dns: vec!["a.example".into()],
            not_before: 0,
            not_after: 86_400,
            is_ca: true,
        };
        let key = PrivKey::Rsa(key);
        let der = certificate(&rng, &tpl, &key, None, &key).unwrap();
        let ca = issuer_of(&der).unwrap();
        assert_eq!(ca.name, name("example"));
        // A CA names its key; a certificate it signs names that key too.
        let ca_id = ca.key_id.clone().unwrap();
        assert_eq!(ca_id.len(), 20);
        let leaf = Template {
            cn: "leaf".into(),
            is_ca: false,
            ..tpl
        };
        let der = certificate(&rng, &leaf, &key, Some(&ca), &key).unwrap();
        let mut aki = seq(&[tlv(0x80, &ca_id)]);
        aki = tlv(0x04, &aki);
        assert!(der.windows(aki.len()).any(|w| w == aki.as_slice()));
        assert_eq!(issuer_of(&der).unwrap().name, name("leaf"));
    }
}
