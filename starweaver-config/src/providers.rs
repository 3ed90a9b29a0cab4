//! Which model providers' clients this build has. The clients live in `starweaver-providers`;
//! this crate's `openai` and `anthropic` features build them from manifests, and the checker
//! reports a model whose provider the build left out instead of failing at the first request.

use starweaver_core::model::ProviderKind;

/// Whether this build can run `kind`'s models (its feature, [`ProviderKind::feature`], is on).
#[must_use]
pub const fn is_built(kind: ProviderKind) -> bool {
    match kind {
        ProviderKind::OpenAi => cfg!(feature = "openai"),
        ProviderKind::Anthropic => cfg!(feature = "anthropic"),
    }
}
