//! Every `flate` command of the README runs as written in this repository
//! (exit status 0, or 1 for findings; never 2, "could not run").

use std::process::Command;

#[test]
fn readme_commands_run() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut ran = 0;
    for (i, block) in readme.split("```").enumerate() {
        // Odd pieces are inside a fence; only shell blocks hold commands.
        let Some(body) = block.strip_prefix("sh\n").filter(|_| i % 2 == 1) else {
            continue;
        };
        for line in body.lines() {
            // The command before a comment, a pipe or a redirection.
            let cmd = line.split(" #").next().unwrap_or("");
            let cmd = cmd.split(['|', '>']).next().unwrap_or("").trim();
            let Some(args) = cmd.strip_prefix("flate ") else {
                continue;
            };
            let args: Vec<&str> = args.split_whitespace().collect();
            let o = Command::new(env!("CARGO_BIN_EXE_flate"))
                .args(&args)
                .current_dir(&root)
                .output()
                .unwrap();
            let code = o.status.code();
            if args.contains(&"HEAD~1") && code == Some(2) {
                // A clone without history (CI's shallow checkouts).
                let e = String::from_utf8_lossy(&o.stderr);
                if e.contains("history") || e.contains("HEAD~1") {
                    eprintln!("SKIPPED: `{cmd}` needs the git history: {e}");
                    continue;
                }
            }
            assert!(
                matches!(code, Some(0) | Some(1)),
                "README: `{cmd}` exited {code:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 15, "{ran} commands");
}
