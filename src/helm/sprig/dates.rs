//! Sprig's date functions: `now`, `date`, `dateInZone`, `htmlDate`,
//! `htmlDateInZone`, `toDate`, `mustToDate`, `dateModify`,
//! `mustDateModify`, `ago`, `duration`, `durationRound`, `unixEpoch`, with
//! Go's reference-time layouts (`2006-01-02 15:04:05`).
//!
//! Go passes `time.Time` values between these functions; here a time is the
//! string Go prints for it (`2006-01-02 15:04:05.999999999 -0700 MST`), so
//! `{{ now }}` prints as in Go (without Go's monotonic clock suffix
//! `m=+0.001`) and the functions taking a time read that string back.
//! `typeOf now` is therefore `string`, not `time.Time`.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::want_str;
use crate::template::{Templates, Value};

/// The clock `now` reads: the system clock, or a fixed instant (Unix
/// seconds and nanoseconds) for reproducible output.
#[derive(Clone, Copy, Debug, Default)]
pub enum Clock {
    /// The time this process first read: every render of one run (both
    /// sides of a diff) sees the same instant, so certificates made in
    /// different seconds do not show as changes. `SOURCE_DATE_EPOCH`
    /// (Unix seconds, the reproducible-builds convention) fixes it
    /// across runs (the command line refuses a malformed one).
    #[default]
    System,
    Fixed(i64, u32),
}

/// The instant `SOURCE_DATE_EPOCH` names: `Ok(None)` when it is not set,
/// an error naming the value when it is no whole number of seconds (or
/// lies outside the times a timestamp holds).
pub fn source_date_epoch() -> Result<Option<Timestamp>, String> {
    let Some(v) = std::env::var_os("SOURCE_DATE_EPOCH") else {
        return Ok(None);
    };
    v.to_str()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|s| Timestamp::from_second(s).ok())
        .map(Some)
        .ok_or_else(|| {
            format!(
                "SOURCE_DATE_EPOCH={} is not a whole number of seconds since 1970-01-01 UTC (years -9999 to 9999)",
                v.to_string_lossy()
            )
        })
}

/// The instant [`Clock::System`] reads, taken once per process (the
/// command line has refused a malformed `SOURCE_DATE_EPOCH` already).
fn process_now() -> Timestamp {
    static NOW: std::sync::OnceLock<Timestamp> = std::sync::OnceLock::new();
    *NOW.get_or_init(|| {
        source_date_epoch()
            .ok()
            .flatten()
            .unwrap_or_else(Timestamp::now)
    })
}

impl Clock {
    /// Unix seconds now.
    pub fn now_seconds(self) -> i64 {
        self.now().as_second()
    }

    pub(crate) fn now(self) -> Timestamp {
        match self {
            Clock::System => process_now(),
            Clock::Fixed(s, n) => Timestamp::new(s, n as i32).unwrap_or(Timestamp::UNIX_EPOCH),
        }
    }
}

/// A point in time in a zone: what Go's `time.Time` carries.
#[derive(Clone, Debug)]
pub struct Time {
    pub ts: Timestamp,
    /// Offset from UTC in seconds.
    pub offset: i32,
    pub abbr: String,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Go's default `time.Time` format.
const STRING_LAYOUT: &str = "2006-01-02 15:04:05.999999999 -0700 MST";

fn zone(name: &str) -> TimeZone {
    match name {
        "" | "UTC" => TimeZone::UTC,
        "Local" => TimeZone::system(),
        n => TimeZone::get(n).unwrap_or(TimeZone::UTC),
    }
}

impl Time {
    pub fn in_zone(ts: Timestamp, tz: &TimeZone) -> Time {
        let info = tz.to_offset_info(ts);
        let offset = info.offset().seconds();
        let mut abbr = info.abbreviation().to_string();
        if *tz == TimeZone::UTC {
            abbr = "UTC".into();
        }
        Time { ts, offset, abbr }
    }

    /// Civil fields in the time's own offset.
    fn civil(&self) -> Civil {
        let secs = self.ts.as_second() + i64::from(self.offset);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        Civil {
            year: y,
            month: m,
            day: d,
            hour: (rem / 3600) as u32,
            minute: (rem % 3600 / 60) as u32,
            second: (rem % 60) as u32,
            nanos: self.ts.subsec_nanosecond().max(0) as u32,
            weekday: (days + 4).rem_euclid(7) as usize,
            yday: (days - days_from_civil(y, 1, 1) + 1) as u32,
        }
    }

