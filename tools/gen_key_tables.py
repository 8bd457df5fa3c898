#!/usr/bin/env python3
"""Writes the tables flate's Sprig key generators draw from.

flate renders charts for review, diff and validation, never to protect
anything: its random functions come from a seeded generator, so anyone can
produce its keys again (docs/template.md). Searching for a prime as Go
does (random odd numbers, trial division, Miller-Rabin) is what made a
chart that calls `genCA` cost 75 ms; drawing the two primes of a key from
a table makes it cost the key's arithmetic only. This script makes those
tables, the same bytes on every run (the numbers come from SHA-256 of a
fixed text and a counter, not from a random source):

  src/helm/sprig/keytables/rsa-1024.bin  128 primes of 1024 bits (2048-bit keys)
  src/helm/sprig/keytables/rsa-2048.bin   48 primes of 2048 bits (4096-bit keys)
  src/helm/sprig/keytables/dsa-2048-256.bin  16 DSA parameter sets (L2048N256,
                                          Sprig's size: P, Q, G, each big-endian,
                                          256 + 32 + 256 bytes)

Each prime is big-endian, its top two bits set (so that the product of two
has all its bits, as Go's primes do), and p - 1 is prime to 65537 (so the
public exponent has an inverse). The DSA parameters are made as Go's
`dsa.GenerateParameters` makes them: Q a 256-bit prime (top bit set), P a
2048-bit prime with P = 1 mod Q, G = H^((P-1)/Q) mod P for the first H from
2 that does not give 1. Primality: trial division by the primes
below 2^16, then 40 Miller-Rabin rounds with bases from the same stream
(the tests check every entry again, with flate's own arithmetic).

Usage: tools/gen_key_tables.py [--check]   (--check: compare with the files;
       about four minutes either way)
"""
import hashlib
import os
import sys

SEED = b"flate sprig key tables v1"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "helm", "sprig", "keytables")
TABLES = [("rsa-1024.bin", 1024, 128), ("rsa-2048.bin", 2048, 48)]


class Stream:
    """Bytes of SHA-256(SEED | label | counter), counter from 0."""

    def __init__(self, label):
        self.label = label.encode()
        self.counter = 0

    def bits(self, n):
        need = (n + 7) // 8
        out = b""
        while len(out) < need:
            out += hashlib.sha256(SEED + b"|" + self.label + b"|" + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
        return int.from_bytes(out[:need], "big") >> (need * 8 - n)


def small_primes(limit=1 << 16):
    sieve = bytearray([1]) * limit
    sieve[0] = sieve[1] = 0
    for i in range(2, int(limit**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    return [i for i in range(3, limit) if sieve[i]]


SMALL = small_primes()


def miller_rabin(n, rounds, stream):
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for _ in range(rounds):
        a = 2 + stream.bits(n.bit_length() - 1) % (n - 3)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prime(bits, stream):
    while True:
        c = stream.bits(bits) | (3 << (bits - 2)) | 1
        if any(c % p == 0 for p in SMALL):
            continue
        if (c - 1) % 65537 == 0:
            continue
        if miller_rabin(c, 40, stream):
            return c


def table(bits, count):
    stream = Stream(f"rsa-{bits}")
    seen, out = set(), b""
    while len(seen) < count:
        p = prime(bits, stream)
        if p in seen:
            continue
        seen.add(p)
        out += p.to_bytes(bits // 8, "big")
    return out


def dsa_table(count, L=2048, N=256):
    stream = Stream(f"dsa-{L}-{N}")
    out = b""
    for _ in range(count):
        while True:
            q = stream.bits(N) | (1 << (N - 1)) | 1
            if any(q % p == 0 for p in SMALL[:200]) or not miller_rabin(q, 40, stream):
                continue
            found = None
            for _ in range(4 * L):
                c = stream.bits(L) | (1 << (L - 1)) | 1
                c -= c % q - 1
                if c.bit_length() < L or any(c % p == 0 for p in SMALL[:2000]):
                    continue
                if miller_rabin(c, 40, stream):
                    found = c
                    break
            if found:
                break
        p = found
        h = 2
        while pow(h, (p - 1) // q, p) == 1:
            h += 1
        g = pow(h, (p - 1) // q, p)
        out += p.to_bytes(L // 8, "big") + q.to_bytes(N // 8, "big") + g.to_bytes(L // 8, "big")
    return out


def main():
    check = "--check" in sys.argv[1:]
    bad = 0
    for name, bits, count in TABLES + [("dsa-2048-256.bin", None, 16)]:
        data = table(bits, count) if bits else dsa_table(count)
        path = os.path.join(OUT, name)
        if check:
            with open(path, "rb") as f:
                same = f.read() == data
            print(f"{name}: {'same' if same else 'DIFFERENT'}")
            bad += not same
        else:
            os.makedirs(OUT, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            what = f"primes of {bits} bits" if bits else "DSA parameter sets"
            print(f"{name}: {count} {what}, {len(data)} bytes")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
