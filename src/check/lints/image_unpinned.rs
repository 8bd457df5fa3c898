//! `image-unpinned` (warning): a container image with no tag, or the tag
//! `latest`, and no digest. What runs changes whenever the registry does.

use super::Ctx;
use crate::check::Finding;
use crate::check::pins::{container_images, split_image};

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (k, o) in &ctx.all {
        if crate::check::opted_out(o, "image-unpinned") {
            continue;
        }
        for (path, container, image) in container_images(o) {
            let (repo, tag, digest) = split_image(&image);
            if !digest.is_empty() {
                continue;
            }
            let why = if image.trim().is_empty() {
                "is empty".to_string()
            } else if tag.is_empty() {
                format!("\"{image}\" has no tag (pulls {repo}:latest)")
            } else if tag == "latest" {
                format!("\"{image}\" uses the tag latest")
            } else {
                continue;
            };
            let (file, line) = ctx.at(k, o, &path);
            out.push(
                ctx.finding(
                    "image-unpinned",
                    format!(
                        "{} {}/{} container {container}: image {why}; pin a version tag or a digest",
                        o.kind(),
                        o.namespace(),
                        o.name()
                    ),
                )
                .at(file, line)
                .ks(k.key())
                .object(o)
                .path(path),
            );
        }
    }
}
