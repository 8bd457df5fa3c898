//! IPv4 prefixes: parsing, containment, overlap and host arithmetic. The
//! environments flate generates for are IPv4 only (every range in the
//! infrastructure guide is IPv4), so IPv6 is refused with a clear message.

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

/// An IPv4 prefix in canonical form (no host bits set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr {
    network: u32,
    len: u8,
}

impl Cidr {
    pub fn new(addr: Ipv4Addr, len: u8) -> Result<Cidr, String> {
        if len > 32 {
            return Err(format!("prefix length {len} is larger than 32"));
        }
        let n = u32::from(addr);
        let c = Cidr { network: n, len };
        if n & !c.mask() != 0 {
            return Err(format!(
                "{addr}/{len} has host bits set (the network is {}/{len})",
                Ipv4Addr::from(n & c.mask())
            ));
        }
        Ok(c)
    }

    fn mask(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            u32::MAX << (32 - self.len)
        }
    }

    /// The prefix length.
    pub fn prefix_len(&self) -> u8 {
        self.len
    }

    pub fn network(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.network)
    }

    /// Number of addresses in the prefix.
    pub fn size(&self) -> u64 {
        1u64 << (32 - u32::from(self.len))
    }

    /// The last address of the prefix.
    pub fn broadcast(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.network | !self.mask())
    }

    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        u32::from(ip) & self.mask() == self.network
    }

    /// Whether the two prefixes share at least one address.
    pub fn overlaps(&self, other: &Cidr) -> bool {
        self.contains(other.network()) || other.contains(self.network())
    }

    /// The address `offset` positions after the network address, when it
    /// is inside the prefix.
    pub fn nth(&self, offset: u64) -> Option<Ipv4Addr> {
        if offset >= self.size() {
            return None;
        }
        Some(Ipv4Addr::from(self.network + offset as u32))
    }

    /// The address `offset` positions after the network address, even when
    /// that falls outside the prefix (for error messages); `None` past
    /// 255.255.255.255.
    pub fn nth_unchecked(&self, offset: u64) -> Option<Ipv4Addr> {
        let v = u64::from(self.network).checked_add(offset)?;
        u32::try_from(v).ok().map(Ipv4Addr::from)
    }

    /// Whether `ip` is a usable host address: inside the prefix and neither
    /// the network nor the broadcast address (for prefixes shorter than /31).
    pub fn is_host(&self, ip: Ipv4Addr) -> bool {
        if !self.contains(ip) {
            return false;
        }
        if self.len >= 31 {
            return true;
        }
        ip != self.network() && ip != self.broadcast()
    }

    /// The first usable host address.
    pub fn first_host(&self) -> Ipv4Addr {
        if self.len >= 31 {
            self.network()
        } else {
            Ipv4Addr::from(self.network + 1)
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network(), self.len)
    }
}

impl FromStr for Cidr {
    type Err = String;
    fn from_str(s: &str) -> Result<Cidr, String> {
        let (addr, len) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not a CIDR (expected ADDRESS/LENGTH)"))?;
        let addr = parse_ipv4(addr)?;
        let len: u8 = len
            .parse()
            .map_err(|_| format!("{s:?}: prefix length {len:?} is not a number"))?;
        Cidr::new(addr, len)
    }
}

/// Parses a dotted-quad IPv4 address, refusing IPv6 with a clear message.
pub fn parse_ipv4(s: &str) -> Result<Ipv4Addr, String> {
    if s.contains(':') {
        return Err(format!("{s:?} is an IPv6 address; only IPv4 is supported"));
    }
    Ipv4Addr::from_str(s).map_err(|_| format!("{s:?} is not an IPv4 address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_computes() {
        let c: Cidr = "10.150.200.0/24".parse().unwrap();
        assert_eq!(c.to_string(), "10.150.200.0/24");
        assert_eq!(c.first_host().to_string(), "10.150.200.1");
        assert_eq!(c.nth(5).unwrap().to_string(), "10.150.200.5");
        assert!(c.nth(256).is_none());
        assert_eq!(c.nth_unchecked(260).unwrap().to_string(), "10.150.201.4");
        assert!(c.is_host("10.150.200.254".parse().unwrap()));
        assert!(!c.is_host("10.150.200.255".parse().unwrap()));
        assert!(!c.is_host("10.150.200.0".parse().unwrap()));
        assert!(!c.contains("10.150.201.1".parse().unwrap()));
    }

    #[test]
    fn overlap() {
        let nb: Cidr = "10.254.0.0/15".parse().unwrap();
        let inside: Cidr = "10.255.3.0/24".parse().unwrap();
        let outside: Cidr = "10.253.0.0/16".parse().unwrap();
        assert!(nb.overlaps(&inside) && inside.overlaps(&nb));
        assert!(!nb.overlaps(&outside));
    }

    #[test]
    fn rejects() {
        assert!("10.254.0.0/14".parse::<Cidr>().is_err()); // host bits
        assert!("10.0.0.0".parse::<Cidr>().is_err());
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("fd00::/8".parse::<Cidr>().unwrap_err().contains("IPv6"));
    }
}
