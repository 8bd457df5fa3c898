//! Sprig's arithmetic: integer functions (operands converted with
//! `cast.ToInt64`, results int64), float functions computed in decimal as
//! Sprig does with shopspring/decimal (`addf 1.1 2.2` is `3.3`), sequences.

use super::{Rng, to_f64, to_i64, want_int};
use crate::template::{Templates, Value};

/// A decimal number: mantissa × 10^-scale.
#[derive(Clone, Copy)]
struct Dec {
    m: i128,
    scale: u32,
}

/// Digits beyond the point that shopspring/decimal keeps in a division.
const DIV_PRECISION: u32 = 16;

impl Dec {
    /// `decimal.NewFromFloat`: the shortest decimal that reads back as `f`.
    fn from_f64(f: f64) -> Option<Dec> {
        if !f.is_finite() {
            return None;
        }
        let text = format!("{f}");
        let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
        let digits = format!("{int}{frac}");
        let m: i128 = digits.parse().ok()?;
        Some(Dec {
            m,
            scale: frac.len() as u32,
        })
    }

    fn rescale(self, scale: u32) -> Option<Dec> {
        let factor = 10i128.checked_pow(scale - self.scale)?;
        Some(Dec {
            m: self.m.checked_mul(factor)?,
            scale,
        })
    }

    fn align(a: Dec, b: Dec) -> Option<(Dec, Dec)> {
        let s = a.scale.max(b.scale);
        Some((a.rescale(s)?, b.rescale(s)?))
    }

    fn to_f64(self) -> f64 {
        let neg = self.m < 0;
        let digits = self.m.unsigned_abs().to_string();
        let s = self.scale as usize;
        let text = if digits.len() > s {
            format!(
                "{}.{}",
                &digits[..digits.len() - s],
                &digits[digits.len() - s..]
            )
        } else {
            format!("0.{}{}", "0".repeat(s - digits.len()), digits)
        };
        let v: f64 = text.parse().unwrap_or(0.0);
        if neg { -v } else { v }
    }
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

fn dec_op(a: f64, b: f64, op: Op) -> Result<f64, String> {
    if matches!(op, Op::Div) && b == 0.0 {
        return Err("decimal division by 0".into());
    }
    let exact = (|| {
        let (x, y) = (Dec::from_f64(a)?, Dec::from_f64(b)?);
        match op {
            Op::Add | Op::Sub => {
                let (x, y) = Dec::align(x, y)?;
                let m = if matches!(op, Op::Add) {
                    x.m.checked_add(y.m)?
                } else {
                    x.m.checked_sub(y.m)?
                };
                Some(Dec { m, scale: x.scale }.to_f64())
            }
            Op::Mul => Some(
                Dec {
                    m: x.m.checked_mul(y.m)?,
                    scale: x.scale + y.scale,
                }
                .to_f64(),
            ),
            Op::Div => {
                // (x.m / 10^xs) / (y.m / 10^ys), to DIV_PRECISION places,
                // rounded half away from zero.
                let shift = DIV_PRECISION + 1 + y.scale;
                let num = x.m.checked_mul(10i128.checked_pow(shift)?)?;
                let q = num / y.m; // scale: x.scale + shift - y.scale
                let scale = x.scale + DIV_PRECISION + 1;
                let q = Dec { m: q, scale };
                // Round the last digit away.
                let m = q.m;
                let rounded = if m >= 0 { (m + 5) / 10 } else { (m - 5) / 10 };
                let mut d = Dec {
                    m: rounded,
                    scale: scale - 1,
                };
                while d.scale > DIV_PRECISION {
                    d = Dec {
                        m: if d.m >= 0 {
                            (d.m + 5) / 10
                        } else {
                            (d.m - 5) / 10
                        },
                        scale: d.scale - 1,
                    };
                }
                Some(d.to_f64())
            }
        }
    })();
    Ok(exact.unwrap_or(match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
    }))
}

fn fold_dec(first: f64, rest: &[Value], op: Op) -> Result<Value, String> {
    let mut acc = first;
    for v in rest {
        acc = dec_op(acc, to_f64(v), op)?;
    }
    Ok(Value::Float(acc))
}

