//! Manifests' `output:` and its `check` rules.