    /// Go's `Time.String`.
    pub fn to_go_string(&self) -> String {
        format(STRING_LAYOUT, self)
    }

    /// Reads back a time printed by [`Time::to_go_string`].
    pub fn from_go_string(s: &str) -> Option<Time> {
        parse(STRING_LAYOUT, s, &TimeZone::UTC).ok()
    }
}

struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    weekday: usize,
    yday: u32,
}

/// Days since 1970-01-01 to a proleptic Gregorian date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    Tz,
    /// Numeric zone: (ISO "Z" form, with colons, with seconds, hours only).
    NumTz(bool, bool, bool, bool),
    /// Fractional seconds: digits, trailing zeros trimmed (`.999`).
    Frac(usize, bool),
}

/// Go's `nextStdChunk`: the literal prefix, the element and its text, and
/// the rest of the layout.
fn next_chunk(layout: &str) -> (&str, Option<(Std, &str)>, &str) {
    let b = layout.as_bytes();
    let starts = |i: usize, p: &str| layout[i..].starts_with(p);
    for i in 0..b.len() {
        let found: Option<(Std, usize)> = match b[i] {
            b'J' if starts(i, "January") => Some((Std::LongMonth, 7)),
            b'J' if starts(i, "Jan") => Some((Std::Month, 3)),
            b'M' if starts(i, "Monday") => Some((Std::LongWeekDay, 6)),
            b'M' if starts(i, "Mon") => Some((Std::WeekDay, 3)),
            b'M' if starts(i, "MST") => Some((Std::Tz, 3)),
            b'0' if starts(i, "002") => Some((Std::ZeroYearDay, 3)),
            b'0' if i + 1 < b.len() && (b'1'..=b'6').contains(&b[i + 1]) => Some((
                match b[i + 1] {
                    b'1' => Std::ZeroMonth,
                    b'2' => Std::ZeroDay,
                    b'3' => Std::ZeroHour12,
                    b'4' => Std::ZeroMinute,
                    b'5' => Std::ZeroSecond,
                    _ => Std::Year,
                },
                2,
            )),
            b'1' if starts(i, "15") => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if starts(i, "2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            b'_' if starts(i, "_2006") => {
                // "_" is literal here.
                return (
                    &layout[..i + 1],
                    Some((Std::LongYear, &layout[i + 1..i + 5])),
                    &layout[i + 5..],
                );
            }
            b'_' if starts(i, "__2") => Some((Std::UnderYearDay, 3)),
            b'_' if starts(i, "_2") => Some((Std::UnderDay, 2)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'P' if starts(i, "PM") => Some((Std::PM, 2)),
            b'p' if starts(i, "pm") => Some((Std::Pm, 2)),
            b'-' if starts(i, "-070000") => Some((Std::NumTz(false, false, true, false), 7)),
            b'-' if starts(i, "-07:00:00") => Some((Std::NumTz(false, true, true, false), 9)),
            b'-' if starts(i, "-0700") => Some((Std::NumTz(false, false, false, false), 5)),
            b'-' if starts(i, "-07:00") => Some((Std::NumTz(false, true, false, false), 6)),
            b'-' if starts(i, "-07") => Some((Std::NumTz(false, false, false, true), 3)),
            b'Z' if starts(i, "Z070000") => Some((Std::NumTz(true, false, true, false), 7)),
            b'Z' if starts(i, "Z07:00:00") => Some((Std::NumTz(true, true, true, false), 9)),
            b'Z' if starts(i, "Z0700") => Some((Std::NumTz(true, false, false, false), 5)),
            b'Z' if starts(i, "Z07:00") => Some((Std::NumTz(true, true, false, false), 6)),
            b'Z' if starts(i, "Z07") => Some((Std::NumTz(true, false, false, true), 3)),
            b'.' | b',' if i + 1 < b.len() && (b[i + 1] == b'0' || b[i + 1] == b'9') => {
                let ch = b[i + 1];
                let mut j = i + 1;
                while j < b.len() && b[j] == ch {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    None
                } else {
                    Some((Std::Frac(j - i - 1, ch == b'9'), j - i))
                }
            }
            _ => None,
        };
        if let Some((std, len)) = found {
            return (
                &layout[..i],
                Some((std, &layout[i..i + len])),
                &layout[i + len..],
            );
        }
    }
    (layout, None, "")
}

/// Go's `Time.Format`.
pub fn format(layout: &str, t: &Time) -> String {
    let c = t.civil();
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, after) = next_chunk(rest);
        out.push_str(prefix);
        let Some((std, _)) = std else { break };
        rest = after;
        let h12 = if c.hour.is_multiple_of(12) {
            12
        } else {
            c.hour % 12
        };
        match std {
            Std::LongMonth => out.push_str(MONTHS[c.month as usize - 1]),
            Std::Month => out.push_str(&MONTHS[c.month as usize - 1][..3]),
            Std::NumMonth => out.push_str(&c.month.to_string()),
            Std::ZeroMonth => out.push_str(&format!("{:02}", c.month)),
            Std::LongWeekDay => out.push_str(DAYS[c.weekday]),
            Std::WeekDay => out.push_str(&DAYS[c.weekday][..3]),
            Std::Day => out.push_str(&c.day.to_string()),
            Std::UnderDay => out.push_str(&format!("{:>2}", c.day)),
            Std::ZeroDay => out.push_str(&format!("{:02}", c.day)),
            Std::UnderYearDay => out.push_str(&format!("{:>3}", c.yday)),
            Std::ZeroYearDay => out.push_str(&format!("{:03}", c.yday)),
            Std::Hour => out.push_str(&format!("{:02}", c.hour)),
            Std::Hour12 => out.push_str(&h12.to_string()),
            Std::ZeroHour12 => out.push_str(&format!("{h12:02}")),
            Std::Minute => out.push_str(&c.minute.to_string()),
            Std::ZeroMinute => out.push_str(&format!("{:02}", c.minute)),
            Std::Second => out.push_str(&c.second.to_string()),
            Std::ZeroSecond => out.push_str(&format!("{:02}", c.second)),
            Std::LongYear => out.push_str(&format!("{:04}", c.year)),
            Std::Year => out.push_str(&format!("{:02}", c.year.rem_euclid(100))),
            Std::PM => out.push_str(if c.hour >= 12 { "PM" } else { "AM" }),
            Std::Pm => out.push_str(if c.hour >= 12 { "pm" } else { "am" }),
            Std::Tz => {
                if t.abbr.is_empty() {
                    let z = t.offset / 60;
                    let sign = if z < 0 { '-' } else { '+' };
                    out.push_str(&format!("{sign}{:02}{:02}", z.abs() / 60, z.abs() % 60));
                } else {
                    out.push_str(&t.abbr);
                }
            }
            Std::NumTz(iso, colon, secs, hours_only) => {
                if iso && t.offset == 0 {
                    out.push('Z');
                    continue;
                }
                let z = t.offset.abs();
                out.push(if t.offset < 0 { '-' } else { '+' });
                out.push_str(&format!("{:02}", z / 3600));
                if !hours_only {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", z / 60 % 60));
                }
                if secs {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", z % 60));
                }
            }
            Std::Frac(n, trim) => {
                let digits = format!("{:09}", c.nanos);
                let mut d = digits[..n.min(9)].to_string();
                if trim {
                    d = d.trim_end_matches('0').to_string();
                    if d.is_empty() {
                        continue;
                    }
                }
                out.push(layout.as_bytes()[layout.len() - rest.len() - n - 1] as char);
                out.push_str(&d);
            }
        }
    }
    out
}

