//! No command reads outside the repository: a symlink (to a file or a
//! directory, in the working tree or in a git revision) that leads out of
//! it is refused with an error naming the link and its target, and what it
//! points at never reaches the output. Symlinks inside the repository work.

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

const SECRET: &str = "s3cr3t-outside-the-repository";

/// A scratch copy of the example tree (a git repository with one commit)
/// and, next to it, a directory outside the repository holding a secret
/// file, a copy of an app and a Talos spec; both in the returned scratch
/// directory, which the caller keeps until the end of the test.
fn setup(name: &str) -> (common::Scratch, PathBuf, PathBuf) {
    let d = common::scratch(&format!("symlinks-{name}"));
    let repo = d.join("repo");
    let outside = d.join("outside");
    common::copy_dir(&common::root().join("kubernetes"), &repo.join("kubernetes"));
    common::copy_dir(
        &common::root().join("kubernetes/apps/base/mesh-gateway-api/app"),
        &outside.join("app"),
    );
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::copy(
        repo.join("kubernetes/clusters/production/talos.yaml"),
        outside.join("talos.yaml"),
    )
    .unwrap();
    common::git(&repo, &["init", "-q"]);
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "example"]);
    (d, repo, outside)
}

fn app(repo: &Path) -> PathBuf {
    repo.join("kubernetes/apps/base/mesh-gateway-api/app")
}

fn append(path: &Path, text: &str) {
    let s = std::fs::read_to_string(path).unwrap() + text;
    std::fs::write(path, s).unwrap();
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Flux commands show paths inside the repository relative to it.
fn rel<'a>(repo: &Path, p: &'a Path) -> &'a Path {
    p.strip_prefix(repo).unwrap_or(p)
}

fn assert_refused(o: &Output, link: &Path, target: &Path) {
    let all = text(o);
    assert!(!all.contains(SECRET), "the secret was printed:\n{all}");
    assert_eq!(o.status.code(), Some(1), "{all}");
    let want = format!(
        "'{}' is a symlink to '{}', outside the repository",
        link.display(),
        target.display()
    );
    assert!(all.contains(&want), "no {want:?} in:\n{all}");
}

#[test]
fn a_generator_file_linked_out_of_the_repository_is_refused() {
    let (_d, repo, outside) = setup("generator");
    let link = app(&repo).join("leak.txt");
    symlink(outside.join("secret.txt"), &link).unwrap();
    append(
        &app(&repo).join("kustomization.yaml"),
        "configMapGenerator:\n  - name: leak\n    files:\n      - leak.txt\n",
    );
    for args in [
        &["build", "production"][..],
        &["build", "production", "-o", "json"][..],
        &["check", "production"][..],
        &["test", "all", "production"][..],
    ] {
        let o = common::flate_in(args, &repo);
        assert_refused(&o, rel(&repo, &link), &outside.join("secret.txt"));
    }
    let o = common::flate_in(&["diff", "production", "--base", "HEAD"], &repo);
    let all = text(&o);
    assert!(!all.contains(SECRET), "{all}");
    assert!(all.contains("outside the repository"), "{all}");
}

#[test]
fn a_resource_and_a_flux_path_linked_out_of_the_repository_are_refused() {
    let (_d, repo, outside) = setup("resource");
    // A resource file.
    let link = app(&repo).join("tlsroute.yaml");
    std::fs::remove_file(&link).unwrap();
    symlink(outside.join("app/tlsroute.yaml"), &link).unwrap();
    let o = common::flate_in(&["build", "production"], &repo);
    assert_refused(&o, rel(&repo, &link), &outside.join("app/tlsroute.yaml"));

    // A Flux Kustomization's spec.path that is a link to a directory.
    let (_d, repo, outside) = setup("spec-path");
    let link = repo.join("kubernetes/apps/base/mesh-gateway-api/linked");
    symlink(outside.join("app"), &link).unwrap();
    let ks = repo.join("kubernetes/apps/base/mesh-gateway-api/ks.yaml");
    common::edit(&ks, "mesh-gateway-api/app\n", "mesh-gateway-api/linked\n");
    let o = common::flate_in(&["build", "production"], &repo);
    assert_refused(&o, rel(&repo, &link), &outside.join("app"));
}

#[test]
fn a_talos_spec_linked_out_of_the_repository_is_refused() {
    let (_d, repo, outside) = setup("talos");
    let link = repo.join("kubernetes/clusters/production/talos.yaml");
    std::fs::remove_file(&link).unwrap();
    symlink(outside.join("talos.yaml"), &link).unwrap();
    for args in [
        &["build", "production"][..],
        &["talos", "check", "production"][..],
    ] {
        let o = common::flate_in(args, &repo);
        let all = text(&o);
        assert!(!o.status.success(), "{args:?}: {all}");
        assert!(
            all.contains(&format!(
                "'{}' is a symlink to '{}', outside the repository",
                link.display(),
                outside.join("talos.yaml").display()
            )),
            "{args:?}: {all}"
        );
    }
}

#[test]
fn symlinks_inside_the_repository_are_followed() {
    let (_d, repo, _) = setup("inside");
    let before = common::flate_in(&["build", "production"], &repo);
    assert!(before.status.success(), "{}", text(&before));
    // The resource becomes a link to a copy elsewhere in the repository,
    // in the working tree and in a commit.
    let file = app(&repo).join("tlsroute.yaml");
    std::fs::create_dir_all(repo.join("shared")).unwrap();
    std::fs::rename(&file, repo.join("shared/tlsroute.yaml")).unwrap();
    symlink("../../../../../shared/tlsroute.yaml", &file).unwrap();
    let after = common::flate_in(&["build", "production"], &repo);
    assert!(after.status.success(), "{}", text(&after));
    assert_eq!(
        String::from_utf8_lossy(&before.stdout),
        String::from_utf8_lossy(&after.stdout)
    );
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "link"]);
    let o = common::flate_in(&["diff", "production", "--base", "HEAD"], &repo);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("failed"), "{}", text(&o));
}

#[test]
fn a_committed_symlink_out_of_the_repository_is_refused_on_the_base_side() {
    let (_d, repo, outside) = setup("git");
    let file = app(&repo).join("tlsroute.yaml");
    let kept = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    symlink(outside.join("app/tlsroute.yaml"), &file).unwrap();
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "escaping link"]);
    // The working tree has a real file again; the base has the link.
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, kept).unwrap();
    let o = common::flate_in(&["diff", "production", "--base", "HEAD"], &repo);
    let all = text(&o);
    assert!(
        all.contains(&format!(
            "'{}' is a symlink to '{}', outside the repository",
            rel(&repo, &file).display(),
            outside.join("app/tlsroute.yaml").display()
        )),
        "{all}"
    );
}
