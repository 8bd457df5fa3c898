//! Ed25519 (RFC 8032): the public key of a seed and signatures, for
//! certificates that Sprig's `...WithKey` functions sign with an Ed25519
//! key (`genPrivateKey "ed25519"`). Plain arithmetic on `BigUint` in
//! extended coordinates: a signature costs about a millisecond, which a
//! render making a handful of certificates does not notice. Not constant
//! time: flate's keys are for rendering only (crypto.rs).

use std::sync::LazyLock;

use num_bigint::BigUint;
use sha2::{Digest as _, Sha512};

struct Curve {
    /// 2^255 - 19.
    p: BigUint,
    /// 2d, d = -121665/121666.
    d2: BigUint,
    /// The order of the base point, 2^252 + 27742317777372353535851937790883648493.
    l: BigUint,
    base: Point,
}

/// A point in extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, xy = T/Z.
#[derive(Clone)]
struct Point {
    x: BigUint,
    y: BigUint,
    z: BigUint,
    t: BigUint,
}

static CURVE: LazyLock<Curve> = LazyLock::new(|| {
    let p = (BigUint::from(1u32) << 255u32) - 19u32;
    let inv = |n: &BigUint| n.modpow(&(&p - 2u32), &p);
    let d = (&p - BigUint::from(121_665u32)) * inv(&BigUint::from(121_666u32)) % &p;
    let l = (BigUint::from(1u32) << 252u32)
        + BigUint::parse_bytes(b"27742317777372353535851937790883648493", 10).unwrap_or_default();
    let by = BigUint::from(4u32) * inv(&BigUint::from(5u32)) % &p;
    let bx = BigUint::parse_bytes(
        b"15112221349535400772501151409588531511454012693041857206046113283949847762202",
        10,
    )
    .unwrap_or_default();
    let base = Point {
        t: &bx * &by % &p,
        x: bx,
        y: by,
        z: BigUint::from(1u32),
    };
    Curve {
        d2: d * 2u32 % &p,
        p,
        l,
        base,
    }
});

impl Curve {
    fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        (a + &self.p - b) % &self.p
    }

    /// The unified addition of twisted Edwards curves with a = -1
    /// (add-2008-hwcd-3), doubling included.
    fn add(&self, a: &Point, b: &Point) -> Point {
        let p = &self.p;
        let aa = self.sub(&a.y, &a.x) * self.sub(&b.y, &b.x) % p;
        let bb = (&a.y + &a.x) * (&b.y + &b.x) % p;
        let cc = &a.t * &self.d2 % p * &b.t % p;
        let dd = &a.z * 2u32 * &b.z % p;
        let e = self.sub(&bb, &aa);
        let f = self.sub(&dd, &cc);
        let g = (&dd + &cc) % p;
        let h = (&bb + &aa) % p;
        Point {
            x: &e * &f % p,
            y: &g * &h % p,
            t: &e * &h % p,
            z: &f * &g % p,
        }
    }

    fn mul(&self, k: &BigUint, pt: &Point) -> Point {
        let mut acc = Point {
            x: BigUint::default(),
            y: BigUint::from(1u32),
            z: BigUint::from(1u32),
            t: BigUint::default(),
        };
        for i in (0..k.bits()).rev() {
            acc = self.add(&acc, &acc);
            if k.bit(i) {
                acc = self.add(&acc, pt);
            }
        }
        acc
    }

    /// The 32-byte encoding: y little-endian, the sign of x in the top bit.
    fn encode(&self, pt: &Point) -> [u8; 32] {
        let zinv = pt.z.modpow(&(&self.p - 2u32), &self.p);
        let x = &pt.x * &zinv % &self.p;
        let y = &pt.y * &zinv % &self.p;
        let mut out = [0u8; 32];
        let bytes = y.to_bytes_le();
        out[..bytes.len()].copy_from_slice(&bytes);
        if x.bit(0) {
            out[31] |= 0x80;
        }
        out
    }
}

/// The secret scalar (clamped) and the prefix of a 32-byte seed.
fn expand(seed: &[u8; 32]) -> (BigUint, [u8; 32]) {
    let h = Sha512::digest(seed);
    let mut a = [0u8; 32];
    a.copy_from_slice(&h[..32]);
    a[0] &= 248;
    a[31] &= 127;
    a[31] |= 64;
    let mut prefix = [0u8; 32];
    prefix.copy_from_slice(&h[32..]);
    (BigUint::from_bytes_le(&a), prefix)
}

/// The public key of a seed.
pub fn public_key(seed: &[u8; 32]) -> [u8; 32] {
    let c = &*CURVE;
    let (a, _) = expand(seed);
    c.encode(&c.mul(&a, &c.base))
}

/// The signature of `msg` by the key of `seed`, whose public key is
/// `public` ([`public_key`]): pure Ed25519, R then S, 64 bytes.
pub fn sign(seed: &[u8; 32], public: &[u8; 32], msg: &[u8]) -> [u8; 64] {
    let c = &*CURVE;
    let (a, prefix) = expand(seed);
    let r = BigUint::from_bytes_le(
        &Sha512::new()
            .chain_update(prefix)
            .chain_update(msg)
            .finalize(),
    ) % &c.l;
    let big_r = c.encode(&c.mul(&r, &c.base));
    let k = BigUint::from_bytes_le(
        &Sha512::new()
            .chain_update(big_r)
            .chain_update(public)
            .chain_update(msg)
            .finalize(),
    ) % &c.l;
    let s = (r + k * a) % &c.l;
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&big_r);
    let bytes = s.to_bytes_le();
    out[32..32 + bytes.len()].copy_from_slice(&bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn rfc_8032_key_and_openssls_signature() {
        // RFC 8032, section 7.1, test 1: the seed and its public key.
        let seed: [u8; 32] = std::array::from_fn(|i| {
            u8::from_str_radix(
                &"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
                    [2 * i..2 * i + 2],
                16,
            )
            .unwrap()
        });
        assert_eq!(
            hex(&public_key(&seed)),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        // The signature of "abc" by that key, as `openssl pkeyutl -sign
        // -rawin` (OpenSSL 3.0) makes it.
        assert_eq!(
            hex(&sign(&seed, &public_key(&seed), b"abc")),
            "80d724b01e7ca260f4cc7f8de7c95f73cfac615bab1f762b6435b6ec26c8cf6d\
             2c758dae2f87399a8eeda1cbcd2835ac5ba66d6ecaa3aba5e567a751053dc207"
        );
    }
}