/// Sprig's `untilStep`.
pub fn until_step(start: i64, stop: i64, step: i64) -> Vec<i64> {
    let mut v = Vec::new();
    if stop < start {
        if step >= 0 {
            return v;
        }
        let mut i = start;
        while i > stop {
            v.push(i);
            i += step;
        }
        return v;
    }
    if step <= 0 {
        return v;
    }
    let mut i = start;
    while i < stop {
        v.push(i);
        i += step;
    }
    v
}

fn ints(v: Vec<i64>) -> Value {
    Value::typed_list(v.into_iter().map(Value::Int).collect(), "[]int")
}

fn seq(p: &[i64]) -> String {
    let list = match p {
        [end] => {
            let inc = if *end < 1 { -1 } else { 1 };
            until_step(1, end + inc, inc)
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(*start, end + step, step)
        }
        [start, step, end] => {
            let mut inc = 1;
            if end < start {
                inc = -1;
                if *step > 0 {
                    return String::new();
                }
            }
            until_step(*start, end + inc, *step)
        }
        _ => return String::new(),
    };
    list.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn int_div(a: i64, b: i64, rem: bool) -> Result<Value, String> {
    if b == 0 {
        return Err("runtime error: integer divide by zero".into());
    }
    Ok(Value::int64(if rem {
        a.wrapping_rem(b)
    } else {
        a.wrapping_div(b)
    }))
}

/// Go's `math.Pow` for an integer exponent: repeated squaring of the
/// mantissa, the exponent kept apart, then one division for a negative
/// power (libm's `pow` is correctly rounded and so differs in the last
/// bit, e.g. `round -2.5 -42`).
fn go_pow_int(x: f64, y: i64) -> f64 {
    if y == 0 || x == 1.0 {
        return 1.0;
    }
    if !x.is_finite() || x == 0.0 || y.unsigned_abs() >= 1 << 62 {
        return x.powf(y as f64);
    }
    let (mut x1, mut xe) = frexp(x);
    let (mut a1, mut ae) = (1.0f64, 0i64);
    let mut i = y.unsigned_abs();
    while i != 0 {
        if !(-(1 << 12)..=1 << 12).contains(&xe) {
            // Certain overflow or underflow: Go adds the exponent and stops.
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if y < 0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

/// Go's `math.Frexp` for a finite, non-zero `x`: a mantissa in [0.5, 1)
/// and a power of two.
fn frexp(x: f64) -> (f64, i64) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(54));
        return (m, e - 54);
    }
    (
        f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52)),
        exp - 1022,
    )
}

/// `a` × 2^`e`, in steps that do not overflow on the way.
fn ldexp(mut a: f64, mut e: i64) -> f64 {
    while e > 1023 {
        a *= 2f64.powi(1023);
        e -= 1023;
    }
    while e < -1022 {
        a *= 2f64.powi(-1022);
        e += 1022;
    }
    a * 2f64.powi(e as i32)
}

/// Sprig's `round`.
fn round(v: f64, places: i64, on: f64) -> f64 {
    let pow = go_pow_int(10.0, places);
    let digit = pow * v;
    let div = digit.fract();
    let r = if div >= on {
        digit.ceil()
    } else {
        digit.floor()
    };
    r / pow
}

