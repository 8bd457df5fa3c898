//! `sops-decryption-missing`: a Kustomization applies a SOPS-encrypted
//! Secret (a `v1` Secret encrypted whole, with its top-level `sops`) and
//! has no `spec.decryption` with provider sops. kustomize-controller
//! checks every object before applying any ("… is SOPS encrypted,
//! configuring decryption is required for this secret to be reconciled"):
//! the whole Kustomization fails, none of its objects is applied, and the
//! Kustomizations that depend on it wait. `flate build` still shows its
//! objects (with placeholders for the encrypted values), with a warning.
//!
//! Not for the root flate makes up for the entry (its decryption, if any,
//! is in the cluster's own root, a FluxInstance's patches or the
//! bootstrap, which flate may not see).

use super::Ctx;
use crate::check::Finding;

pub const RULE: &str = "sops-decryption-missing";

pub fn run(ctx: &Ctx, out: &mut Vec<Finding>) {
    for k in &ctx.env.rendered.kustomizations {
        if k.refused_secrets.is_empty() {
            continue;
        }
        // (The made-up root is no object of the repository.)
        let Some((_, ks)) = ctx.ks_objects.get(&k.key()) else {
            continue;
        };
        if crate::check::opted_out(ks, RULE) {
            continue;
        }
        for s in &k.refused_secrets {
            let named = s.named();
            let (file, line) = match &s.origin.file {
                Some(f) => (Some(ctx.rel(f)), s.origin.line),
                None => ctx.ks_at(k, ""),
            };
            out.push(
                ctx.finding(
                    RULE,
                    format!(
                        "Secret {named} is SOPS-encrypted and Kustomization {} has no \
                         spec.decryption (provider: sops): Flux refuses the Secret and fails the \
                         whole Kustomization, applying none of its objects (give it \
                         spec.decryption with provider sops and the key's Secret)",
                        k.key()
                    ),
                )
                .at(file, line)
                .ks(k.key()),
            );
        }
    }
}
