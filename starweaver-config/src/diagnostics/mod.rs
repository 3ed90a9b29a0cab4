//! What the manifest checker reports: one [`Diagnostic`] per problem, each with the place it is
//! at, how serious it is and a stable [`Rule`] name that tools and allow markers can match on.

mod diagnostic;
mod rule;
mod severity;

pub use diagnostic::Diagnostic;
pub use rule::Rule;
pub use severity::Severity;