/// The time package's own quoting in its errors: as `strconv.Quote` for
/// ASCII, but every byte of a character past ASCII (or below a space)
/// written `\xNN`.
fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if (c as u32) >= 0x80 || c < ' ' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

fn parse_error(layout: &str, value: &str, elem: &str, velem: &str) -> String {
    let q = time_quote;
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        q(value),
        q(layout),
        q(velem),
        q(elem)
    )
}

fn take_digits(s: &str, min: usize, max: usize) -> Option<(i64, &str)> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n < min {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// Go's `time.ParseInLocation` for the layouts `toDate` sees.
pub fn parse(layout: &str, value: &str, loc: &TimeZone) -> Result<Time, String> {
    let (mut year, mut month, mut day, mut hour, mut minute, mut sec, mut nanos) =
        (1i64, 1u32, 1u32, 0u32, 0u32, 0u32, 0u32);
    let mut pm: Option<bool> = None;
    let mut offset: Option<i32> = None;
    let mut abbr: Option<String> = None;
    let mut rest_layout = layout;
    let mut v = value;
    loop {
        let (prefix, std, after) = next_chunk(rest_layout);
        if !v.starts_with(prefix) {
            return Err(parse_error(layout, value, prefix, v));
        }
        v = &v[prefix.len()..];
        let Some((std, text)) = std else {
            if !v.is_empty() {
                return Err(format!(
                    "parsing time {}: extra text: {}",
                    time_quote(value),
                    time_quote(v)
                ));
            }
            break;
        };
        rest_layout = after;
        macro_rules! bad {
            () => {
                parse_error(layout, value, text, v)
            };
        }
        macro_rules! num {
            ($s:expr, $min:expr, $max:expr) => {
                take_digits($s, $min, $max).ok_or_else(|| parse_error(layout, value, text, v))
            };
        }
        match std {
            Std::LongYear => {
                let (n, r) = num!(v, 4, 4)?;
                year = n;
                v = r;
            }
            Std::Year => {
                let (n, r) = num!(v, 2, 2)?;
                year = if n >= 69 { 1900 + n } else { 2000 + n };
                v = r;
            }
            Std::LongMonth | Std::Month => {
                let found = MONTHS.iter().enumerate().find_map(|(i, m)| {
                    let m = if std == Std::Month { &m[..3] } else { m };
                    (v.len() >= m.len() && v[..m.len()].eq_ignore_ascii_case(m))
                        .then_some((i, m.len()))
                });
                let (i, l) = found.ok_or_else(|| bad!())?;
                month = i as u32 + 1;
                v = &v[l..];
            }
            Std::LongWeekDay | Std::WeekDay => {
                let found = DAYS.iter().find_map(|d| {
                    let d = if std == Std::WeekDay { &d[..3] } else { d };
                    (v.len() >= d.len() && v[..d.len()].eq_ignore_ascii_case(d)).then_some(d.len())
                });
                v = &v[found.ok_or_else(|| bad!())?..];
            }
            Std::NumMonth | Std::ZeroMonth => {
                let min = if std == Std::ZeroMonth { 2 } else { 1 };
                let (n, r) = num!(v, min, 2)?;
                if !(1..=12).contains(&n) {
                    return Err(format!(
                        "parsing time {}: month out of range",
                        time_quote(value)
                    ));
                }
                month = n as u32;
                v = r;
            }
            Std::Day | Std::ZeroDay | Std::UnderDay => {
                let s = if std == Std::UnderDay {
                    v.strip_prefix(' ').unwrap_or(v)
                } else {
                    v
                };
                let min = if std == Std::ZeroDay { 2 } else { 1 };
                let (n, r) = num!(s, min, 2)?;
                day = n as u32;
                v = r;
            }
            Std::UnderYearDay | Std::ZeroYearDay => {
                let (_, r) = num!(v.trim_start_matches(' '), 1, 3)?;
                v = r;
            }
            Std::Hour => {
                let (n, r) = num!(v, 1, 2)?;
                hour = n as u32;
                v = r;
            }
            Std::Hour12 | Std::ZeroHour12 => {
                let min = if std == Std::ZeroHour12 { 2 } else { 1 };
                let (n, r) = num!(v, min, 2)?;
                hour = n as u32;
                v = r;
            }
            Std::Minute | Std::ZeroMinute => {
                let min = if std == Std::ZeroMinute { 2 } else { 1 };
                let (n, r) = num!(v, min, 2)?;
                minute = n as u32;
                v = r;
            }
            Std::Second | Std::ZeroSecond => {
                let min = if std == Std::ZeroSecond { 2 } else { 1 };
                let (n, r) = num!(v, min, 2)?;
                sec = n as u32;
                v = r;
                // Fractional seconds after seconds the layout does not name.
                if let Some(f) = v.strip_prefix(['.', ','])
                    && !matches!(next_chunk(rest_layout).1, Some((Std::Frac(..), _)))
                    && f.starts_with(|c: char| c.is_ascii_digit())
                {
                    let n = f.bytes().take_while(u8::is_ascii_digit).count();
                    nanos = frac_nanos(&f[..n]);
                    v = &f[n..];
                }
            }
            Std::Frac(n, trim) => {
                let Some(f) = v.strip_prefix(['.', ',']) else {
                    if trim {
                        continue;
                    }
                    return Err(bad!());
                };
                let k = f.bytes().take_while(u8::is_ascii_digit).count();
                if !trim && k != n {
                    return Err(bad!());
                }
                nanos = frac_nanos(&f[..k]);
                v = &f[k..];
            }
            Std::PM | Std::Pm => {
                let p = v.get(..2).ok_or_else(|| bad!())?;
                pm = Some(match p.to_ascii_uppercase().as_str() {
                    "PM" => true,
                    "AM" => false,
                    _ => return Err(bad!()),
                });
                v = &v[2..];
            }
            Std::Tz => {
                if v.starts_with("UTC") {
                    offset = Some(0);
                    abbr = Some("UTC".into());
                    v = &v[3..];
                } else if v.starts_with(['+', '-']) && v.len() >= 5 {
                    // A zone without a name prints as its offset.
                    let sign = if v.starts_with('-') { -1 } else { 1 };
                    let (hh, r) = num!(&v[1..], 2, 2)?;
                    let (mm, r) = num!(r, 2, 2)?;
                    offset = Some(sign * (hh * 3600 + mm * 60) as i32);
                    abbr = Some(String::new());
                    v = r;
                } else {
                    let n = v.bytes().take_while(u8::is_ascii_uppercase).count();
                    if n < 3 {
                        return Err(bad!());
                    }
                    abbr = Some(v[..n].to_string());
                    v = &v[n..];
                }
            }
            Std::NumTz(iso, colon, secs, hours_only) => {
                if iso && v.starts_with('Z') {
                    offset = Some(0);
                    v = &v[1..];
                    continue;
                }
                let sign = match v.as_bytes().first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(bad!()),
                };
                let mut r = &v[1..];
                let (h, r2) = num!(r, 2, 2)?;
                r = r2;
                let mut m = 0;
                let mut s = 0;
                if !hours_only {
                    if colon {
                        r = r.strip_prefix(':').ok_or_else(|| bad!())?;
                    }
                    let (mm, r3) = num!(r, 2, 2)?;
                    m = mm;
                    r = r3;
                }
                if secs {
                    if colon {
                        r = r.strip_prefix(':').ok_or_else(|| bad!())?;
                    }
                    let (ss, r4) = num!(r, 2, 2)?;
                    s = ss;
                    r = r4;
                }
                offset = Some(sign * (h * 3600 + m * 60 + s) as i32);
                v = r;
            }
        }
    }
    if let Some(p) = pm {
        if p && hour < 12 {
            hour += 12;
        } else if !p && hour == 12 {
            hour = 0;
        }
    }
    let days = days_from_civil(year, month, day);
    let (_, m2, d2) = civil_from_days(days);
    if m2 != month || d2 != day {
        return Err(format!(
            "parsing time {}: day out of range",
            time_quote(value)
        ));
    }
    let local_secs =
        days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(sec);
    let ts = |off: i64| Timestamp::new(local_secs - off, nanos as i32).map_err(|e| e.to_string());
    match offset {
        Some(off) => {
            let t = ts(i64::from(off))?;
            let local = Time::in_zone(t, loc);
            if local.offset == off {
                return Ok(local);
            }
            Ok(Time {
                ts: t,
                offset: off,
                abbr: abbr.unwrap_or_default(),
            })
        }
        None => {
            // The offset the location has at that civil time.
            let guess = ts(0)?;
            let off = loc.to_offset(guess).seconds();
            let t = ts(i64::from(off))?;
            let mut out = Time::in_zone(t, loc);
            if let Some(a) = abbr
                && a != out.abbr
            {
                out = Time {
                    ts: ts(0)?,
                    offset: 0,
                    abbr: a,
                };
            }
            Ok(out)
        }
    }
}