pub(super) fn add(t: &mut Templates) {
    t.add_func("add1", 1, Some(1), |_, a| {
        Ok(Value::int64(to_i64(&a[0]).wrapping_add(1)))
    });
    t.add_func("add", 0, None, |_, a| {
        Ok(Value::int64(
            a.iter().fold(0i64, |s, v| s.wrapping_add(to_i64(v))),
        ))
    });
    t.add_func("sub", 2, Some(2), |_, a| {
        Ok(Value::int64(to_i64(&a[0]).wrapping_sub(to_i64(&a[1]))))
    });
    t.add_func("div", 2, Some(2), |_, a| {
        int_div(to_i64(&a[0]), to_i64(&a[1]), false)
    });
    t.add_func("mod", 2, Some(2), |_, a| {
        int_div(to_i64(&a[0]), to_i64(&a[1]), true)
    });
    t.add_func("mul", 1, None, |_, a| {
        Ok(Value::int64(
            a[1..]
                .iter()
                .fold(to_i64(&a[0]), |s, v| s.wrapping_mul(to_i64(v))),
        ))
    });
    for name in ["max", "biggest"] {
        t.add_func(name, 1, None, |_, a| {
            Ok(Value::int64(a.iter().map(to_i64).max().unwrap_or(0)))
        });
    }
    t.add_func("min", 1, None, |_, a| {
        Ok(Value::int64(a.iter().map(to_i64).min().unwrap_or(0)))
    });
    t.add_func("maxf", 1, None, |_, a| {
        Ok(Value::Float(
            a[1..].iter().fold(to_f64(&a[0]), |m, v| m.max(to_f64(v))),
        ))
    });
    t.add_func("minf", 1, None, |_, a| {
        Ok(Value::Float(
            a[1..].iter().fold(to_f64(&a[0]), |m, v| m.min(to_f64(v))),
        ))
    });
    t.add_func("floor", 1, Some(1), |_, a| {
        Ok(Value::Float(to_f64(&a[0]).floor()))
    });
    t.add_func("ceil", 1, Some(1), |_, a| {
        Ok(Value::Float(to_f64(&a[0]).ceil()))
    });
    t.add_func("round", 2, Some(3), |_, a| {
        let p = want_int(&a[1], "round")?;
        let on = match a.get(2) {
            Some(Value::Float(f)) => *f,
            // Go converts an integer literal to a float64 parameter.
            Some(Value::Int(i)) => *i as f64,
            Some(other) => {
                return Err(format!(
                    "wrong type for value; expected float64; got {}",
                    other.type_name()
                ));
            }
            None => 0.5,
        };
        Ok(Value::Float(round(to_f64(&a[0]), p, on)))
    });
    t.add_func("add1f", 1, Some(1), |_, a| {
        fold_dec(to_f64(&a[0]), &[Value::Int(1)], Op::Add)
    });
    t.add_func("addf", 0, None, |_, a| fold_dec(0.0, a, Op::Add));
    t.add_func("subf", 1, None, |_, a| {
        fold_dec(to_f64(&a[0]), &a[1..], Op::Sub)
    });
    t.add_func("mulf", 1, None, |_, a| {
        fold_dec(to_f64(&a[0]), &a[1..], Op::Mul)
    });
    t.add_func("divf", 1, None, |_, a| {
        fold_dec(to_f64(&a[0]), &a[1..], Op::Div)
    });
    t.add_func("until", 1, Some(1), |_, a| {
        let n = want_int(&a[0], "until")?;
        Ok(ints(until_step(0, n, if n < 0 { -1 } else { 1 })))
    });
    t.add_func("untilStep", 3, Some(3), |_, a| {
        Ok(ints(until_step(
            want_int(&a[0], "untilStep")?,
            want_int(&a[1], "untilStep")?,
            want_int(&a[2], "untilStep")?,
        )))
    });
    t.add_func("seq", 0, None, |_, a| {
        let p: Result<Vec<i64>, String> = a.iter().map(|v| want_int(v, "seq")).collect();
        Ok(Value::Str(seq(&p?)))
    });
    t.add_func("randInt", 2, Some(2), move |ex, a| {
        let r = Rng::of(ex);
        let lo = want_int(&a[0], "randInt")?;
        let hi = want_int(&a[1], "randInt")?;
        if hi <= lo {
            return Err("invalid argument to Intn".into());
        }
        Ok(Value::Int(lo + r.below((hi - lo) as u64) as i64))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_arithmetic() {
        assert_eq!(dec_op(1.1, 2.2, Op::Add).unwrap(), 3.3);
        assert_eq!(dec_op(0.3, 0.1, Op::Sub).unwrap(), 0.2);
        assert_eq!(dec_op(1.1, 3.0, Op::Mul).unwrap(), 3.3);
        assert_eq!(dec_op(10.0, 3.0, Op::Div).unwrap(), 3.333_333_333_333_333_5);
        assert_eq!(seq(&[5]), "1 2 3 4 5");
        assert_eq!(seq(&[-3]), "1 0 -1 -2 -3");
        assert_eq!(seq(&[0, 2, 10]), "0 2 4 6 8 10");
        assert_eq!(until_step(0, 10, 3), vec![0, 3, 6, 9]);
        assert_eq!(round(123.555_555, 3, 0.5), 123.556);
    }
}
