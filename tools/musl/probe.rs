// Run by tools/release-build.sh, built with the same C library link as the
// executable it is about to build (musl, with glibc-compat.c): exits 0 and
// prints "ok" when what flate relies on works, else says what does not.
// Every check here failed or crashed with one of the link's pieces missing.
use std::process::Command;

fn check(what: &str, ok: bool) {
    if !ok {
        eprintln!("probe: {what}: wrong");
        std::process::exit(1);
    }
}

// The reference: the first differing byte decides, as unsigned.
fn byte_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

fn main() {
    // Arguments reach std (the test passes three, one with a space).
    let args: Vec<String> = std::env::args().skip(1).collect();
    check("arguments", args == ["one", "two words", ""]);
    // A panic unwinds and is caught (libgcc_eh, _dl_find_object, pthread_once).
    std::panic::set_hook(Box::new(|_| {}));
    let caught = std::panic::catch_unwind(|| {
        let v: Vec<u8> = Vec::new();
        v[std::env::args().count() + 1]
    });
    check("caught panic", caught.is_err());
    // Threads start and join; a panic in a thread is reported at join.
    let h = std::thread::spawn(|| (0..1000u64).sum::<u64>());
    check("thread", h.join().ok() == Some(499500));
    check(
        "thread panic",
        std::thread::spawn(|| panic!("x")).join().is_err(),
    );
    // Processes: exit status, output, and a missing program as NotFound.
    let out = Command::new("sh")
        .args(["-c", "printf hi; exit 3"])
        .output();
    check(
        "process",
        matches!(&out, Ok(o) if o.stdout == b"hi" && o.status.code() == Some(3)),
    );
    let missing = Command::new("/nonexistent/flate-probe").output();
    check(
        "missing program",
        matches!(&missing, Err(e) if e.kind() == std::io::ErrorKind::NotFound),
    );
    // memcmp and bcmp (slice order and equality) on every length to 40,
    // each byte position differing either way, high bytes included.
    for len in 0..40usize {
        let a: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        check("bcmp equal", a == a.clone());
        for pos in 0..len {
            for delta in [1u8, 0x80, 0xff] {
                let mut b = a.clone();
                b[pos] = b[pos].wrapping_add(delta);
                check("memcmp order", a.cmp(&b) == byte_order(&a, &b));
                check("memcmp order", b.cmp(&a) == byte_order(&b, &a));
                check("bcmp unequal", a != b);
            }
        }
    }
    // memcpy and memmove: every length to 300 and 5000 (the long path),
    // copies that overlap either way by every distance to 70.
    let src: Vec<u8> = (0..6000usize).map(|i| (i * 131 + 7) as u8).collect();
    for len in (0..300usize).chain([4095, 4096, 5000]) {
        let mut dst = vec![0u8; len + 16];
        dst[3..3 + len].copy_from_slice(&src[5..5 + len]);
        check(
            "memcpy",
            dst[3..3 + len] == src[5..5 + len] && dst[..3] == [0; 3],
        );
        check("memcpy end", dst[3 + len..].iter().all(|&b| b == 0));
        for shift in 0..70usize {
            for (from, to) in [(0, shift), (shift, 0)] {
                let mut buf = src[..len + 70].to_vec();
                buf.copy_within(from..from + len, to);
                let mut want = src[..len + 70].to_vec();
                let moved: Vec<u8> = want[from..from + len].to_vec();
                for (i, b) in moved.into_iter().enumerate() {
                    want[to + i] = b;
                }
                check("memmove", buf == want);
            }
        }
    }
    // Files: write, rename, read back, list a directory.
    let dir = std::env::temp_dir().join(format!("flate-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = std::fs::create_dir(&dir)
        .and_then(|_| std::fs::write(dir.join("a"), b"x"))
        .and_then(|_| std::fs::rename(dir.join("a"), dir.join("b")))
        .and_then(|_| std::fs::read(dir.join("b")))
        .and_then(|r| Ok((r, std::fs::read_dir(&dir)?.count())));
    let _ = std::fs::remove_dir_all(&dir);
    check("files", matches!(files, Ok((r, 1)) if r == b"x"));
    println!("ok");
}