fn frac_nanos(digits: &str) -> u32 {
    let mut d = digits.to_string();
    d.truncate(9);
    while d.len() < 9 {
        d.push('0');
    }
    d.parse().unwrap_or(0)
}

/// Go's `time.ParseDuration`, in nanoseconds.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let q = time_quote(text);
    let invalid = || format!("time: invalid duration {q}");
    let (neg, mut s) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: f64 = 0.0;
    while !s.is_empty() {
        let n = s
            .bytes()
            .take_while(|c| c.is_ascii_digit() || *c == b'.')
            .count();
        if n == 0 {
            return Err(invalid());
        }
        let num: f64 = s[..n].parse().map_err(|_| invalid())?;
        s = &s[n..];
        let u = s
            .bytes()
            .take_while(|c| !c.is_ascii_digit() && *c != b'.')
            .count();
        let unit = &s[..u];
        s = &s[u..];
        let scale: f64 = match unit {
            "ns" => 1.0,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            "" => return Err(format!("time: missing unit in duration {q}")),
            other => {
                return Err(format!(
                    "time: unknown unit {} in duration {q}",
                    time_quote(other)
                ));
            }
        };
        total += num * scale;
    }
    if total > i64::MAX as f64 {
        return Err(invalid());
    }
    let v = total.round() as i64;
    Ok(if neg { -v } else { v })
}

