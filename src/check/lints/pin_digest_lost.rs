//! `pin-digest-lost`: a patch sets an OCIRepository `spec.ref.tag` without
//! `spec.ref.digest` while the object it patches keeps a digest from its
//! base. Flux resolves the digest first, so the patch's tag pins nothing:
//! the environment silently runs the base's version.

use super::{Ctx, any_opted_out};
use crate::check::Finding;
use crate::check::pins::{Via, base_tag_of, lost_pins};

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (lp, k, o, digest) in lost_pins(ctx) {
        let mut subjects = vec![o];
        if let Via::Flux(key) = &lp.patch.via
            && let Some((_, ks)) = ctx.ks_objects.get(key)
        {
            subjects.push(ks);
        }
        if any_opted_out(&subjects, "pin-digest-lost") {
            continue;
        }
        let tag = lp.patch.tag.clone().unwrap_or_default();
        let base = base_tag_of(ctx, o)
            .filter(|t| *t != tag)
            .map(|t| format!(" (tag {t})"))
            .unwrap_or_default();
        out.push(
            ctx.finding(
                "pin-digest-lost",
                format!(
                    "the patch pins OCIRepository {}/{} to tag {tag} without a digest, but the base digest {digest}{base} stays and takes precedence: set ref.digest next to ref.tag",
                    o.namespace(),
                    o.name()
                ),
            )
            .at(lp.file.clone(), lp.line)
            .ks(k.key())
            .object(o)
            .path("spec.ref.tag"),
        );
    }
}