/// Go's `time.Duration.String`.
pub fn duration_string(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = d.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        // Below one second: a fractional unit.
        let (unit, scale) = if u < 1_000 {
            ("ns", 1u64)
        } else if u < 1_000_000 {
            ("\u{b5}s", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&frac_text(u, scale));
        out.push_str(unit);
    } else {
        let secs_total = u / 1_000_000_000;
        let h = secs_total / 3600;
        let m = secs_total / 60 % 60;
        let sub = u % 60_000_000_000;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&frac_text(sub, 1_000_000_000));
        out.push('s');
    }
    if neg { format!("-{out}") } else { out }
}

fn frac_text(v: u64, scale: u64) -> String {
    let int = v / scale;
    let frac = v % scale;
    if frac == 0 {
        return int.to_string();
    }
    let width = scale.to_string().len() - 1;
    let f = format!("{frac:0width$}");
    format!("{int}.{}", f.trim_end_matches('0'))
}

/// A time argument: a time printed by these functions, or a Unix time in
/// seconds (Go's `int` case); `None` for anything else (Go then uses the
/// current time).
fn time_arg(v: &Value) -> Option<Time> {
    match v {
        Value::Str(s) => Time::from_go_string(s),
        Value::Int(i) => Timestamp::new(*i, 0)
            .ok()
            .map(|ts| Time::in_zone(ts, &TimeZone::UTC)),
        _ => None,
    }
}

fn want_time(v: &Value) -> Result<Time, String> {
    match v {
        Value::Str(s) => Time::from_go_string(s)
            .ok_or_else(|| "wrong type for value; expected time.Time; got string".to_string()),
        Value::Nil => Err("invalid value; expected time.Time".into()),
        other => Err(format!(
            "wrong type for value; expected time.Time; got {}",
            other.type_name()
        )),
    }
}

fn date_in_zone(clock: Clock, layout: &str, date: &Value, zone_name: &str) -> String {
    let ts = time_arg(date).map_or_else(|| clock.now(), |t| t.ts);
    format(layout, &Time::in_zone(ts, &zone(zone_name)))
}

pub(super) fn add(t: &mut Templates, clock: Clock) {
    t.add_func("now", 0, Some(0), move |_, _| {
        Ok(Value::Str(
            Time::in_zone(clock.now(), &zone("Local")).to_go_string(),
        ))
    });
    t.add_func("date", 2, Some(2), move |_, a| {
        let layout = want_str(&a[0], "date")?;
        Ok(Value::Str(date_in_zone(clock, layout, &a[1], "Local")))
    });
    for name in ["dateInZone", "date_in_zone"] {
        t.add_func(name, 3, Some(3), move |_, a| {
            let layout = want_str(&a[0], name)?;
            let z = want_str(&a[2], name)?;
            Ok(Value::Str(date_in_zone(clock, layout, &a[1], z)))
        });
    }
    t.add_func("htmlDate", 1, Some(1), move |_, a| {
        Ok(Value::Str(date_in_zone(
            clock,
            "2006-01-02",
            &a[0],
            "Local",
        )))
    });
    t.add_func("htmlDateInZone", 2, Some(2), move |_, a| {
        let z = want_str(&a[1], "htmlDateInZone")?;
        Ok(Value::Str(date_in_zone(clock, "2006-01-02", &a[0], z)))
    });
    for (name, must) in [("toDate", false), ("mustToDate", true)] {
        t.add_func(name, 2, Some(2), move |_, a| {
            let layout = want_str(&a[0], name)?;
            let text = want_str(&a[1], name)?;
            match parse(layout, text, &zone("Local")) {
                Ok(t) => Ok(Value::Str(t.to_go_string())),
                Err(e) if must => Err(e),
                Err(_) => Ok(Value::Str("0001-01-01 00:00:00 +0000 UTC".into())),
            }
        });
    }
    for (name, must) in [
        ("dateModify", false),
        ("date_modify", false),
        ("mustDateModify", true),
        ("must_date_modify", true),
    ] {
        t.add_func(name, 2, Some(2), move |_, a| {
            let d = want_str(&a[0], name)?;
            let time = want_time(&a[1])?;
            match parse_duration(d) {
                Ok(ns) => {
                    let ts = time
                        .ts
                        .checked_add(jiff::SignedDuration::from_nanos(ns))
                        .map_err(|e| e.to_string())?;
                    let tz = TimeZone::fixed(
                        jiff::tz::Offset::from_seconds(time.offset)
                            .unwrap_or(jiff::tz::Offset::UTC),
                    );
                    let mut out = Time::in_zone(ts, &tz);
                    out.abbr = time.abbr.clone();
                    Ok(Value::Str(out.to_go_string()))
                }
                Err(e) if must => Err(e),
                Err(_) => Ok(Value::Str(time.to_go_string())),
            }
        });
    }
    t.add_func("ago", 1, Some(1), move |_, a| {
        let then = time_arg(&a[0]).map_or_else(|| clock.now(), |t| t.ts);
        let ns = clock.now().as_nanosecond() - then.as_nanosecond();
        let rounded = ((ns as f64) / 1e9).round() as i64 * 1_000_000_000;
        Ok(Value::Str(duration_string(rounded)))
    });
    t.add_func("duration", 1, Some(1), |_, a| {
        // Sprig takes a string or an `int64`; any other value, an `int`
        // literal among them, is 0.
        let n: i64 = match &a[0] {
            Value::Str(s) => s.parse().unwrap_or(0),
            v => v.as_int64().unwrap_or(0),
        };
        Ok(Value::Str(duration_string(n.saturating_mul(1_000_000_000))))
    });
    t.add_func("durationRound", 1, Some(1), move |_, a| {
        let d: i64 = match &a[0] {
            Value::Str(s) => match Time::from_go_string(s) {
                Some(t) => (clock.now().as_nanosecond() - t.ts.as_nanosecond()) as i64,
                None => parse_duration(s).unwrap_or(0),
            },
            v => v.as_int64().unwrap_or(0),
        };
        let u = d.unsigned_abs();
        const S: u64 = 1_000_000_000;
        let units: [(u64, &str); 6] = [
            (S * 3600 * 24 * 365, "y"),
            (S * 3600 * 24 * 30, "mo"),
            (S * 3600 * 24, "d"),
            (S * 3600, "h"),
            (S * 60, "m"),
            (S, "s"),
        ];
        for (size, name) in units {
            if u > size {
                return Ok(Value::Str(format!("{}{name}", u / size)));
            }
        }
        Ok(Value::Str("0s".into()))
    });
    t.add_func("unixEpoch", 1, Some(1), |_, a| {
        Ok(Value::Str(want_time(&a[0])?.ts.as_second().to_string()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Time {
        Time::in_zone(Timestamp::new(secs, 123_000_000).unwrap(), &TimeZone::UTC)
    }

    #[test]
    fn formats_as_go() {
        let t = at(1_700_000_000); // 2023-11-14 22:13:20 UTC, a Tuesday
        assert_eq!(
            format("2006-01-02T15:04:05Z07:00", &t),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            format("Mon Jan _2 3:04PM .000", &t),
            "Tue Nov 14 10:13PM .123"
        );
        assert_eq!(t.to_go_string(), "2023-11-14 22:13:20.123 +0000 UTC");
        let back = Time::from_go_string(&t.to_go_string()).unwrap();
        assert_eq!(back.ts, t.ts);
    }

    #[test]
    fn parses_as_go() {
        let t = parse("2006-01-02", "2024-02-29", &TimeZone::UTC).unwrap();
        assert_eq!(t.to_go_string(), "2024-02-29 00:00:00 +0000 UTC");
        assert!(parse("2006-01-02", "2023-02-29", &TimeZone::UTC).is_err());
        assert_eq!(
            parse("2006-01-02", "x", &TimeZone::UTC).unwrap_err(),
            "parsing time \"x\" as \"2006-01-02\": cannot parse \"x\" as \"2006\""
        );
    }

    #[test]
    fn durations_as_go() {
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000_000_000);
        assert_eq!(duration_string(5_400_000_000_000), "1h30m0s");
        assert_eq!(duration_string(1_500_000_000), "1.5s");
        assert_eq!(duration_string(1_500_000), "1.5ms");
        assert_eq!(duration_string(-61_000_000_000), "-1m1s");
    }
}
